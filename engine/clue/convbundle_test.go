package clue

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"testing"

	"github.com/deltaclue/deltaclue/engine"
	"github.com/deltaclue/deltaclue/internal/testbundle"
)

// convBundleGolden is the SHA-256 of the explanations of a small search on each convolutional test bundle
// (internal/testbundle: the grey MC-dropout CNN and the colour ensemble), first computed natively: the same test
// runs under GOOS=js GOARCH=wasm with and without the SIMD kernel, and on amd64 with every native kernel.
const convBundleGolden = "8deed8a0dc2509ec52e6bfd5ec57e959c43eec599a070f2eac5e0ec760f0700c"

// TestConvBundlesSearchEverywhere: a model that is not the digits' (convolutions, pooling, a transposed
// convolution, channel dropout, an ensemble, three channels) runs the whole search from its bundle's
// description, each restart's bits the same whichever restarts run together (a worker's share), and every
// explanation's bits the same on every platform.
func TestConvBundlesSearchEverywhere(t *testing.T) {
	grey, err := testbundle.Grey(1)
	if err != nil {
		t.Fatal(err)
	}
	colour, err := testbundle.Colour(2)
	if err != nil {
		t.Fatal(err)
	}
	if got := searchesHash(t, grey, colour); got != convBundleGolden {
		t.Errorf("the convolutional bundles' searches hash to %s, want %s", got, convBundleGolden)
	}
}

// graphBundleGolden is convBundleGolden for internal/testbundle's Graph model, whose networks are graphs with
// every layer of format 2, first computed natively.
const graphBundleGolden = "b4e989fecaca342e83e4a7a241c7d6fd5b94d9adc27f40571038379e59596cb9"

// TestGraphBundleSearchEverywhere: a model whose networks are graphs (residual adds, a concat, a per-channel mul,
// grouped, depthwise and dilated convolutions, every activation, dropout on activations) runs the whole search,
// each restart's bits the same whichever restarts run together, and the same bits on every platform.
func TestGraphBundleSearchEverywhere(t *testing.T) {
	b, err := testbundle.Graph(1)
	if err != nil {
		t.Fatal(err)
	}
	if got := searchesHash(t, b); got != graphBundleGolden {
		t.Errorf("the graph bundle's search hashes to %s, want %s", got, graphBundleGolden)
	}
}

// searchesHash runs a small search (12 restarts, 15 steps) on each bundle around a soft ring, checks that a
// restart run with half of the others gives the bits it gives among all, and hashes every explanation's bits.
func searchesHash(t *testing.T, bundles ...*testbundle.Bundle) string {
	t.Helper()
	h := sha256.New()
	for _, b := range bundles {
		v, c, err := engine.Load(b.Description, b.Files)
		if err != nil {
			t.Fatal(err)
		}
		in := c.Input
		x0 := make([]float32, in.Size()) // a soft ring, channel by channel a little brighter
		for ch := 0; ch < in.C; ch++ {
			for y := 0; y < in.H; y++ {
				for x := 0; x < in.W; x++ {
					r := math.Hypot(float64(y)-float64(in.H-1)/2, float64(x)-float64(in.W-1)/2) / float64(in.H) * 4
					x0[(ch*in.H+y)*in.W+x] = float32(math.Exp(-(r-1)*(r-1)*3) * (0.6 + 0.2*float64(ch)))
				}
			}
		}
		prob, err := NewProblem(&Models{VAE: v, BNN: c}, x0)
		if err != nil {
			t.Fatal(err)
		}
		p := Defaults()
		p.N, p.MaxSteps = 12, 15
		exps, err := Search(context.Background(), prob, p, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		half, err := Search(context.Background(), prob, p, []int{1, 3, 5, 7, 9, 11}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i, e := range half {
			a, b := exps[e.Restart], e
			if a.Cost != b.Cost || a.Steps != b.Steps || a.Z[0] != b.Z[0] {
				t.Errorf("restart %d (%d of the half) alone gives other bits than in the whole set (cost %v against %v)", e.Restart, i, b.Cost, a.Cost)
			}
		}
		accepted := 0
		for _, e := range exps {
			if e.Accepted {
				accepted++
			}
			for _, s := range [][]float32{e.Z, e.Image, e.Probs, {e.HTotal, e.HAleatoric, e.HEpistemic, e.Distance, e.Rho, e.Cost}} {
				binary.Write(h, binary.LittleEndian, s)
			}
			binary.Write(h, binary.LittleEndian, int64(e.Steps))
		}
		t.Logf("%s: read as %d (H %.3f); %d restarts, %d accepted; first: label %d, H %.3f, d %.2f, %d steps",
			b.Description.Name, prob.Pred0.Label(), prob.Pred0.Total, len(exps), accepted, exps[0].Label, exps[0].HTotal, exps[0].Distance, exps[0].Steps)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// S2 and S5 spread their restarts over the model's own classes: the digits' ten take n/10 each, a model of
// four classes as many restarts in all, the first ones one more; S5 runs on a model of any number of classes.
func TestSchemesPerClassOfAnyModel(t *testing.T) {
	if got := perClass(30, 10); got[0] != 3 || got[9] != 3 {
		t.Errorf("the digits' 30 restarts: %v", got)
	}
	if got := perClass(30, 4); got[0] != 8 || got[1] != 8 || got[2] != 7 || got[3] != 7 {
		t.Errorf("30 restarts over 4 classes: %v", got)
	}
	grey, err := testbundle.Grey(1)
	if err != nil {
		t.Fatal(err)
	}
	v, c, err := engine.Load(grey.Description, grey.Files)
	if err != nil {
		t.Fatal(err)
	}
	x0 := make([]float32, c.Input.Size())
	for i := range x0 {
		x0[i] = float32(i%7) / 7
	}
	prob, err := NewProblem(&Models{VAE: v, BNN: c}, x0)
	if err != nil {
		t.Fatal(err)
	}
	p := Defaults()
	p.Scheme, p.N, p.MaxSteps = S5, 20, 5
	exps, err := Search(context.Background(), prob, p, nil, nil)
	if err != nil || len(exps) != 20 {
		t.Fatalf("S5 on a %d-class model: %d explanations, %v", c.Classes, len(exps), err)
	}
	p.Scheme = S2
	if _, err := Search(context.Background(), prob, p, nil, nil); err == nil {
		t.Error("S2 ran on models without anchors")
	}
}
