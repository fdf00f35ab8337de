// Package wasm holds the WebAssembly entry points: wasm/worker (the search worker, engine only) and
// wasm/app (the go-app page). This package itself has no code; its test checks what those binaries link.
package wasm
