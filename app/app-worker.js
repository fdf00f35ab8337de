// deltaclue's service worker (go-app fills in the version and the files). Everything the page needs is kept in
// one cache per build, so that after one visit the page loads and explains offline. On a first visit the large
// files (app.wasm, worker.wasm, matmul.wasm, models.bin) are not fetched here: the page has just fetched them
// and puts them into this cache itself (app/loader.js), so each crosses the network once. On an update the
// open page runs the old build, so the new build's large files are fetched here.
const cacheName = "app-" + "{{.Version}}";
const resourcesToCache = {{.ResourcesToCache}};
const isLarge = (url) => /(\.wasm|\/models\.bin)$/.test(new URL(url, self.location.href).pathname);

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const keys = await caches.keys();
    const update = keys.some((k) => k.startsWith("app-") && k !== cacheName);
    const cache = await caches.open(cacheName);
    // The site's root as the browser asks for it ("/repo/"), not only as go-app lists it ("/repo").
    const list = [...new Set([...resourcesToCache, self.registration.scope])].filter((u) => update || !isLarge(u));
    await cache.addAll(list);
    await self.skipWaiting();
  })());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const key of await caches.keys()) {
      if (key.startsWith("app-") && key !== cacheName) {
        await caches.delete(key);
      }
    }
    await self.clients.claim();
  })());
});

self.addEventListener("fetch", (event) => {
  if (event.request.method !== "GET") {
    return;
  }
  event.respondWith((async () => {
    const cache = await caches.open(cacheName);
    // A share link's query (?workers=2) must not miss the cached page.
    let hit = await cache.match(event.request, { ignoreSearch: true });
    if (!hit && event.request.mode === "navigate") {
      hit = await cache.match(self.registration.scope);
    }
    return hit || fetch(event.request);
  })());
});
