//go:build !js || gomlxwasm

package engine

import (
	"math"
	"testing"

	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/deltaclue/deltaclue/engine/rng"
	"github.com/deltaclue/deltaclue/internal/testbundle"
	"github.com/deltaclue/deltaclue/training"
	"github.com/deltaclue/deltaclue/weights"
)

// TestTrainingGraphsAgree: the gomlx graphs that train and measure the Fashion models (package training's
// feature-major convolutions as gathers and products) compute what the engine computes from the same
// description and weights: the encoder's mean, the decoder's logits and the classifier's posterior predictive,
// within float32 rounding. Were they to disagree, a model trained in gomlx would not be the model the engine runs.
func TestTrainingGraphsAgree(t *testing.T) {
	d := training.FashionDescription(0.3)
	r := rng.New(2030)
	files := randomFiles(t, r, d)
	checkTrainingGraphs(t, r, d, files)
	// The grey test bundle adds max-pooling and dropout on an image's channels.
	grey, err := testbundle.Grey(5)
	if err != nil {
		t.Fatal(err)
	}
	checkTrainingGraphs(t, r, grey.Description, grey.Files)
	// The colour one: a deep ensemble, average pooling, nearest upsampling, leaky ReLU and tanh.
	colour, err := testbundle.Colour(5)
	if err != nil {
		t.Fatal(err)
	}
	checkTrainingGraphs(t, r, colour.Description, colour.Files)
}

// randomFiles makes d's weights files with random tensors.
func randomFiles(t *testing.T, r *rng.Rand, d *weights.Description) map[string]*weights.File {
	files := map[string]*weights.File{}
	for _, part := range []struct {
		file string
		nets []weights.Network
		ins  []weights.Shape
	}{
		{weights.BundleBNN, d.Classifier.Networks, []weights.Shape{d.InputShape()}},
		{weights.BundleVAE, []weights.Network{d.VAE.Encoder, *d.VAE.LogVariance, d.VAE.Decoder},
			[]weights.Shape{d.InputShape(), d.InputShape(), weights.Vector(d.VAE.Latent)}},
	} {
		var named []weights.Named
		seen := map[string]bool{}
		for i, n := range part.nets {
			s := part.ins[i]
			for _, l := range n.Layers {
				out, err := l.OutShape(s)
				if err != nil {
					t.Fatal(err)
				}
				var shape []int
				fan := 1
				switch l.Op {
				case weights.OpDense:
					shape, fan = []int{s.Size(), l.Out}, s.Size()
				case weights.OpConv:
					shape, fan = []int{l.Out, s.C, l.Kernel[0], l.Kernel[1]}, s.C*l.Kernel[0]*l.Kernel[1]
				case weights.OpConvTranspose:
					shape, fan = []int{s.C, l.Out, l.Kernel[0], l.Kernel[1]}, s.C*l.Kernel[0]*l.Kernel[1]/4
				}
				if shape != nil && !seen[l.Weights] {
					seen[l.Weights] = true
					named = append(named, weights.Named{Name: l.Weights, Shape: shape, Values: randSlice(r, sizeOf(shape), 1.5/math.Sqrt(float64(fan)))},
						weights.Named{Name: l.Bias, Shape: []int{l.Out}, Values: randSlice(r, l.Out, 0.1)})
				}
				s = out
			}
		}
		b, err := weights.Encode(weights.Manifest{Model: part.file}, named)
		if err != nil {
			t.Fatal(err)
		}
		if files[part.file], err = weights.Decode(part.file, b); err != nil {
			t.Fatal(err)
		}
	}
	return files
}

// checkTrainingGraphs compares training's graphs of d with the engine's networks on random inputs.
func checkTrainingGraphs(t *testing.T, r *rng.Rand, d *weights.Description, files map[string]*weights.File) {
	v, c, err := Load(d, files)
	if err != nil {
		t.Fatal(err)
	}
	const n = 3
	in := d.InputShape().Size()
	x := make([]float32, n*in)
	for i := range x {
		x[i] = float32(r.Float64())
	}
	z := randSlice(r, n*d.VAE.Latent, 1)

	g := NewGraph(n)
	xt := g.Input(in, false)
	copy(xt.Data, x)
	mean := v.EncodeMean(g, xt)
	probs := c.Predict(g, xt, nil).Probs
	g.Forward()
	g2 := NewGraph(n)
	zt := g2.Input(d.VAE.Latent, false)
	copy(zt.Data, z)
	logits, _ := v.Decode(g2, zt)
	g2.Forward()

	pc, err := training.FileTensors(files[weights.BundleBNN])
	if err != nil {
		t.Fatal(err)
	}
	pv, err := training.FileTensors(files[weights.BundleVAE])
	if err != nil {
		t.Fatal(err)
	}
	exec := graph.MustNewExec(oracleBackend(), func(xn, zn *graph.Node) []*graph.Node {
		vg := training.NewVAEGraphs(pv, d)
		return []*graph.Node{vg.Mean(xn), vg.Logits(zn), training.PredictiveGraph(pc, d, xn)}
	})
	out := exec.MustExec(tensors.FromFlatDataAndDimensions(x, n, in), tensors.FromFlatDataAndDimensions(z, n, d.VAE.Latent))
	for i, want := range []struct {
		name   string
		engine []float32
	}{{"encoder mean", mean.Data}, {"decoder logits", logits.Data}, {"predictive", probs.Data}} {
		got := tensors.MustCopyFlatData[float32](out[i])
		if len(got) != len(want.engine) {
			t.Fatalf("%s: gomlx gives %d values, the engine %d", want.name, len(got), len(want.engine))
		}
		worst := 0.0
		for j := range got {
			e := math.Abs(float64(got[j]-want.engine[j])) / (1 + math.Abs(float64(want.engine[j])))
			worst = max(worst, e)
		}
		if worst > 1e-4 {
			t.Errorf("%s, %s: training's graph and the engine differ by %.3g (relative)", d.Name, want.name, worst)
		}
		t.Logf("%s, %s: %d values agree within %.2g", d.Name, want.name, len(got), worst)
	}
}

func sizeOf(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}
