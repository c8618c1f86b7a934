// Installing the client: registers the service worker (web/sw.js, served at /sw.js),
// which keeps the static client for a reload while the server is briefly gone. The
// manifest (index.html links /manifest.webmanifest) makes "Add to home screen" open a
// full-screen table. A browser without service workers (or a page on plain http at an
// address that is not this machine, where browsers refuse them) simply goes without.

/** Register the service worker; never fails the page. */
export function registerWorker() {
  if (!("serviceWorker" in navigator)) return;
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {
    /* refused (an insecure address, storage off): the page works without it */
  });
}
