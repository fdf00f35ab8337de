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

// TestTrainingConvolutionsAgree: training's convolution and transposed convolution (the latter by phases of
// its stride) against the engine's on random shapes, kernels, strides, paddings and output paddings, the
// kernel up to 4 wide and the stride up to 3, so that some phases have no tap.
func TestTrainingConvolutionsAgree(t *testing.T) {
	r := rng.New(77)
	checked := map[string]int{}
	for trial := 0; trial < 40; trial++ {
		in := Shape{1 + r.IntN(3), 2 + r.IntN(6), 2 + r.IntN(6)}
		win := Window{KH: 1 + r.IntN(4), KW: 1 + r.IntN(4), StrideH: 1 + r.IntN(3), StrideW: 1 + r.IntN(3)}
		win.PadH, win.PadW = r.IntN(win.KH/2+1), r.IntN(win.KW/2+1)
		transposed := trial%2 == 1
		if transposed {
			win.OutPadH, win.OutPadW = r.IntN(win.StrideH), r.IntN(win.StrideW)
		}
		outC := 1 + r.IntN(3)
		layer := weights.Layer{Op: weights.OpConv, Out: outC, Kernel: [2]int{win.KH, win.KW}, Stride: [2]int{win.StrideH, win.StrideW},
			Padding: [2]int{win.PadH, win.PadW}, OutputPadding: [2]int{win.OutPadH, win.OutPadW}, Weights: "w", Bias: "b"}
		wShape := []int{outC, in.C, win.KH, win.KW}
		if transposed {
			layer.Op, wShape = weights.OpConvTranspose, []int{in.C, outC, win.KH, win.KW}
		}
		if _, err := layer.OutShape(weights.Image(in.C, in.H, in.W)); err != nil {
			continue // a window a description refuses for this shape
		}
		ws, bs := randSlice(r, sizeOf(wShape), 0.5), randSlice(r, outC, 0.1)
		g := NewGraph(2)
		x := g.Input(in.Size(), false)
		copy(x.Data, randSlice(r, 2*in.Size(), 1))
		var y *Tensor
		var out Shape
		if transposed {
			c, err := NewConvTranspose(in, outC, win, ws, bs)
			if err != nil {
				continue // a window the engine refuses for this shape
			}
			y, out = g.ConvTranspose2D(x, &c), c.Out
		} else {
			c, err := NewConv(in, outC, win, ws, bs)
			if err != nil {
				continue
			}
			y, out = g.Conv2D(x, &c), c.Out
		}
		g.Forward()
		p, err := training.FileTensors(mustFile(t, []weights.Named{{Name: "w", Shape: wShape, Values: ws}, {Name: "b", Shape: []int{outC}, Values: bs}}))
		if err != nil {
			t.Fatal(err)
		}
		exec := graph.MustNewExec(oracleBackend(), func(xn *graph.Node) *graph.Node {
			yn, _, err := training.NetworkGraph(p, []weights.Layer{layer}, weights.Image(in.C, in.H, in.W), graph.Transpose(xn, 0, 1), nil, 0)
			if err != nil {
				panic(err)
			}
			return graph.Transpose(yn, 0, 1)
		})
		got := tensors.MustCopyFlatData[float32](exec.MustExec(tensors.FromFlatDataAndDimensions(x.Data, 2, in.Size()))[0])
		if len(got) != len(y.Data) {
			t.Fatalf("%s %v → %v, window %+v: gomlx gives %d values, the engine %d", layer.Op, in, out, win, len(got), len(y.Data))
		}
		for j := range got {
			if math.Abs(float64(got[j]-y.Data[j])) > 1e-5*(1+math.Abs(float64(y.Data[j]))) {
				t.Fatalf("%s %v → %v, window %+v: value %d is %v in gomlx, %v in the engine", layer.Op, in, out, win, j, got[j], y.Data[j])
			}
		}
		checked[layer.Op]++
	}
	if checked[weights.OpConv] < 8 || checked[weights.OpConvTranspose] < 8 {
		t.Errorf("only %v shapes were checked", checked)
	}
	t.Logf("shapes checked: %v", checked)
}

func mustFile(t *testing.T, named []weights.Named) *weights.File {
	b, err := weights.Encode(weights.Manifest{Model: "test"}, named)
	if err != nil {
		t.Fatal(err)
	}
	f, err := weights.Decode("test.dcw", b)
	if err != nil {
		t.Fatal(err)
	}
	return f
}
