//go:build !js

package wasm

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// wasmDeps lists the packages that `GOOS=js GOARCH=wasm go list -deps` finds for the patterns.
func wasmDeps(t *testing.T, patterns ...string) []string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-deps"}, patterns...)...)
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
