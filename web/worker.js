// The search worker: runs worker.wasm (Go) in this dedicated Web Worker with the engine's SIMD matmul kernel.
// The page downloads and compiles worker.wasm and matmul.wasm once, and fetches and checks the models bundle
// once; its first message hands this worker the compiled modules and a copy of the bundle, so that no worker
// downloads anything but this script and wasm_exec.js (the site's copy beside the page, which the page loads
// too: one download for both). worker.wasm says its version in its ready message, so
// the page notices if a cache ever mixes two builds.
"use strict";
importScripts("../wasm_exec.js");

// fail tells the page in the worker's wire format (wasm/worker/searchworker/wire.go): "DW", version 2, type 6 (error),
// id 0, then the text's length (u32, little-endian) and its UTF-8 bytes.
const fail = (what, err) => {
  const text = new TextEncoder().encode(what + ": " + String(err && err.message || err));
  const msg = new Uint8Array(12 + text.length);
  msg.set([68, 87, 2, 6, 0, 0, 0, 0]);
  new DataView(msg.buffer).setUint32(8, text.length, true);
  msg.set(text, 12);
  self.postMessage(msg.buffer, [msg.buffer]);
};

// deltaclueYield(wake) lets this worker's event loop run the tasks queued so far (a cancel from the page) and
// then calls wake, once. Go calls it between the steps of a search (wasm/worker). It races a MessageChannel
// message against a zero-delay timer. A channel message is the quickest way back in Chromium and Firefox
// (about 0.1 ms). WebKit is different: it carries every MessagePort message through the page's main thread
// and its network process, so a message waits for whatever the page is doing. Measured in WebKitGTK 2.50, with
// 5 ms of work between yields: 0.5 ms on average while the page was idle, but 63 ms at the median while the page
// ran 20 ms tasks. During a search the page is busy with the results, and the search spent most of its time
// waiting. A timer stays inside the worker, but browsers stretch nested zero-delay timers to 4 ms. The race
// takes whichever comes first, and wasm/worker spaces its yields by what they cost (searchworker.Pacer).
const yieldChannel = new MessageChannel();
let yieldSeq = 0, yieldWake = null, yieldTimer = 0;
const yieldWoke = (seq) => {
  if (seq !== yieldSeq || !yieldWake) {
    return; // the loser of a race, or an earlier one
  }
  const wake = yieldWake;
  yieldWake = null;
  clearTimeout(yieldTimer);
  wake();
};
yieldChannel.port1.onmessage = (event) => yieldWoke(event.data);
self.deltaclueYield = (wake) => {
  const seq = ++yieldSeq;
  yieldWake = wake;
  yieldChannel.port2.postMessage(seq);
  yieldTimer = setTimeout(yieldWoke, 0, seq);
};

self.addEventListener("message", async function start(event) {
  const { module, kernel: kernelModule, models } = event.data || {};
  if (!(module instanceof WebAssembly.Module) || !(kernelModule instanceof WebAssembly.Module) || !(models instanceof ArrayBuffer)) {
    return; // not the start message; Go's own listener takes every later one
  }
  self.removeEventListener("message", start);
  const go = new Go();
  let kernel = null;
  // worker.wasm imports the kernel's functions as deltaclue_kernel.<name> (its matrix products and element-wise and
  // layout loops); the kernel imports Go's memory, so it is instantiated after Go's module and reached through
  // these trampolines, one for each function the worker imports (the longest takes 9 numbers; wasm ignores the
  // rest). A worker of another build than the kernel's still starts, and says its version (the page's warning).
  go.importObject.deltaclue_kernel = {};
  for (const { module: from, name } of WebAssembly.Module.imports(module)) {
    if (from !== "deltaclue_kernel") continue;
    let f = null;
    go.importObject.deltaclue_kernel[name] = (a, b, c, d, e, g, h, i, j) => (f || (f = kernel.exports[name]))(a, b, c, d, e, g, h, i, j);
  }
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
  // The bundle's SHA-256 as the page worked it out natively (web/loader.js): Go skips the files' own payload
  // hashes when it is the build's.
  self.deltaclueModelsDigest = typeof event.data.digest === "string" ? event.data.digest : "";
  // A shared link that the page's loader started this worker for, before the page itself runs: {link, worker,
  // workers, id}. Go runs its share of the link's search right after it is ready (searchworker.Early).
  self.deltaclueEarly = event.data.early || null;
  go.run(instance).then(() => fail("the search worker stopped", "Go exited"));
});
