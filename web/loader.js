// deltaclue's loader for the search workers' files: worker.wasm and matmul.wasm are fetched and compiled once
// for the whole pool, and the models bundle fetched once with its progress; the page (Go) checks the bundle's
// SHA-256 and posts the modules and a copy of the bundle to each worker (web/worker.js). Every large file the
// page fetches also goes into the service worker's cache for this build (app/app-worker.js), so that it crosses
// the network once and the page works offline afterwards.
"use strict";

const deltaclueBase = document.currentScript ? document.currentScript.src : location.href;

// The served models' folders under web/, by name (cmd/site writes them in; the default models' files are in web/
// itself): the early downloads below fetch the files of the models the address names (?models=fashion).
const deltaclueModelDirs = {};
// The models whose page is their own (cmd/site: models of rows on a site whose default models read images): their
// app.wasm is in their folder.
const deltaclueModelApps = [];
const deltaclueModelWanted = (() => {
  const want = new URLSearchParams(location.search).get("models");
  return (want && Object.prototype.hasOwnProperty.call(deltaclueModelDirs, want)) ? want : "";
})();
const deltaclueModelDir = deltaclueModelWanted ? deltaclueModelDirs[deltaclueModelWanted] : "";
// deltaclueFile is the address of one of the site's files: a model's own (worker.wasm, its kernel matmul.wasm,
// models.bin) in its folder.
const deltaclueModelFiles = ["worker.wasm", "matmul.wasm", "models.bin"];
const deltaclueFile = (name) => new URL((deltaclueModelFiles.includes(name) ? deltaclueModelDir : "") + name, deltaclueBase).href;

// Site data a browser may deny this page: a frame on another site's page where the visitor's browser blocks
// third-party storage (without partitioning it), or a visitor who blocks site data for this site. Reading
// localStorage or sessionStorage then throws a SecurityError (or, in WebKit with storage turned off, gives null),
// and go-app reads localStorage as it starts: its program would stop before it ran. Each such store is replaced,
// for this page only, by one kept in memory, and the service worker is not asked for (its registration would
// be refused, and go-app would log it as an error): the page explains as usual, and only offline use is lost.
// deltaclueOffline resolves to "" once this page is kept for offline use (the service worker registered, the
// Cache API answering), or to the reason it is not; the page says which in its "What am I looking at?" (an
// embed says nothing of it).
const deltaclueStorageDenied = (() => {
  const denied = [];
  for (const name of ["localStorage", "sessionStorage"]) {
    let usable = false;
    try {
      const store = window[name];
      if (store) {
        store.setItem("deltaclue:probe", "1");
        store.removeItem("deltaclue:probe");
        usable = true;
      }
    } catch (err) {
      usable = false;
    }
    if (!usable) {
      denied.push(name);
      try {
        Object.defineProperty(window, name, { value: deltaclueMemoryStorage(), configurable: true, enumerable: true });
      } catch (err) {
        // Not replaceable here: go-app will fail as before, and the page says the workers could not start.
      }
    }
  }
  if (denied.length) {
    try {
      delete Navigator.prototype.serviceWorker; // so that go-app's app.js does not ask (see above)
    } catch (err) {
      // a browser whose navigator cannot be changed: go-app logs the refusal, and nothing else changes
    }
  }
  return denied;
})();

// deltaclueMemoryStorage is a Storage (the Web Storage API) kept in memory, for as long as the page is open.
function deltaclueMemoryStorage() {
  const items = new Map();
  return {
    get length() { return items.size; },
    key(i) { return i >= 0 && i < items.size ? [...items.keys()][i] : null; },
    getItem(k) { return items.has(String(k)) ? items.get(String(k)) : null; },
    setItem(k, v) { items.set(String(k), String(v)); },
    removeItem(k) { items.delete(String(k)); },
    clear() { items.clear(); },
  };
}

