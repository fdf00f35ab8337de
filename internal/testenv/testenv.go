//go:build !js

// Package testenv finds the tools tests need beyond Go (Debian's PyTorch, onnxruntime-web) and says so loudly
// when one is missing: the test skips with the reason, and under CI=true, where every tool must be there, fails.
package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltaclue/deltaclue/internal/ortnode"
)

// Missing skips the test with msg, prefixed "SKIPPED: ", or fails it under CI=true.
func Missing(t testing.TB, msg string) {
	t.Helper()
	msg = "SKIPPED: " + msg
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// Python is Debian's python3 (else the PATH's) that imports every module named, or Missing says what is not
// tested (what).
func Python(t testing.TB, what string, modules ...string) string {
	t.Helper()
	for _, p := range []string{"/usr/bin/python3", "python3"} {
		if exec.Command(p, "-c", "import "+strings.Join(modules, ", ")).Run() == nil {
			return p
		}
	}
	Missing(t, "no python3 with "+strings.Join(modules, " and ")+" (Debian's python3-torch, python3-onnx): "+what)
	return ""
}

// ONNXRuntime is onnxruntime-web as `make onnxruntime` installs it under the repository's root, or Missing
// says what is not tested (what).
func ONNXRuntime(t testing.TB, root, what string) *ortnode.Runtime {
	t.Helper()
	r, err := ortnode.Find(filepath.Join(root, ortnode.DefaultDir))
	if err != nil {
		Missing(t, err.Error()+": "+what)
	}
	return r
}
