package kernel

// matmul.wasm is built from matmul.wat by wabt's wat2wasm (Debian package wabt; 1.0.32 made the committed file;
// SIMD is on by default, no name section is written, so the output is deterministic), and matmul_dense.wasm from
// its text up to the image layers (mkwasm.go). TestWASMUpToDate fails if either committed file differs from a
// fresh build.
//
//go:generate go run mkwasm.go

// matmul_amd64.s and matmul_amd64_decl.go, the native amd64 kernels, are written by internal/asmgen through
// mkasm.go. TestAsmUpToDate fails if the committed files differ from a fresh generation.
//
//go:generate go run mkasm.go
