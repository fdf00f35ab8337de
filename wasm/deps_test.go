//go:build !js

package wasm

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// wasmDeps lists the packages that `GOOS=js GOARCH=wasm go list -deps` finds for the patterns (with the worker's
// build tag, wasmsimd).
func wasmDeps(t *testing.T, patterns ...string) []string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-deps", "-tags", "wasmsimd"}, patterns...)...)
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps %v: %v\n%s", patterns, err, out)
	}
	return strings.Fields(string(out))
}

// TestNoGomlxInWASM: gomlx trains the models and checks the engine, but must never reach a WASM binary.
func TestNoGomlxInWASM(t *testing.T) {
	deps := wasmDeps(t, "./wasm/...", "./engine/...", "./weights", "./mnist")
	for _, d := range deps {
		if strings.Contains(d, "gomlx") {
			t.Errorf("a WASM package depends on %s", d)
		}
	}
	if len(deps) < 10 {
		t.Fatalf("go list found only %d packages: the check is not looking at the real build", len(deps))
	}
}

// TestWorkerHasNoPage: the search worker's binary carries the engine and the models, not the page's go-app.
func TestWorkerHasNoPage(t *testing.T) {
	deps := wasmDeps(t, "./wasm/worker")
	found := false
	for _, d := range deps {
		if strings.Contains(d, "go-app") || strings.Contains(d, "gomlx") || strings.Contains(d, "chromedp") {
			t.Errorf("the worker depends on %s", d)
		}
		found = found || strings.HasSuffix(d, "/engine/clue")
	}
	if !found {
		t.Fatal("the worker does not even link the search: the check is not looking at the real binary")
	}
}