// deltaclueCaches is this page's Cache API, or null where the browser denies it (reading `caches` throws in
// some browsers then, rather than rejecting).
function deltaclueCaches() {
  try {
    return "caches" in window && window.caches ? window.caches : null;
  } catch (err) {
    return null;
  }
}

window.deltaclueOffline = (() => {
  if (deltaclueStorageDenied.length) {
    return Promise.resolve("this browser keeps no data for this site here (" + deltaclueStorageDenied.join(" and ") + " denied)");
  }
  let registered = null;
  try {
    const sw = navigator.serviceWorker;
    if (sw && sw.register) {
      registered = new Promise((resolve) => {
        const register0 = sw.register;
        sw.register = function () { // go-app's call: its outcome is what offline use depends on
          sw.register = register0;
          const p = register0.apply(sw, arguments);
          p.then(() => resolve(""), (err) => resolve("the service worker was refused (" + (err && err.message || err) + ")"));
          return p;
        };
      });
    }
  } catch (err) {
    registered = null;
  }
  if (!registered) {
    return Promise.resolve("this browser has no service workers for this page");
  }
  const cache = deltaclueCaches();
  const cached = cache ? cache.keys().then(() => "", () => "the Cache API is denied") : Promise.resolve("this browser has no Cache API for this page");
  return Promise.all([registered, cached]).then((reasons) => reasons.filter((r) => r).join("; "));
})();

// deltaclueDigest is the SHA-256 of the models bundle as hex, worked out natively (SubtleCrypto, a few ms), or ""
// where there is no SubtleCrypto (a page served over plain HTTP from another machine). The page checks it
// against the build's; each worker, handed it with the bundle, skips the files' own payload hashes when it is
// the build's: in WebAssembly that has not been optimised yet, hashing was most of a worker's start.
const deltaclueDigest = (bytes) => {
  const subtle = window.crypto && window.crypto.subtle;
  if (!subtle || !bytes) {
    return Promise.resolve("");
  }
  return subtle.digest("SHA-256", bytes)
    .then((d) => Array.from(new Uint8Array(d), (b) => b.toString(16).padStart(2, "0")).join(""))
    .catch(() => "");
};

// In another page's frame (?embed=1, docs/embed.md) the page is compact (the "embed" class on <html>, set before
// the first paint), and light on its host: nothing is downloaded and no worker starts until the frame is on
// screen or the host page sends it a message. deltaclueAwake resolves then (at once outside a frame).
const deltaclueEmbed = new URLSearchParams(location.search).get("embed") === "1";
document.documentElement.classList.toggle("embed", deltaclueEmbed);
let deltaclueWake = null;
const deltaclueAwake = new Promise((resolve) => { deltaclueWake = resolve; });

// The host page's messages (window.deltaclueInbox): kept from the first, as JSON text with their sender, until
// the page's Go takes them (deliver); any message wakes an embedded page. JSON.stringify of what cannot be
// written as JSON (a cycle, a BigInt) gives "", which the page answers as unreadable.
window.deltaclueInbox = (() => {
  const inbox = { queue: [], deliver: null };
  window.addEventListener("message", (event) => {
    if (event.source === window) {
      return;
    }
    let text = "";
    try {
      let data = event.data;
      if (data && typeof data === "object" && ArrayBuffer.isView(data.pixels)) {
        data = Object.assign({}, data, { pixels: Array.from(data.pixels) }); // a Float32Array reads as an array
      }
      text = JSON.stringify(data) || "";
    } catch (err) {
      text = "";
    }
    if (text.indexOf("deltaclue:") < 0) {
      return; // another script's message: not read, and it wakes nothing
    }
    deltaclueWake();
    const m = { text, origin: event.origin, source: event.source };
    if (inbox.deliver) {
      inbox.deliver(m.text, m.origin, m.source);
    } else if (inbox.queue.length < 100) {
      inbox.queue.push(m);
    }
  });
  return inbox;
})();

