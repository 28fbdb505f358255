// Applies the reader's stored theme before the first paint, so a dark-mode choice never
// flashes light while the app loads. The app itself owns the choice afterwards.
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
