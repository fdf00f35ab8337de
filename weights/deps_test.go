//go:build !js

package weights

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestNoEngineImport: package weights only describes and decodes the stored models, and the engine imports it,
// so nothing under engine/ may reach weights, directly or through another package (issue 16: the MC masks once
// pulled in engine/rng). Checked for the native build and for WASM, where the engine and the worker load it.
func TestNoEngineImport(t *testing.T) {
	for _, goos := range []string{"", "js"} {
		cmd := exec.Command("go", "list", "-deps", ".")
		if goos == "js" {
			cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps (GOOS=%q): %v\n%s", goos, err, out)
		}
		deps := strings.Fields(string(out))
		// -deps lists the package itself last: its import path gives the module's.
		self := deps[len(deps)-1]
		module, ok := strings.CutSuffix(self, "/weights")
		if !ok || len(deps) < 5 {
			t.Fatalf("go list -deps (GOOS=%q) ends with %q after %d packages: not looking at package weights", goos, self, len(deps))
		}
		for _, d := range deps {
			if d == module+"/engine" || strings.HasPrefix(d, module+"/engine/") {
				t.Errorf("package weights depends on %s (GOOS=%q)", d, goos)
			}
		}
	}
}