if (!deltaclueEmbed) {
  deltaclueWake();
} else if ("IntersectionObserver" in window) {
  // Within the host's viewport (or 200 px from it): the frame's own document, seen through the host's scroll.
  const seen = new IntersectionObserver((entries) => {
    if (entries.some((e) => e.isIntersecting)) {
      seen.disconnect();
      deltaclueWake();
    }
  }, { rootMargin: "200px" });
  seen.observe(document.documentElement);
} else {
  deltaclueWake();
}

// The downloads and compiles start as soon as the page's head runs this script, while app.wasm still loads:
// the page's Go asks for them once it runs, and takes what has already come. (Not in an embed, which waits to
// be seen and then loads what it needs when its page runs.)
const deltaclueEarly = {};
for (const name of deltaclueEmbed ? [] : deltaclueModelFiles) {
  const url = deltaclueFile(name);
  const response = fetch(url).catch(() => null); // a failure is fetched again, and reported, below
  const module = name.endsWith(".wasm") ?
    response.then((r) => r && r.ok ? WebAssembly.compileStreaming(r.clone()) : null).catch(() => null) : null;
  deltaclueEarly[url] = { response, module };
}

// The search workers start from here as well, as soon as their files have come, while the page's own program
// (app.wasm, ten times larger) still loads: the page takes them over when it runs (deltaclueLoad hands it this
// pool, and Go's pool adopts the workers with the messages they sent meanwhile). A shared link in the address
// starts its search at once: each worker reads the link itself and runs its share (searchworker.Early), so
// that the answer is ready, or nearly, when the page is. The page runs a link with the workers only if its
// own reading agrees; otherwise it cancels this run and starts its own.
const deltaclueEarlyPool = window.deltaclueEarlyPool = (() => {
  if (!("Worker" in window) || !window.WebAssembly || deltaclueEmbed) {
    return null;
  }
  // As the page reads ?workers= (app.workersFromQuery): a whole number from 1 to 8, else this device's cores,
  // at most 8. Should the two ever disagree, the page starts its own pool.
  let n = Math.min(Math.max(navigator.hardwareConcurrency || 1, 1), 8);
  const asked = new URLSearchParams(location.search).get("workers");
  if (asked !== null && /^[+]?[0-9]+$/.test(asked.trim()) && +asked >= 1 && +asked <= 8) {
    n = +asked;
  }
  const pool = { n, link: location.hash.length > 1 ? location.hash.slice(1) : "", id: 1, workers: [], queue: [], listeners: [] };
  const at = (name) => deltaclueEarly[deltaclueFile(name)];
  const models = at("models.bin").response.then((r) => (r && r.ok ? r.clone().arrayBuffer() : null));
  const digest = models.then(deltaclueDigest);
  // The workers are made at once, so that each loads its script (and wasm_exec.js) while worker.wasm still
  // downloads and compiles; they wait for their start message.
  const script = new URL("worker.js", deltaclueBase).href;
  for (let k = 0; k < n; k++) {
    const w = new Worker(script, { name: "search-" + k });
    const onMessage = (event) => pool.queue.push([k, "message", event.data, performance.now()]);
    const onError = (event) => pool.queue.push([k, "error", String(event.message || ""), performance.now()]);
    w.addEventListener("message", onMessage);
    w.addEventListener("error", onError);
    pool.listeners.push([onMessage, onError]);
    pool.workers.push(w);
  }
  pool.started = Promise.all([at("worker.wasm").module, at("matmul.wasm").module, models, digest]).then(([module, kernel, bundle, digest]) => {
    if (!module || !kernel || !bundle) {
      pool.terminate(); // the page loads the files again, says what failed, and starts its own workers
      return false;
    }
    pool.workers.forEach((w, k) => {
      const early = pool.link ? { link: pool.link, worker: k, workers: n, id: pool.id } : null;
      w.postMessage({ module, kernel, models: bundle, digest, early }); // the bundle is copied, as the page's own start does
    });
    return true;
  }).catch(() => {
    pool.terminate();
    return false;
  });
  // adopt hands the workers to the page: it stops queueing their messages and returns those queued so far,
  // each [worker, "message" or "error", data, performance.now() when it came].
  pool.adopt = () => {
    pool.workers.forEach((w, k) => {
      w.removeEventListener("message", pool.listeners[k][0]);
      w.removeEventListener("error", pool.listeners[k][1]);
    });
    const queued = pool.queue;
    pool.queue = [];
    return queued;
  };
  pool.terminate = () => pool.workers.forEach((w) => w.terminate());
  return pool;
})();

