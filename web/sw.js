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
// Only the static client is ever cached: the API (/api/…), the socket (/ws/…), the
// health and metrics endpoints are never answered from, nor written to, a cache.
// Static files are answered from the cache first; a page (a navigation) from the
// network first, the cached page only when the network fails.

const BUILD = "dev";
const FILES = ["/"];

const PREFIX = "schmier-static-";
const CACHE = `${PREFIX}${BUILD}`;

function cached(url) {
  return url.origin === self.location.origin && (url.pathname.startsWith("/static/") || url.pathname === "/manifest.webmanifest");
}

self.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      // Past the HTTP cache: the files of this build, not older copies of them.
      await cache.addAll(FILES.map((path) => new Request(path, { cache: "reload" })));
      await self.skipWaiting();
    })(),
  );
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
    return await fetch(request);
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
    if (url.pathname === "/" || url.pathname.startsWith("/r/")) event.respondWith(fromNetworkFirst(request));
    return;
  }
  if (cached(url)) event.respondWith(fromCacheFirst(request));
  // Everything else (the API, the socket, /healthz, /metrics) goes to the network as usual.
});
