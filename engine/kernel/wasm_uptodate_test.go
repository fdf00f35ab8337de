//go:build !js && !wasip1

package kernel

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestWASMUpToDate rebuilds matmul.wasm from matmul.wat with wat2wasm and requires the committed file (and the
// embedded WASM) to be byte-identical, so the .wat stays the source of truth. Without wat2wasm it skips, unless
// CI=true, where it fails.
func TestWASMUpToDate(t *testing.T) {
	tool, err := exec.LookPath("wat2wasm")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("wat2wasm not found (CI=true, so this is an error); apt-get install wabt")
		}
		t.Skip("SKIP: wat2wasm not found; apt-get install wabt")
	}
	out := filepath.Join(t.TempDir(), "matmul.wasm")
	cmd := exec.Command(tool, "matmul.wat", "-o", out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("wat2wasm matmul.wat: %v\n%s", err, msg)
	}
	fresh, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile("matmul.wasm")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fresh, committed) {
		v, _ := exec.Command(tool, "--version").Output()
		t.Fatalf("matmul.wasm (%d bytes) is not what %s (version %s) builds from matmul.wat (%d bytes): run go generate ./engine/kernel/",
			len(committed), tool, bytes.TrimSpace(v), len(fresh))
	}
	if !bytes.Equal(WASM, committed) {
		t.Fatal("embedded WASM differs from matmul.wasm: rebuild")
	}
}
