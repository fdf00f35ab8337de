package fashion

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// needData skips (loudly) where dataset-fashion-mnist is not installed, and fails under CI=true, which installs
// it (.ci/run).
func needData(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(Dir, "t10k-labels-idx1-ubyte.gz")); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("Fashion-MNIST is not installed (%v), and CI=true: .ci/run installs dataset-fashion-mnist", err)
		}
		t.Skipf("SKIPPING: Fashion-MNIST is not installed (%v); apt-get install dataset-fashion-mnist", err)
	}
}

// Debian's files read as Zalando made them: 60,000 training and 10,000 test images, 6,000 and 1,000 per class.
func TestReadDebiansFiles(t *testing.T) {
	needData(t)
	train, test, err := Read(Dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		labels []uint8
		per    int
	}{{"train", train.Labels, 6000}, {"test", test.Labels, 1000}} {
		counts := make([]int, len(Classes))
		for _, l := range c.labels {
			counts[l]++
		}
		for k, n := range counts {
			if n != c.per {
				t.Errorf("%s: class %d (%s) has %d images, want %d", c.name, k, Classes[k], n, c.per)
			}
		}
	}
}

// A file that is not Debian's (another, cut or changed) is refused before it is read, in one sentence.
func TestRefusesOtherFiles(t *testing.T) {
	needData(t)
	dir := t.TempDir()
	for name := range files {
		b, err := os.ReadFile(filepath.Join(Dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if name == "t10k-images-idx3-ubyte.gz" {
			b = b[:len(b)-100]
		}
		os.WriteFile(filepath.Join(dir, name), b, 0o644)
	}
	_, _, err := Read(dir)
	if err == nil || !strings.Contains(err.Error(), "t10k-images-idx3-ubyte.gz has SHA-256") || !strings.Contains(err.Error(), "another or a damaged file") {
		t.Errorf("a cut file: %v", err)
	}
	if _, _, err := Read(t.TempDir()); err == nil || !strings.Contains(err.Error(), "apt-get install dataset-fashion-mnist") {
		t.Errorf("no files: %v", err)
	}
}
