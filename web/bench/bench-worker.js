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
	let kernel = null;
	const notYet = () => { throw new Error("deltaclue_kernel called before the kernel was instantiated"); };
	go.importObject.deltaclue_kernel = {
		matmul_add: (a, b, c, m, k, n) => (kernel ? kernel.exports.matmul_add(a, b, c, m, k, n) : notYet()),
		relu_rows: (x, y, acc, rows, w) => (kernel ? kernel.exports.relu_rows(x, y, acc, rows, w) : notYet()),
		mask_positive: (dx, d, h, n) => (kernel ? kernel.exports.mask_positive(dx, d, h, n) : notYet()),
		add_positive: (dx, d, h, n) => (kernel ? kernel.exports.add_positive(dx, d, h, n) : notYet()),
		transpose: (s, d, rows, cols) => (kernel ? kernel.exports.transpose(s, d, rows, cols) : notYet()),
		scale_rows: (s, d, m, rows, cols) => (kernel ? kernel.exports.scale_rows(s, d, m, rows, cols) : notYet()),
		gather_idx: (d, s, x, n) => (kernel ? kernel.exports.gather_idx(d, s, x, n) : notYet()),
		scatter_idx: (d, s, x, n) => (kernel ? kernel.exports.scatter_idx(d, s, x, n) : notYet()),
		scatter_pairs: (d, s, pd, ps, n) => (kernel ? kernel.exports.scatter_pairs(d, s, pd, ps, n) : notYet()),
		sparse_transpose: (d, n, col, val, rows, cols) => (kernel ? kernel.exports.sparse_transpose(d, n, col, val, rows, cols) : notYet()),
		sparse_gather: (s, wn, wc, wp, n, col, val, rows, cols) => (kernel ? kernel.exports.sparse_gather(s, wn, wc, wp, n, col, val, rows, cols) : notYet()),
		sparse_rows: (d, n, col, val, rows, cols) => (kernel ? kernel.exports.sparse_rows(d, n, col, val, rows, cols) : notYet()),
		sparse_matmul: (c, b, n, col, val, rows, cols, w, z) => (kernel ? kernel.exports.sparse_matmul(c, b, n, col, val, rows, cols, w, z) : notYet()),
	};

	const module = await WebAssembly.compileStreaming(fetch(new URL("bench.wasm", base)));
	const wantsKernel = WebAssembly.Module.imports(module).some((i) => i.module === "deltaclue_kernel");
	const instance = await WebAssembly.instantiate(module, go.importObject);
	if (wantsKernel) {
		const k = await WebAssembly.instantiateStreaming(fetch(new URL("matmul.wasm", base)), { go: { mem: instance.exports.mem } });
		kernel = k.instance;
	}
	self.postMessage({ type: "status", text: "running (SIMD kernel " + (wantsKernel ? "loaded" : "not linked") + ")" });
	await go.run(instance);
	if (exitCode !== 0) {
		self.postMessage({ type: "error", error: "the Go program exited with code " + exitCode + " (see the log)" });
	}
})().catch((err) => self.postMessage({ type: "error", error: String(err && err.stack || err) }));
