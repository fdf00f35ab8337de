// deltaclue's service worker (go-app fills in the version and the files). Everything the page needs is kept in
// one cache per build, so that after one visit the page loads and explains offline. On a first visit the large
// files (app.wasm, worker.wasm, matmul.wasm, models.bin) are not fetched here: the page has just fetched them
// and puts them into this cache itself (web/loader.js), so each crosses the network once. On an update the
// open page runs the old build, so the new build's large files are fetched here.
const cacheName = "app-" + "{{.Version}}";
const resourcesToCache = {{.ResourcesToCache}};
const isLarge = (url) => /(\.wasm|\/models\.bin)$/.test(new URL(url, self.location.href).pathname);
// Fetched only when a visitor asks: the global view's data, and another models' gallery (web/<name>/); kept then,
// they are there offline too. (Another models' worker and bundle the page keeps itself, as it does the default's.)
const isOnDemand = (url) => /\/web\/([a-z0-9-]+\/)?(global|gallery)\.json$/.test(new URL(url, self.location.href).pathname);

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const keys = await caches.keys();
    const update = keys.some((k) => k.startsWith("app-") && k !== cacheName);
    const cache = await caches.open(cacheName);
    const scope = self.registration.scope;
    // go-app lists the site's root as "/repo" (the browser asks for "/repo/"), or as "/", which at the root is
    // the scope itself: addAll rejects a list that holds a URL twice. The root is kept once, below.
    const files = new Set(resourcesToCache.map((u) => new URL(u, scope).href));
    files.delete(scope);
    files.delete(scope.replace(/\/$/, ""));
    // "no-cache": the browser's HTTP cache may hold another build's file (GitHub Pages says max-age=600); a
    // revalidation moves no bytes when it holds this one.
    const requests = [...files].filter((u) => update || !isLarge(u)).map((u) => new Request(u, { cache: "no-cache" }));
    await Promise.all([cache.addAll(requests), rootPage().then((page) => cache.put(scope, page))]);
    await self.skipWaiting();
  })());
});

// rootPage is the site's page (index.html). An open page at the site's root has just been loaded, maybe with a
// query (a share link's ?workers=2) that the scope's URL lacks: the HTTP cache holds it under the page's own
// URL, so ask for that one and move no bytes (the page is the same whatever the query).
async function rootPage() {
  const scope = self.registration.scope;
  const open = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  const urls = open.map((c) => new URL(c.url)).filter((u) => u.origin + u.pathname === scope)
    .map((u) => { u.hash = ""; return u.href; });
  for (const url of [...urls, scope]) {
    const response = await fetch(url, { cache: "no-cache" }).catch(() => null);
    if (response && response.ok) {
      return response;
    }
  }
  throw new Error("the site's page (" + scope + ") could not be fetched");
}

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
    // The page under another address of its own (index.html, or the scope without its slash) is the cached page;
    // any other page of the site (embed-example.html) is fetched as it is.
    const path = new URL(event.request.url).pathname, scope = new URL(self.registration.scope).pathname;
    if (!hit && event.request.mode === "navigate" && [scope, scope + "index.html", scope.replace(/\/$/, "")].includes(path)) {
      hit = await cache.match(self.registration.scope);
    }
    if (hit) {
      return hit;
    }
    // Offline, a file that is not in the cache fails as it would without a service worker, and says so once
    // (in the page's console), not also as an uncaught error here.
    const response = await fetch(event.request).catch(() => Response.error());
    if (response.ok && isOnDemand(event.request.url)) {
      await cache.put(event.request, response.clone());
    }
    return response;
  })());
});
