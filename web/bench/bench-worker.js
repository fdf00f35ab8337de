// bench-worker.js (the dedicated worker): runs bench.wasm (built from wasm/bench) with Go's wasm_exec.js.
// If the binary imports the WebAssembly SIMD matmul kernel (a build with -tags wasmsimd imports
// deltaclue_kernel.matmul_add), it also instantiates matmul.wasm on Go's memory behind a trampoline, as in
// web/node/wasm_exec_simd.js; a build without the tag needs nothing and matmul.wasm is not fetched.
// Go's output (console.log from wasm_exec.js) is forwarded to the page as {type: "log"} messages; the Go
// program posts {type: "result", json} or {type: "error", error} itself. URLs are relative to this script.
"use strict";

const base = self.location.href;
const consoleLog = console.log.bind(console);
console.log = (...args) => {
	consoleLog(...args);
	self.postMessage({ type: "log", text: args.join(" ") });
};

importScripts(new URL("wasm_exec.js", base).href);

(async () => {
	const go = new Go();
	let exitCode = null;
	go.exit = (code) => { exitCode = code; };
	const module = await WebAssembly.compileStreaming(fetch(new URL("bench.wasm", base)));
	const wantsKernel = WebAssembly.Module.imports(module).some((i) => i.module === "deltaclue_kernel");
	let kernel = null, kernelModule = null;
	if (wantsKernel) {
		kernelModule = await WebAssembly.compileStreaming(fetch(new URL("matmul.wasm", base)));
		// A trampoline for each of the kernel's functions (the longest takes 9 numbers; wasm ignores the rest).
		go.importObject.deltaclue_kernel = {};
		for (const { name } of WebAssembly.Module.exports(kernelModule)) {
			go.importObject.deltaclue_kernel[name] = (a, b, c, d, e, g, h, i, j) => kernel.exports[name](a, b, c, d, e, g, h, i, j);
		}
	}
	const instance = await WebAssembly.instantiate(module, go.importObject);
	if (wantsKernel) {
		kernel = await WebAssembly.instantiate(kernelModule, { go: { mem: instance.exports.mem } });
	}
	self.postMessage({ type: "status", text: "running (SIMD kernel " + (wantsKernel ? "loaded" : "not linked") + ")" });
	await go.run(instance);
	if (exitCode !== 0) {
		self.postMessage({ type: "error", error: "the Go program exited with code " + exitCode + " (see the log)" });
	}
})().catch((err) => self.postMessage({ type: "error", error: String(err && err.stack || err) }));
