// deltaclue's loader for the search workers' files: worker.wasm and matmul.wasm are fetched and compiled once
// for the whole pool, and the models bundle fetched once with its progress; the page (Go) checks the bundle's
// SHA-256 and posts the modules and a copy of the bundle to each worker (web/worker.js). Every large file the
// page fetches also goes into the service worker's cache for this build (app/app-worker.js), so that it crosses
// the network once and the page works offline afterwards.
"use strict";

const deltaclueBase = document.currentScript ? document.currentScript.src : location.href;

// The downloads and compiles start as soon as the page's head runs this script, while app.wasm still loads:
// the page's Go asks for them once it runs, and takes what has already come.
const deltaclueEarly = {};
for (const name of ["worker.wasm", "matmul.wasm", "models.bin"]) {
  const url = new URL(name, deltaclueBase).href;
  const response = fetch(url).catch(() => null); // a failure is fetched again, and reported, below
  const module = name.endsWith(".wasm") ?
    response.then((r) => r && r.ok ? WebAssembly.compileStreaming(r.clone()) : null).catch(() => null) : null;
  deltaclueEarly[url] = { response, module };
}

// app.wasm is fetched by go-app's loader (app.js, deferred, so it runs after this script), with fetch(). That
// one download is teed here, and the page puts the copy into this build's cache (keepApp below): fetching it
// again would count on the browser's HTTP cache holding 10 MB, which a small or full cache, or a host that
// forbids caching, does not; the second request then downloads it all again.
let deltaclueApp = null; // a promise of a copy of go-app's response for app.wasm
{
  const appURL = new URL("app.wasm", deltaclueBase).href;
  const fetch0 = window.fetch;
  window.fetch = function (input, init) {
    const url = new URL(input instanceof Request ? input.url : String(input), location.href).href;
    if (url !== appURL) {
      return fetch0.apply(window, arguments);
    }
    window.fetch = fetch0; // only go-app's first request
    const response = fetch0.apply(window, arguments);
    deltaclueApp = response.then((r) => (r.ok ? r.clone() : null), () => null);
    return deltaclueApp.then(() => response); // go-app reads the body once the copy is made
  };
}

window.deltaclueLoad = async function (urls, cacheName, onProgress) {
  const cache = ("caches" in window) ? await caches.open(cacheName).catch(() => null) : null;
  const name = (url) => new URL(url, location.href).pathname.split("/").pop();
  // early takes what this script started for url, if anything.
  const early = (url) => {
    const abs = new URL(url, location.href).href;
    const e = deltaclueEarly[abs];
    delete deltaclueEarly[abs];
    return e;
  };
  // keep puts a response into the cache unless the file is there already.
  const keep = async (url, response) => {
    if (cache && !(await cache.match(url, { ignoreSearch: true }))) {
      await cache.put(url, response).catch(() => {});
    }
  };
  // get answers from the cache if the file is there, else from the network, keeping a copy in the cache.
  const get = async (url) => {
    const hit = cache && await cache.match(url, { ignoreSearch: true });
    if (hit) {
      return hit;
    }
    const response = await fetch(url);
    if (!response.ok) {
      throw new Error(url + ": HTTP " + response.status);
    }
    await keep(url, response.clone());
    return response;
  };
  const compile = async (url) => {
    const e = early(url);
    const response = e && await e.response;
    if (response && response.ok) {
      keep(url, response); // not awaited: writing the cache must not delay the workers
      const module = await e.module;
      if (module) {
        return module;
      }
    }
    try {
      const fresh = await get(url);
      try {
        return await WebAssembly.compileStreaming(fresh.clone());
      } catch (err) { // a server that does not say application/wasm
        return await WebAssembly.compile(await fresh.arrayBuffer());
      }
    } catch (err) {
      if (cache) {
        await cache.delete(url).catch(() => {}); // never keep a file that does not compile
      }
      throw new Error(name(url) + " failed to load: " + err.message);
    }
  };
  const download = async (url) => {
    const e = early(url);
    let response = e && await e.response;
    if (response && response.ok) {
      keep(url, response.clone());
    } else {
      response = await get(url);
    }
    if (!response.body) {
      return await response.arrayBuffer();
    }
    const reader = response.body.getReader();
    const chunks = [];
    let loaded = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        break;
      }
      chunks.push(value);
      loaded += value.length;
      onProgress(loaded);
    }
    const out = new Uint8Array(loaded);
    let at = 0;
    for (const c of chunks) {
      out.set(c, at);
      at += c.length;
    }
    return out.buffer;
  };
  // app.wasm came through go-app's loader: keep the copy of that download in this build's cache (or, if there
  // is none, what the browser's HTTP cache holds), and let go of the copy, which holds the whole file.
  const keepApp = async () => {
    const copy = await deltaclueApp;
    deltaclueApp = null;
    if (!cache || await cache.match(urls.app)) {
      if (copy && copy.body) {
        copy.body.cancel().catch(() => {});
      }
      return;
    }
    const response = copy || await fetch(urls.app, { cache: "force-cache" });
    if (response.ok) {
      await cache.put(urls.app, response);
    }
  };
  keepApp().catch(() => {});
  const [module, kernel, models] = await Promise.all([compile(urls.worker), compile(urls.kernel), download(urls.models)]);
  return { module, kernel, models };
};