// The longest the page's program waits for the search workers to be started before it runs (see below), in ms.
const deltaclueStartWaitMs = 400;

// app.wasm, the page's own program, is also fetched and compiled from here, while the document is still being
// parsed: go-app's loader (app.js) is deferred, so it would start the 10 MB download only after parsing, half
// a second later. go-app's own request (for its progress bar) is answered with a copy of this download, and its
// WebAssembly.instantiateStreaming with this compiled module. One more copy goes into this build's cache
// (keepApp below): fetching it again would count on the browser's HTTP cache holding 10 MB, which a small or
// full cache, or a host that forbids caching, does not.
let deltaclueApp = null; // a promise of a copy of the app.wasm response, for the cache
{
  // go-app asks for web/app.wasm; a page of the models' own is fetched from their folder and given in its stead.
  const goappURL = new URL("app.wasm", deltaclueBase).href;
  const appURL = deltaclueModelApps.includes(deltaclueModelWanted) ? new URL(deltaclueModelDir + "app.wasm", deltaclueBase).href : goappURL;
  const fetch0 = window.fetch;
  const instantiate0 = WebAssembly.instantiateStreaming;
  // Three copies of one download: for the cache, for go-app's progress bar, and (the original) for the compile.
  const early = deltaclueAwake.then(() => fetch0(appURL))
    .then((r) => (r.ok ? { cache: r.clone(), goapp: r.clone(), compile: r } : null), () => null);
  deltaclueApp = early.then((c) => (c ? c.cache : null));
  const module = early.then((c) => (c && instantiate0 ? WebAssembly.compileStreaming(c.compile) : null)).catch(() => null);
  window.fetch = function (input, init) {
    const url = new URL(input instanceof Request ? input.url : String(input), location.href).href;
    if (url !== goappURL) {
      return fetch0.apply(window, arguments);
    }
    window.fetch = fetch0; // only go-app's first request
    const args = arguments;
    return early.then((c) => (c ? c.goapp : (appURL === goappURL ? fetch0.apply(window, args) : fetch0(appURL))));
  };
  if (instantiate0) {
    WebAssembly.instantiateStreaming = async function (source, imports) {
      WebAssembly.instantiateStreaming = instantiate0; // only go-app's call, the first
      const m = await module;
      // The workers get their start message before the page runs: running app.wasm the first time is one task of
      // 300–400 ms on the page's thread (V8 compiles each function the first time it is called), and the
      // start message is posted from that thread, so a start that lost the race waited for the whole task (the
      // workers said ready 250 ms later). The wait is bounded: a page whose models are slow to come mounts anyway.
      await Promise.race([deltaclueEarlyPool ? deltaclueEarlyPool.started : null,
        new Promise((resolve) => setTimeout(resolve, deltaclueStartWaitMs))]);
      if (!m) {
        return instantiate0.call(WebAssembly, source, imports); // the early compile failed: go-app's own way
      }
      Promise.resolve(source).then((r) => r.arrayBuffer()).catch(() => {}); // let go-app's progress run out
      return { module: m, instance: await WebAssembly.instantiate(m, imports) };
    };
  }
}

window.deltaclueLoad = async function (urls, cacheName, onProgress) {
  const caches = deltaclueCaches();
  const cache = caches ? await caches.open(cacheName).catch(() => null) : null;
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
  const digest = await deltaclueDigest(models);
  const pool = deltaclueEarlyPool && await deltaclueEarlyPool.started ? deltaclueEarlyPool : null;
  return { module, kernel, models, digest, pool };
};
