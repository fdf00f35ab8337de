// worker_start.js starts a built site's search worker once under Node, as web/worker.js starts it in a browser
// (the compiled worker.wasm and matmul.wasm, the models bundle and its SHA-256 in self.deltaclueModels and
// self.deltaclueModelsDigest, the kernel's imports through trampolines), and prints how long go.run took to the
// worker's ready message, in ms: a cold start, in code V8 has only just compiled, as a visitor's worker starts.
// It exits at the ready message. Run by bench_worker_start.sh, which alternates builds side by side.
//
// usage: node worker_start.js <site's web folder>
"use strict";

const fs = require("fs");
const path = require("path");
const crypto = require("crypto");

globalThis.require = require;
globalThis.fs = fs;
globalThis.path = path;
globalThis.TextEncoder = require("util").TextEncoder;
globalThis.TextDecoder = require("util").TextDecoder;
globalThis.crypto ??= crypto;

const web = process.argv[2];
if (!web) {
	console.error("usage: node worker_start.js <site's web folder>");
	process.exit(2);
}
require(path.resolve(web, "..", "wasm_exec.js")); // the site's, beside the page (web/worker.js loads the same)

globalThis.self = globalThis;
const models = fs.readFileSync(path.join(web, "models.bin"));
self.deltaclueModels = new Uint8Array(models);
self.deltaclueModelsDigest = crypto.createHash("sha256").update(models).digest("hex");
self.addEventListener = () => {};
self.deltaclueYield = (wake) => setImmediate(wake);
let started = 0;
self.postMessage = (buf) => {
	const b = new Uint8Array(buf);
	if (b[3] === 6) { // the wire format's error message (wasm/worker/searchworker/wire.go)
		console.error("the worker failed: " + new TextDecoder().decode(b.subarray(12)));
		process.exit(1);
	}
	console.log((performance.now() - started).toFixed(1));
	process.exit(0);
};

(async () => {
	const [module, kernelModule] = await Promise.all(["worker.wasm", "matmul.wasm"].map((f) => WebAssembly.compile(fs.readFileSync(path.join(web, f)))));
	const go = new Go();
	let kernel = null;
	// Whatever functions this build's worker.wasm imports from the kernel, forwarded to matmul.wasm's exports.
	go.importObject.deltaclue_kernel = {};
	for (const imp of WebAssembly.Module.imports(module)) {
		if (imp.module === "deltaclue_kernel") {
			go.importObject.deltaclue_kernel[imp.name] = (...args) => kernel.exports[imp.name](...args);
		}
	}
	const instance = await WebAssembly.instantiate(module, go.importObject);
	kernel = await WebAssembly.instantiate(kernelModule, { go: { mem: instance.exports.mem } });
	started = performance.now();
	go.run(instance);
})().catch((err) => {
	console.error(err);
	process.exit(1);
});
