package weights

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// anchorsFile encodes an anchors file of latent size 2 whose classes have the given codes (a class with none has
// no tensor), with per-class counts as the manifest's AnchorCounts when counts is non-nil.
func anchorsFile(t *testing.T, codes [][]float32, counts map[string]any) []byte {
	t.Helper()
	var named []Named
	for c, z := range codes {
		if len(z) > 0 {
			named = append(named, Named{Name: AnchorTensor(c), Shape: []int{len(z) / 2, 2}, Values: z, DType: Int8})
		}
	}
	man := Manifest{Model: "anchors", Architecture: Architecture{Latent: 2}}
	if counts != nil {
		man.Metrics = map[string]any{AnchorCounts: counts}
	}
	b, err := Encode(man, named)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestAnchorsWithAnEmptyClass: a class without anchors (a classifier never sure of it) is a class without a
// tensor that the manifest counts as 0; the file round-trips through Encode and Decode, with the other classes'
// codes as they were (within int8's rounding), also when no class has any. A missing tensor the manifest does
// not count as 0 is refused in a sentence naming the file and the class, and the shipped digits' anchors read as
// they did, every class with some (Fashion's too), with the counts they had.
func TestAnchorsWithAnEmptyClass(t *testing.T) {
	codes := [][]float32{{1, 0.25, -1, 0}, nil, {-0.75, 1}}
	for _, c := range []struct {
		name  string
		codes [][]float32
	}{{"class 1 empty", codes}, {"every class empty", make([][]float32, 3)}} {
		counts := map[string]any{}
		for k, z := range c.codes {
			counts[strconv.Itoa(k)] = len(z) / 2
		}
		f, err := Decode("anchors.dcw", anchorsFile(t, c.codes, counts))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got, err := f.Anchors(3)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for k := range c.codes {
			if !near(got[k], c.codes[k]) {
				t.Errorf("%s: class %d read back as %v, want %v", c.name, k, got[k], c.codes[k])
			}
		}
	}
	for _, counts := range []map[string]any{nil, {"0": 2, "1": 3, "2": 1}} {
		f, err := Decode("anchors.dcw", anchorsFile(t, codes, counts))
		if err != nil {
			t.Fatal(err)
		}
		const want = "anchors.dcw: class 1 has no anchors, and the manifest does not count it as empty (per_class)"
		if _, err := f.Anchors(3); err == nil || err.Error() != want {
			t.Errorf("counts %v: got %v, want %q", counts, err, want)
		}
	}
	digits, err := ShippedAnchors()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join("fashion", BundleAnchors))
	if err != nil {
		t.Fatal(err)
	}
	fashion, err := Decode("fashion/anchors.dcw", raw)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		f       *File
		perCode []int
	}{
		{digits, []int{655, 632, 575, 577, 510, 426, 640, 592, 387, 518}},
		{fashion, []int{600, 600, 600, 600, 600, 600, 600, 600, 600, 600}},
	} {
		a, err := c.f.Anchors(10)
		if err != nil {
			t.Fatal(err)
		}
		for k, z := range a {
			if len(z) != c.perCode[k]*16 {
				t.Errorf("%s: class %d has %d anchors, want %d", c.f.Name, k, len(z)/16, c.perCode[k])
			}
		}
	}
}

// near says whether a and b have the same length and values within int8's rounding of a code of largest 1.
func near(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if d := a[i] - b[i]; d > 1.0/254 || d < -1.0/254 {
			return false
		}
	}
	return true
}
