//go:build !js && !wasip1

package kernel

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/deltaclue/deltaclue/engine/kernel/internal/watsplit"
)

// TestWASMUpToDate rebuilds matmul.wasm from matmul.wat with wat2wasm, and matmul_dense.wasm from its text up to
// the image layers, and requires the committed files (and the embedded WASM and DenseWASM) to be byte-identical,
// so the .wat stays the source of truth. Without wat2wasm it skips, unless
// CI=true, where it fails.
func TestWASMUpToDate(t *testing.T) {
	tool, err := exec.LookPath("wat2wasm")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("wat2wasm not found (CI=true, so this is an error); apt-get install wabt")
		}
		t.Skip("SKIP: wat2wasm not found; apt-get install wabt")
	}
	dir := t.TempDir()
	full, err := os.ReadFile("matmul.wat")
	if err != nil {
		t.Fatal(err)
	}
	dense, err := watsplit.Dense(full)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "matmul_dense.wat"), dense, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		src, file string
		embedded  []byte
	}{{"matmul.wat", "matmul.wasm", WASM}, {filepath.Join(dir, "matmul_dense.wat"), "matmul_dense.wasm", DenseWASM}} {
		out := filepath.Join(dir, c.file)
		if msg, err := exec.Command(tool, c.src, "-o", out).CombinedOutput(); err != nil {
			t.Fatalf("wat2wasm %s: %v\n%s", c.src, err, msg)
		}
		fresh, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		committed, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(fresh, committed) {
			v, _ := exec.Command(tool, "--version").Output()
			t.Fatalf("%s (%d bytes) is not what %s (version %s) builds from matmul.wat (%d bytes): run go generate ./engine/kernel/",
				c.file, len(committed), tool, bytes.TrimSpace(v), len(fresh))
		}
		if !bytes.Equal(c.embedded, committed) {
			t.Fatalf("the embedded %s differs from the file: rebuild", c.file)
		}
	}
}
