// The service worker: keeps the static client (the page, its scripts, styles,
// catalogues, sounds and icons) in a cache of its build, so that a reload while the
// server is briefly gone still draws the page, which then shows its own
// "reconnecting" state instead of the browser's error page.
//
// Served by the server at /sw.js (schmier/api/install.py), which writes its build
// (the server's version and a hash of the client's files) and the list of the files
// into the two constants below; a new build is a new worker with a new cache, and the
// old caches are deleted when it takes over.
//
// Nothing is downloaded twice. Installing fetches nothing: the page that registered
// the worker on its first visit sends the list of the files it has just loaded
// ("keep"), and the worker copies them from the browser's HTTP cache (`force-cache`:
// no request, the page got them a moment ago). Every other file of the client (a
// sound, another language) is kept the first time a page under the worker asks for
// it. Only a page that no worker controlled sends the list: a page drawn from an older
// build's cache never fills a newer build's.
//
// Only the static client is ever cached: the API (/api/…), the socket (/ws/…), the
// health and metrics endpoints are never answered from, nor written to, a cache.
// Static files are answered from the cache first; a page (a navigation) from the
// network first, the cached page only when the network fails.

const BUILD = "dev";
const FILES = ["/"];

const PREFIX = "schmier-static-";
const CACHE = `${PREFIX}${BUILD}`;
const KNOWN = new Set(FILES);

function cached(url) {
  return url.origin === self.location.origin && (url.pathname.startsWith("/static/") || url.pathname === "/manifest.webmanifest");
}

self.addEventListener("install", (event) => {
  event.waitUntil(self.skipWaiting());
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith(PREFIX) && name !== CACHE) await caches.delete(name);
      }
    })(),
  );
});

/** Keep the files a first visit loaded, from the HTTP cache (no request when it has them). */
async function keep(paths) {
  const cache = await caches.open(CACHE);
  for (const path of paths) {
    if (!KNOWN.has(path) || (await cache.match(path))) continue;
    try {
      const answer = await fetch(new Request(path, { cache: "force-cache" }));
      if (answer.ok) await cache.put(path, answer);
    } catch {
      /* the server is away: the file is kept the next time it is asked for */
    }
  }
}

self.addEventListener("message", (event) => {
  const data = event.data;
  if (data && data.type === "keep" && Array.isArray(data.paths)) {
    event.waitUntil(keep(data.paths.filter((p) => typeof p === "string")));
  }
});

async function fromCacheFirst(request) {
  const cache = await caches.open(CACHE);
  const hit = await cache.match(request);
  if (hit) return hit;
  const answer = await fetch(request);
  if (answer.ok) await cache.put(request, answer.clone());
  return answer;
}

async function fromNetworkFirst(request) {
  try {
    const answer = await fetch(request);
    // Every address shows the same page: the newest copy is kept as "/".
    if (answer.ok) {
      const cache = await caches.open(CACHE);
      await cache.put("/", answer.clone());
    }
    return answer;
  } catch (error) {
    // The server cannot be reached: the page itself (the same for every address).
    const page = await caches.match("/", { cacheName: CACHE });
    if (page) return page;
    throw error;
  }
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === "navigate") {
    if (url.pathname === "/" || url.pathname.startsWith("/r/") || url.pathname.startsWith("/rules/")) {
      event.respondWith(fromNetworkFirst(request));
    }
    return;
  }
  if (cached(url)) event.respondWith(fromCacheFirst(request));
  // Everything else (the API, the socket, /healthz, /metrics) goes to the network as usual.
});
