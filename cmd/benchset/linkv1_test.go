//go:build !js

package main

import (
	"bytes"
	"testing"

	"github.com/deltaclue/deltaclue/cmd/benchset/nativebench"
	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/sharelink"
	"github.com/deltaclue/deltaclue/mnist"
)

// TestEncodeV1: this tree's sharelink.Decode, which still reads v1, reads back what encodeV1 wrote.
func TestEncodeV1(t *testing.T) {
	var img [mnist.Pixels]uint8
	for i := range img {
		img[i] = uint8(i * 7)
	}
	odd := clue.Defaults()
	odd.Delta, odd.N, odd.Scheme, odd.WAleatoric, odd.DistanceMean, odd.Rho, odd.Constraint = 3.5, 37, clue.S3, 0.5, true, clue.LInf, clue.Filter
	odd.LambdaY, odd.MinSteps, odd.Window, odd.Seed = 0.25, 5, 4, 1<<40+3
	for _, p := range []clue.Params{clue.Defaults(), nativebench.SetParams(100, 100), odd} {
		link := encodeV1(img, p, 0xdeadbeef)
		s, err := sharelink.Decode(link)
		if err != nil {
			t.Fatalf("%+v: %v", p, err)
		}
		if s.Version != 1 || s.Model != 0xdeadbeef || !bytes.Equal(s.Image, img[:]) || s.Params != p || s.Selected != sharelink.NoSelection {
			t.Errorf("decoded %+v (version %d, model %x, selected %d), want %+v", s.Params, s.Version, s.Model, s.Selected, p)
		}
	}
}
