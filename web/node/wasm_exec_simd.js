// wasm_exec_simd.js runs a GOOS=js GOARCH=wasm binary under Node like Go's
// $(go env GOROOT)/lib/wasm/wasm_exec_node.js (which it follows line by line, including the exit-code
// behaviour), and additionally links the WebAssembly SIMD matmul kernel (engine/kernel/matmul.wasm) that a
// binary built with -tags wasmsimd imports as deltaclue_kernel.matmul_add (and the element-wise and layout loops
// beside it). Normally started by
// go_js_wasm_exec_simd, which sets DELTACLUE_GOROOT.
//
// usage: node wasm_exec_simd.js <binary.wasm> [arguments]
// env:   DELTACLUE_GOROOT (required: the GOROOT whose lib/wasm/wasm_exec.js matches the binary),
//        DELTACLUE_KERNEL_WASM (optional: path of matmul.wasm; default ../../engine/kernel/matmul.wasm from here).
//
// The kernel imports the Go program's memory ({go: {mem}}), so it can only be instantiated after the Go module;
// but the Go module needs its imports at instantiation. Hence the JS trampoline: the Go module gets a function
// that forwards to the kernel's export, which is filled in before go.run starts any Go code.
//
// A browser worker does the same in five lines (wasm_exec.js loaded first; ENGINE_URL is the Go binary):
//
//   const go = new Go(); let matmul;
//   go.importObject.deltaclue_kernel = { matmul_add: (a, b, c, m, k, n) => matmul(a, b, c, m, k, n) }; // and the others
//   const { instance } = await WebAssembly.instantiateStreaming(fetch(ENGINE_URL), go.importObject);
//   matmul = (await WebAssembly.instantiateStreaming(fetch("matmul.wasm"), { go: { mem: instance.exports.mem } })).instance.exports.matmul_add;
//   go.run(instance);
//
// (matmul.wasm can be written out by a native tool from the Go variable kernel.WASM.)

"use strict";

if (process.argv.length < 3) {
	console.error("usage: go_js_wasm_exec_simd [wasm binary] [arguments]");
	process.exit(1);
}

globalThis.require = require;
globalThis.fs = require("fs");
globalThis.path = require("path");
globalThis.TextEncoder = require("util").TextEncoder;
globalThis.TextDecoder = require("util").TextDecoder;

globalThis.performance ??= require("performance");

globalThis.crypto ??= require("crypto");

function wasmExecPath() {
	const goroot = process.env.DELTACLUE_GOROOT;
	if (!goroot) {
		console.error("wasm_exec_simd.js: DELTACLUE_GOROOT is not set (run it through go_js_wasm_exec_simd)");
		process.exit(1);
	}
	for (const rel of ["lib/wasm/wasm_exec.js", "misc/wasm/wasm_exec.js"]) { // Go >= 1.24, older
		const p = path.join(goroot, rel);
		if (fs.existsSync(p)) {
			return p;
		}
	}
	console.error(`wasm_exec_simd.js: no wasm_exec.js under ${goroot}`);
	process.exit(1);
}
require(wasmExecPath());

const kernelPath = process.env.DELTACLUE_KERNEL_WASM || path.join(__dirname, "..", "..", "engine", "kernel", "matmul.wasm");

const go = new Go();
go.argv = process.argv.slice(2);
go.env = Object.assign({ TMPDIR: require("os").tmpdir() }, process.env);
go.exit = process.exit;

let kernel = null; // matmul.wasm's instance, made once Go's memory exists
const kernelModule = new WebAssembly.Module(fs.readFileSync(kernelPath));
const notYet = () => { throw new Error("deltaclue_kernel called before the kernel was instantiated"); };
// A trampoline for each of the kernel's exports, whatever their names, so a new export links without editing
// this file (the longest takes 9 numbers; wasm ignores the rest).
go.importObject.deltaclue_kernel = {};
for (const { name } of WebAssembly.Module.exports(kernelModule)) {
	go.importObject.deltaclue_kernel[name] = (a, b, c, d, e, g, h, i, j) => (kernel ? kernel.exports[name](a, b, c, d, e, g, h, i, j) : notYet());
}

(async () => {
	const result = await WebAssembly.instantiate(fs.readFileSync(process.argv[2]), go.importObject);
	kernel = await WebAssembly.instantiate(kernelModule, { go: { mem: result.instance.exports.mem } });
	process.on("exit", (code) => { // Node.js exits if no event handler is pending
		if (code === 0 && !go.exited) {
			// deadlock, make Go print error and stack traces
			go._pendingEvent = { id: 0 };
			go._resume();
		}
	});
	return go.run(result.instance);
})().catch((err) => {
	console.error(err);
	process.exit(1);
});
