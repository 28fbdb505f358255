// Applies the reader's stored theme before the first paint, so a dark-mode choice never
// flashes light while the app loads (the app owns the choice afterwards), and registers
// the service worker that keeps the site working offline.
(function () {
  try {
    var theme = window.localStorage.getItem("swaplab.theme.v1");
    if (theme === "light" || theme === "dark") {
      document.documentElement.setAttribute("data-theme", theme);
    }
  } catch (e) {
    // Storage can be unavailable (private mode, sandboxed frames); the system theme applies.
  }
})();

// A prerendered page that follows its address (the playground shows the example or the
// shared link it names, the workshop presenter its step) shows its address's default
// state. When the address names another one, that page is hidden until the app has
// started and shows the right one, instead of flashing the wrong example first
// (`main[data-follows-address]` in style.css; the app's own <main> has no such mark).
(function () {
  var location = window.location;
  if (location.search.length > 1 || location.hash.length > 1) {
    document.documentElement.setAttribute("data-address-has-state", "");
  }
})();

// Offers the site for offline use: sw.js, beside index.html, caches the built files (see
// its header). Registered against the base URL, so under /swaplab/ its scope is
// /swaplab/. Only where browsers allow service workers (https, or http on loopback), and
// only once the app has started (Trunk's loader then fires TrunkApplicationStarted), so
// the worker's download of every built file never competes with the app's own wasm. The
// page's `load` comes far sooner: on a slow 4G phone it fired after 1 s while the wasm
// took 4 s more, and the two downloads sharing the line made the first visit 9.6 s
// instead of 5.8 (docs/benchmarks-notes.md). A refusal (private mode, a blocked script)
// leaves the site working online, as before.
(function () {
  var protocol = window.location.protocol;
  if ((protocol !== "https:" && protocol !== "http:") || !window.isSecureContext) return;
  if (!("serviceWorker" in navigator)) return;
  window.addEventListener("TrunkApplicationStarted", function () {
    try {
      navigator.serviceWorker.register(new URL("sw.js", document.baseURI).href).catch(function () {});
    } catch (e) {
      // A browser that throws instead of rejecting: the same, nothing to do.
    }
  });
})();
