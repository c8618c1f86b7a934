// Installing the client: registers the service worker (web/sw.js, served at /sw.js),
// which keeps the static client for a reload while the server is briefly gone. The
// manifest (index.html links /manifest.webmanifest) makes "Add to home screen" open a
// full-screen table. A browser without service workers (or a page on plain http at an
// address that is not this machine, where browsers refuse them) simply goes without.
//
// On a first visit (no worker controls the page yet) the page tells the new worker
// which of the client's files it has loaded, so that the worker keeps those copies
// rather than downloading the client a second time (sw.js, "keep").

/** The client's files this page has loaded: the page itself, and its own /static/ files. */
function loadedFiles() {
  const paths = new Set(["/"]);
  for (const entry of performance.getEntriesByType("resource")) {
    const url = new URL(entry.name);
    if (url.origin !== location.origin) continue;
    if (url.pathname.startsWith("/static/") || url.pathname === "/manifest.webmanifest") paths.add(url.pathname);
  }
  return [...paths];
}

/** Register the service worker; never fails the page. */
export function registerWorker() {
  if (!("serviceWorker" in navigator)) return;
  const first = navigator.serviceWorker.controller === null;
  navigator.serviceWorker
    .register("/sw.js", { scope: "/" })
    .then(() => navigator.serviceWorker.ready)
    .then((registration) => {
      // Once the page has drawn (its catalogues, rule books and styles are in).
      if (first && registration.active) {
        const send = () => registration.active.postMessage({ type: "keep", paths: loadedFiles() });
        if (document.readyState === "complete") setTimeout(send, 1000);
        else addEventListener("load", () => setTimeout(send, 1000), { once: true });
      }
    })
    .catch(() => {
      /* refused (an insecure address, storage off): the page works without it */
    });
}
