package mcmask

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"testing"

	"github.com/deltaclue/deltaclue/weights"
)

func TestDraw(t *testing.T) {
	a := weights.Architecture{Layers: []int{784, 256, 128, 10}, Dropout: 0.25, MCSamples: 20, MaskSeed: 7}
	masks := Draw(a)
	again := Draw(a)
	if len(masks) != 20 || len(masks[0]) != 2 || len(masks[0][0]) != 256 || len(masks[0][1]) != 128 {
		t.Fatalf("mask shapes wrong")
	}
	kept, total := 0, 0
	for k := range masks {
		for l := range masks[k] {
			for j, v := range masks[k][l] {
				if v != again[k][l][j] {
					t.Fatal("masks are not a function of the architecture")
				}
				if v != 0 && v != float32(1/0.75) {
					t.Fatalf("mask value %v", v)
				}
				if v != 0 {
					kept++
				}
				total++
			}
		}
	}
	if frac := float64(kept) / float64(total); math.Abs(frac-0.75) > 0.02 {
		t.Errorf("kept fraction %.3f, want 0.75", frac)
	}
	a.MaskSeed = 8
	differ := 0
	for j, v := range Draw(a)[0][0] {
		if v != masks[0][0][j] {
			differ++
		}
	}
	if differ < 50 { // two independent masks differ in 2·0.25·0.75 = 37.5 % of 256 units
		t.Errorf("a different seed changes only %d of 256 mask values", differ)
	}
}

// The masks are part of the shipped BNN (its metrics, the golden hashes of the engine and the search, share
// links' results): these are the SHA-256 of their float32 bits (little-endian, k, then l, then j) as
// weights.MCMasks drew them before the masks moved here.
func TestDrawGolden(t *testing.T) {
	shipped, err := weights.ShippedBNN()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		a    weights.Architecture
		want string
	}{
		{shipped.Manifest.Architecture, "3d6731ad97eb09bdfca842c8259fd9822cfd5e7d68d1a10cece053fd7d8241fc"},
		{weights.Architecture{Layers: []int{784, 8, 5, 3, 10}, Dropout: 0.4, MCSamples: 3, MaskSeed: 0},
			"84697b0a8b0e57490a13e3110053aa201d92c68d74e8a9a3bfc2cc31545f3123"},
	} {
		h := sha256.New()
		var b [4]byte
		for _, km := range Draw(c.a) {
			for _, m := range km {
				for _, v := range m {
					binary.LittleEndian.PutUint32(b[:], math.Float32bits(v))
					h.Write(b[:])
				}
			}
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != c.want {
			t.Errorf("masks of %+v: hash %s, want %s", c.a, got, c.want)
		}
	}
}
