//! The service worker: Swap Lab keeps working offline once it has loaded.
//!
//! It owns one cache per deploy and site path, named `swaplab-offline <scope> <version>`.
//! Installing fills it with every built file (the list below); activating deletes this
//! site's older caches and takes over open pages. Then, for requests inside its scope:
//! - a navigation (any route: `/learn/…`, `/play`, …) goes to the network first, so an
//!   online reader always gets the current deploy's page; offline, or when the host
//!   answers with an error, it gets the route's cached prerendered page
//!   (`learn/<chapter>/index.html`), else the cached shell `404.html` and the app
//!   routes itself;
//! - any other GET is answered from the cache, else from the network (never stored).
//! Cross-origin and non-GET requests are left to the browser. `theme.js` registers this
//! file from the site's base URL, so its scope is the site's path, `/` or `/swaplab/`.
//!
//! A new deploy is a new version, so the browser sees a changed `sw.js`, installs it
//! and switches over at once (`skipWaiting`, `clients.claim`): pages already open keep
//! running, since the app fetched its JS, wasm and CSS when it started.

// `cargo xtask dist` (crates/xtask/src/offline.rs) replaces the next line in dist/sw.js
// with the built files, relative to this script, and a hash of their contents. The
// committed line caches nothing.
const PRECACHE = { version: "unbuilt", files: [] };

const SCOPE = self.registration.scope;
const CACHE_PREFIX = `swaplab-offline ${new URL(SCOPE).pathname} `;
const CACHE = CACHE_PREFIX + PRECACHE.version;
// The app's shell, for routes with no page of their own (`index.html` is the start page).
const SHELL = new URL("404.html", self.location.href).href;

self.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      // `no-cache` revalidates with the server, so a stale HTTP-cached copy never lands
      // in a new version. One failed file fails the install; the old version stays.
      await cache.addAll(
        PRECACHE.files.map((file) => new Request(new URL(file, self.location.href), { cache: "no-cache" })),
      );
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      const names = await caches.keys();
      await Promise.all(
        names.filter((name) => name.startsWith(CACHE_PREFIX) && name !== CACHE).map((name) => caches.delete(name)),
      );
      await self.clients.claim();
    })(),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET" || !request.url.startsWith(SCOPE)) return;
  event.respondWith(request.mode === "navigate" ? navigate(request) : cacheFirst(request));
});

async function navigate(request) {
  try {
    const response = await fetch(request);
    // Redirects and successes pass through; a host without a deep-link fallback (404)
    // or a failing one gets the route's page, or the app, which knows its routes.
    if (response.status < 400) return response;
    return (await offlinePage(request)) || response;
  } catch (error) {
    const page = await offlinePage(request);
    if (page) return page;
    throw error;
  }
}

// The route's prerendered page when the build wrote one, else the app's shell.
async function offlinePage(request) {
  const url = new URL(request.url);
  const path = url.pathname.replace(/\/$/, "");
  const prerendered = url.origin + path + "/index.html";
  return (await cached(prerendered)) || (await cached(SHELL));
}

async function cacheFirst(request) {
  return (await cached(request)) || fetch(request);
}

async function cached(request) {
  const cache = await caches.open(CACHE);
  return cache.match(request);
}
