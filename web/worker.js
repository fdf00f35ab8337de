// The search worker: starts worker.wasm (Go) in this dedicated Web Worker with the engine's SIMD matmul kernel,
// matmul.wasm. Every URL is relative to this script, so the site works under any base path. These files are in
// the service worker's cache under the same version as the page's app.wasm, and worker.wasm says its version in
// its ready message, so the page notices if a browser cache ever mixes two builds.
"use strict";
importScripts("wasm_exec.js");

const url = (name) => new URL(name, self.location.href);
const fail = (what, err) => self.postMessage(JSON.stringify({ type: "error", error: what + ": " + String(err && err.message || err) }));

(async () => {
  const go = new Go();
  let kernel = null;
  // worker.wasm imports deltaclue_kernel.matmul_add; the kernel imports Go's memory, so it is instantiated after
  // Go's module and reached through this trampoline.
  go.importObject.deltaclue_kernel = { matmul_add: (a, b, c, m, k, n) => kernel.exports.matmul_add(a, b, c, m, k, n) };
  let instance;
  try {
    ({ instance } = await WebAssembly.instantiateStreaming(fetch(url("worker.wasm")), go.importObject));
  } catch (err) {
    return fail("the search worker (worker.wasm) failed to load", err);
  }
  try {
    const bytes = await (await fetch(url("matmul.wasm"))).arrayBuffer();
    ({ instance: kernel } = await WebAssembly.instantiate(bytes, { go: { mem: instance.exports.mem } }));
  } catch (err) {
    return fail("the matmul kernel (matmul.wasm) failed to load", err);
  }
  go.run(instance).then(() => fail("the search worker stopped", "Go exited"));
})();
