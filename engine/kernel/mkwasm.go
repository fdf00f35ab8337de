//go:build ignore

// mkwasm writes matmul.wasm from matmul.wat, and matmul_dense.wasm from the same text without its image layers
// (internal/watsplit), with wabt's wat2wasm (run by go generate, see gen.go).
package main

import (
	"log"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/deltaclue/deltaclue/engine/kernel/internal/watsplit"
)

func main() {
	wat2wasm("matmul.wat", "matmul.wasm")
	full, err := os.ReadFile("matmul.wat")
	if err != nil {
		log.Fatal(err)
	}
	dense, err := watsplit.Dense(full)
	if err != nil {
		log.Fatal(err)
	}
	tmp, err := os.MkdirTemp("", "mkwasm")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	src := filepath.Join(tmp, "matmul_dense.wat")
	if err := os.WriteFile(src, dense, 0o644); err != nil {
		log.Fatal(err)
	}
	wat2wasm(src, "matmul_dense.wasm")
}

func wat2wasm(src, dst string) {
	if out, err := exec.Command("wat2wasm", src, "-o", dst).CombinedOutput(); err != nil {
		log.Fatalf("wat2wasm %s: %v\n%s", src, err, out)
	}
}
