// The search worker: runs worker.wasm (Go) in this dedicated Web Worker with the engine's SIMD matmul kernel.
// The page downloads and compiles worker.wasm and matmul.wasm once, and fetches and checks the models bundle
// once; its first message hands this worker the compiled modules and a copy of the bundle, so that no worker
// downloads anything but this script and wasm_exec.js. worker.wasm says its version in its ready message, so
// the page notices if a cache ever mixes two builds.
"use strict";
importScripts("wasm_exec.js");

// fail tells the page in the worker's wire format (app/searchworker/wire.go): "DW", version 1, type 6 (error),
// id 0, then the text's length (u32, little-endian) and its UTF-8 bytes.
const fail = (what, err) => {
  const text = new TextEncoder().encode(what + ": " + String(err && err.message || err));
  const msg = new Uint8Array(12 + text.length);
  msg.set([68, 87, 1, 6, 0, 0, 0, 0]);
  new DataView(msg.buffer).setUint32(8, text.length, true);
  msg.set(text, 12);
  self.postMessage(msg.buffer, [msg.buffer]);
};

self.addEventListener("message", async function start(event) {
  const { module, kernel: kernelModule, models } = event.data || {};
  if (!(module instanceof WebAssembly.Module) || !(kernelModule instanceof WebAssembly.Module) || !(models instanceof ArrayBuffer)) {
    return; // not the start message; Go's own listener takes every later one
  }
  self.removeEventListener("message", start);
  const go = new Go();
  let kernel = null;
  // worker.wasm imports deltaclue_kernel.matmul_add; the kernel imports Go's memory, so it is instantiated after
  // Go's module and reached through this trampoline.
  go.importObject.deltaclue_kernel = { matmul_add: (a, b, c, m, k, n) => kernel.exports.matmul_add(a, b, c, m, k, n) };
  let instance;
  try {
    instance = await WebAssembly.instantiate(module, go.importObject);
  } catch (err) {
    return fail("the search worker (worker.wasm) failed to load", err);
  }
  try {
    kernel = await WebAssembly.instantiate(kernelModule, { go: { mem: instance.exports.mem } });
  } catch (err) {
    return fail("the matmul kernel (matmul.wasm) failed to load", err);
  }
  self.deltaclueModels = new Uint8Array(models); // Go takes it into its own memory and deletes this
  go.run(instance).then(() => fail("the search worker stopped", "Go exited"));
});
