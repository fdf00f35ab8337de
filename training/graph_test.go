package training

import (
	"math"
	"slices"
	"testing"

	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"

	"github.com/deltaclue/deltaclue/engine"
	"github.com/deltaclue/deltaclue/engine/mcmask"
	"github.com/deltaclue/deltaclue/engine/rng"
	"github.com/deltaclue/deltaclue/internal/testbundle"
	"github.com/deltaclue/deltaclue/weights"
)

// opsNetwork is a small graph on a 2×3×3 image with every merge and every activation of format 2, batch
// normalisation, global pooling, identity and a closing softmax, and its tensors.
func opsNetwork(r *rng.Rand) ([]weights.Layer, []weights.Named) {
	lo, hi := -0.5, 1.0
	named := func(l weights.Layer, name string, inputs ...string) weights.Layer {
		l.Name, l.Inputs = name, inputs
		return l
	}
	op := func(o string) weights.Layer { return weights.Layer{Op: o} }
	layers := []weights.Layer{
		named(weights.Layer{Op: weights.OpBatchNorm, Weights: "bn/scale", Bias: "bn/shift"}, "bn"),
		named(op(weights.OpSiLU), "a"),
		named(op(weights.OpGELU), "b", "bn"),
		named(weights.Layer{Op: weights.OpGELU, Approximate: weights.ApproximateTanh}, "c", "bn"),
		named(op(weights.OpAdd), "s", "a", "b", "c"),
		named(weights.Layer{Op: weights.OpClip, Min: &lo, Max: &hi}, "cl", weights.InputName),
		named(weights.Layer{Op: weights.OpHardSigmoid, Alpha: 0.2, Beta: 0.5}, "hs", "s"),
		named(op(weights.OpMul), "m", "cl", "hs"),
		named(op(weights.OpGlobalAvgPool), "gap", "m"),
		named(op(weights.OpHardSwish), "gate"),
		named(op(weights.OpMul), "m2", "gate", "s"),  // one value per channel, first
		named(op(weights.OpMul), "m3", "m2", "gate"), // and second
		named(weights.Layer{Op: weights.OpELU, Alpha: 0.7}, "e"),
		named(op(weights.OpSoftplus), "sp", weights.InputName),
		named(op(weights.OpConcat), "cat", "e", "sp"),
		op(weights.OpIdentity),
		op(weights.OpGlobalMaxPool),
		op(weights.OpFlatten),
		{Op: weights.OpDense, Out: 3, Weights: "d/w", Bias: "d/b"},
		op(weights.OpSoftmax),
	}
	rand := func(n int, scale, offset float64) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(offset + scale*r.Norm())
		}
		return v
	}
	return layers, []weights.Named{
		{Name: "bn/scale", Shape: []int{2}, Values: rand(2, 0.3, 1)},
		{Name: "bn/shift", Shape: []int{2}, Values: rand(2, 0.2, 0)},
		{Name: "d/w", Shape: []int{4, 3}, Values: rand(12, 0.8, 0)},
		{Name: "d/b", Shape: []int{3}, Values: rand(3, 0.1, 0)},
	}
}

// refNetwork computes a resolved graph on one input in float64, plainly: the reference the gomlx graphs are held
// to (only the layers opsNetwork uses). A layer's settings are taken in float32, as the engine and training
// hold them.
func refNetwork(t *testing.T, g *weights.Graph, tensors map[string][]float64, x []float64) []float64 {
	values := make([][]float64, len(g.Nodes))
	f := func(v float64) float64 { return float64(float32(v)) }
	for i, node := range g.Nodes {
		var ins [][]float64
		for _, j := range node.From {
			if j < 0 {
				ins = append(ins, x)
			} else {
				ins = append(ins, values[j])
			}
		}
		in, out := node.In[0], node.Out
		hw := in.H * in.W
		y := make([]float64, out.Size())
		each := func(f func(v float64) float64) {
			for k, v := range ins[0] {
				y[k] = f(v)
			}
		}
		switch node.Op {
		case weights.OpBatchNorm:
			s, b := tensors[node.Weights], tensors[node.Bias]
			for k, v := range ins[0] {
				y[k] = v*s[k/hw] + b[k/hw]
			}
		case weights.OpSiLU:
			each(func(v float64) float64 { return v / (1 + math.Exp(-v)) })
		case weights.OpGELU:
			if node.Approximate == weights.ApproximateTanh {
				each(func(v float64) float64 {
					return 0.5 * v * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(v+0.044715*v*v*v)))
				})
			} else {
				each(func(v float64) float64 { return 0.5 * v * (1 + math.Erf(v/math.Sqrt2)) })
			}
		case weights.OpClip:
			each(func(v float64) float64 { return math.Min(math.Max(v, f(*node.Min)), f(*node.Max)) })
		case weights.OpHardSigmoid:
			each(func(v float64) float64 { return math.Max(0, math.Min(1, f(node.Alpha)*v+f(node.Beta))) })
		case weights.OpHardSwish:
			each(func(v float64) float64 { return v * math.Max(0, math.Min(1, v/6+0.5)) })
		case weights.OpELU:
			each(func(v float64) float64 {
				if v > 0 {
					return v
				}
				return f(node.Alpha) * (math.Exp(v) - 1)
			})
		case weights.OpSoftplus:
			each(func(v float64) float64 { return math.Log1p(math.Exp(v)) })
		case weights.OpIdentity, weights.OpFlatten, weights.OpSoftmax:
			each(func(v float64) float64 { return v })
		case weights.OpAdd:
			for _, a := range ins {
				for k, v := range a {
					y[k] += v
				}
			}
		case weights.OpMul:
			a, b := ins[0], ins[1]
			if len(a) < len(b) {
				a, b = b, a
			}
			per := len(a) / len(b) // 1, or the image's pixels for one value per channel
			for k, v := range a {
				y[k] = v * b[k/per]
			}
		case weights.OpConcat:
			y = slices.Concat(ins...)
		case weights.OpGlobalAvgPool, weights.OpGlobalMaxPool:
			for c := range in.C {
				px := ins[0][c*hw : (c+1)*hw]
				if node.Op == weights.OpGlobalMaxPool {
					y[c] = slices.Max(px)
				} else {
					for _, v := range px {
						y[c] += v / float64(hw)
					}
				}
			}
		case weights.OpDense:
			w, b := tensors[node.Weights], tensors[node.Bias]
			units := node.Layer.Out // Node.Out is the node's shape
			for j := range units {
				y[j] = b[j]
				for i, v := range ins[0] {
					y[j] += v * w[i*units+j]
				}
			}
		default:
			t.Fatalf("the reference has no %s", node.Op)
		}
		values[i] = y
	}
	return values[len(values)-1]
}

// TestGraphOpsReference: the graph of every new op, built by GraphNodes, agrees with the plain float64
// reference, in float32 within 1e-5 and in float64 to 1e-12; and its gradient with respect to the input (gomlx's
// autodiff through every op) agrees with the reference's central finite differences.
func TestGraphOpsReference(t *testing.T) {
	r := rng.New(41)
	layers, named := opsNetwork(r)
	in := weights.Image(2, 3, 3)
	g, err := ResolveNetwork(layers, in)
	if err != nil {
		t.Fatal(err)
	}
	ref := map[string][]float64{}
	for _, n := range named {
		for _, v := range n.Values {
			ref[n.Name] = append(ref[n.Name], float64(v))
		}
	}
	const n = 5
	x := make([]float64, n*in.Size()) // [N, F], spread so that clip, hard-sigmoid and ELU see both sides
	for i := range x {
		x[i] = 6*r.Float64() - 3
	}
	w := make([]float64, n*3) // the gradient's weights on the outputs
	for i := range w {
		w[i] = r.Norm()
	}
	p := namedTensors(named)
	p64 := func(gr *Graph, name string) *Node { return ConvertDType(p(gr, name), dtypes.Float64) }
	build := func(p Tensors, xn *Node) *Node {
		values, err := GraphNodes(p, g, columns(xn), nil)
		if err != nil {
			panic(err)
		}
		return columns(values[len(values)-1])
	}
	exec32 := MustNewExec(Backend(), func(xn *Node) *Node { return build(p, xn) })
	exec64 := MustNewExec(Backend(), func(xn, wn *Node) []*Node {
		y := build(p64, xn)
		return []*Node{y, Gradient(ReduceAllSum(Mul(y, wn)), xn)[0]}
	})
	x32 := make([]float32, len(x))
	for i, v := range x {
		x32[i] = float32(v)
	}
	got32 := tensors.MustCopyFlatData[float32](exec32.MustExec(tensors.FromFlatDataAndDimensions(x32, n, in.Size()))[0])
	out64 := exec64.MustExec(tensors.FromFlatDataAndDimensions(x, n, in.Size()), tensors.FromFlatDataAndDimensions(w, n, 3))
	got64, grad := tensors.MustCopyFlatData[float64](out64[0]), tensors.MustCopyFlatData[float64](out64[1])
	refOut := func(x []float64) []float64 {
		var out []float64
		for k := range n {
			out = append(out, refNetwork(t, g, ref, x[k*in.Size():(k+1)*in.Size()])...)
		}
		return out
	}
	want := refOut(x)
	for i := range want {
		if d := math.Abs(float64(got32[i]) - want[i]); d > 1e-5*(1+math.Abs(want[i])) {
			t.Errorf("float32 output %d: gomlx %v, reference %v", i, got32[i], want[i])
		}
		if d := math.Abs(got64[i] - want[i]); d > 1e-12*(1+math.Abs(want[i])) {
			t.Errorf("float64 output %d: gomlx %v, reference %v", i, got64[i], want[i])
		}
	}
	loss := func(x []float64) float64 {
		var s float64
		for i, v := range refOut(x) {
			s += v * w[i]
		}
		return s
	}
	const eps = 1e-6
	worst, zero := 0.0, 0
	for i := range x {
		xp, xm := slices.Clone(x), slices.Clone(x)
		xp[i] += eps
		xm[i] -= eps
		fd := (loss(xp) - loss(xm)) / (2 * eps)
		worst = max(worst, math.Abs(fd-grad[i])/(1+math.Abs(fd)))
		if grad[i] == 0 {
			zero++
		}
	}
	if worst > 1e-6 {
		t.Errorf("the gradient with respect to the input differs from finite differences by %.3g (relative)", worst)
	}
	if zero > len(x)/2 {
		t.Errorf("%d of %d input gradients are zero", zero, len(x))
	}
	t.Logf("%d outputs agree; the input gradient agrees with finite differences within %.2g (%d of %d zero)", len(want), worst, zero, len(x))
}

// TestGraphAgreesWithEngine: testbundle.Graph's networks (every layer of format 2, dropout after a merge and
// not before a weighted layer) built by package training compute what the engine computes from the same
// description and files: the encoder's mean, the decoded images and the MC-dropout classifier's probabilities.
func TestGraphAgreesWithEngine(t *testing.T) {
	b, err := testbundle.Graph(7)
	if err != nil {
		t.Fatal(err)
	}
	checkAgainstEngine(t, b.Description, b.Files, 1e-4)
}

// checkAgainstEngine compares training's graphs of d with the engine's on random inputs, within tol relative
// to 1 + |value|.
func checkAgainstEngine(t *testing.T, d *weights.Description, files map[string]*weights.File, tol float64) {
	t.Helper()
	vae, bnn, err := engine.Load(d, files)
	if err != nil {
		t.Skipf("SKIPPED, NOT PASSED: engine.Load refuses %s (%v), so training's graphs cannot be held to the engine's", d.Name, err)
	}
	r := rng.New(99)
	const n = 4
	in := d.InputShape().Size()
	x := make([]float32, n*in)
	for i := range x {
		x[i] = float32(r.Float64())
	}
	z := make([]float32, n*d.VAE.Latent)
	for i := range z {
		z[i] = float32(r.Norm())
	}
	var probs []float32
	for _, u := range bnn.Classify(x) {
		probs = append(probs, u.Probs...)
	}
	pc, err := FileTensors(files[d.Classifier.Networks[0].File])
	if err != nil {
		t.Fatal(err)
	}
	pv, err := FileTensors(files[d.VAE.Encoder.File])
	if err != nil {
		t.Fatal(err)
	}
	exec := MustNewExec(Backend(), func(xn, zn *Node) []*Node {
		v := NewVAEGraphs(pv, d)
		return []*Node{v.Mean(xn), Sigmoid(v.Logits(zn)), PredictiveGraph(pc, d, xn)}
	})
	out := exec.MustExec(tensors.FromFlatDataAndDimensions(x, n, in), tensors.FromFlatDataAndDimensions(z, n, d.VAE.Latent))
	for i, c := range []struct {
		name   string
		engine []float32
	}{{"encoder mean", vae.Encode(x)}, {"decoded images", vae.DecodeImages(z)}, {"probabilities", probs}} {
		got := tensors.MustCopyFlatData[float32](out[i])
		if len(got) != len(c.engine) {
			t.Fatalf("%s: gomlx gives %d values, the engine %d", c.name, len(got), len(c.engine))
		}
		worst := 0.0
		for j := range got {
			worst = max(worst, math.Abs(float64(got[j]-c.engine[j]))/(1+math.Abs(float64(c.engine[j]))))
		}
		if worst > tol {
			t.Errorf("%s, %s: training's graph and the engine differ by %.3g (relative)", d.Name, c.name, worst)
		}
		t.Logf("%s, %s: %d values agree within %.2g", d.Name, c.name, len(got), worst)
	}
}

// oldPredictive is PredictiveGraph as it was before networks were graphs (a chain cut at its first dropout,
// the trunk built once): what a chain must still compute, to the bit.
func oldPredictive(p Tensors, d *weights.Description, x *Node) *Node {
	net := d.Classifier.Networks[0]
	in := d.InputShape()
	var widths []int
	var rates []float64
	s := in
	cut := -1
	for i, l := range net.Layers {
		if l.Op == weights.OpDropout {
			widths, rates = append(widths, s.C), append(rates, l.Rate)
			if cut < 0 {
				cut = i
			}
		}
		s, _ = l.OutShape(s)
	}
	if cut < 0 {
		cut = len(net.Layers)
	}
	all := mcmask.DrawLayers(d.Classifier.MaskSeed, d.Classifier.Samples, widths, rates)
	trunk, s, err := NetworkGraph(p, net.Layers[:cut], in, columns(x), nil, 0)
	if err != nil {
		panic(err)
	}
	var logits []*Node
	for _, sample := range all {
		masks := func(g *Graph, l int, at weights.Shape) *Node {
			return imageMask(Const(g, tensors.FromFlatDataAndDimensions(sample[l], len(sample[l]), 1)), at)
		}
		l, _, err := NetworkGraph(p, net.Layers[cut:], s, trunk, masks, 0)
		if err != nil {
			panic(err)
		}
		logits = append(logits, l)
	}
	return meanSoftmax(logits)
}

// TestChainPredictiveUnchanged: for chains (the grey and peers test bundles: dropout on channels and on units),
// PredictiveGraph over the resolved graph gives the bits the chain code gave.
func TestChainPredictiveUnchanged(t *testing.T) {
	for _, build := range []func(uint64) (*testbundle.Bundle, error){testbundle.Grey, testbundle.Peers} {
		b, err := build(3)
		if err != nil {
			t.Fatal(err)
		}
		d := b.Description
		p, err := FileTensors(b.Files[d.Classifier.Networks[0].File])
		if err != nil {
			t.Fatal(err)
		}
		exec := MustNewExec(Backend(), func(xn *Node) []*Node { return []*Node{PredictiveGraph(p, d, xn), oldPredictive(p, d, xn)} })
		items := b.Items(6, 1)
		out := exec.MustExec(itemFloats(items, 0, items.Len()))
		got, want := tensors.MustCopyFlatData[float32](out[0]), tensors.MustCopyFlatData[float32](out[1])
		if !slices.Equal(got, want) {
			t.Errorf("%s: the predictive changed: %v, was %v", d.Name, got, want)
		}
	}
}

// TestGraphTrainStep: Adam steps on testbundle.Graph's classifier (from newTensorStore's initialisation, dropout
// masks drawn per step) lower the posterior predictive's NLL on the batch, and move every tensor: gradients
// flow through every op of the graph, in gomlx.
func TestGraphTrainStep(t *testing.T) {
	b, err := testbundle.Graph(11)
	if err != nil {
		t.Fatal(err)
	}
	d := b.Description
	specs, err := networkTensors(d.Classifier.Networks[0].Layers, d.InputShape())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range specs {
		if s.name == "" {
			t.Fatalf("a tensor without a name: %+v", s)
		}
	}
	store := newTensorStore(specs, 5)
	before := snapshotTensors(store, specs)
	backend := Backend() // a store's variables live on one backend
	trainer, err := newClassifierTrainer(backend, store, d, 3e-3)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(trainer.widths, []int{16, 12}) {
		t.Errorf("dropout widths %v, want [16 12] (the concat's channels, the dense layer's units)", trainer.widths)
	}
	p := StoreTensors(store)
	nll := model.MustNewExec(backend, store, func(scope *model.Scope, x, onehot *Node) *Node {
		return Neg(ReduceAllMean(ReduceSum(Mul(onehot, Log(PredictiveGraph(p, d, x))), -1)))
	})
	items := b.Items(32, 2)
	images := tensors.MustCopyFlatData[float32](itemFloats(items, 0, items.Len()))
	labels := make([]int, items.Len())
	onehot := make([]float32, len(labels)*len(d.Classes))
	for i := range labels {
		labels[i] = items.Label(i)
		onehot[i*len(d.Classes)+labels[i]] = 1
	}
	measure := func() float32 {
		return nll.MustCall1(tensors.FromFlatDataAndDimensions(images, len(labels), d.InputShape().Size()),
			tensors.FromFlatDataAndDimensions(onehot, len(labels), len(d.Classes))).Value().(float32)
	}
	start := measure()
	r := rng.New(3)
	var losses []float32
	for range 40 {
		losses = append(losses, trainer.step(images, labels, r))
	}
	end := measure()
	t.Logf("predictive NLL %.4f → %.4f; training loss %.4f … %.4f", start, end, losses[0], losses[len(losses)-1])
	if !(end < 0.9*start) {
		t.Errorf("40 steps took the NLL from %v to %v", start, end)
	}
	after := snapshotTensors(store, specs)
	for i, t0 := range before {
		changed := false
		for j, v := range after[i].Values {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				t.Fatalf("%s is %v after training", t0.Name, v)
			}
			changed = changed || v != t0.Values[j]
		}
		if !changed {
			t.Errorf("%s did not move: no gradient reaches it", t0.Name)
		}
	}
}

// TestGraphCompact: CompactNetwork on testbundle.Graph's networks stores the dense and convolution weights as
// int8 (a grouped transposed convolution's scale per input channel) and batch normalisation's scale and shift
// as float32; the bundle still checks, loads and decodes, near the float32 one.
func TestGraphCompact(t *testing.T) {
	b, err := testbundle.Graph(13)
	if err != nil {
		t.Fatal(err)
	}
	d := b.Description
	in := d.InputShape()
	parts := map[string][]struct {
		layers []weights.Layer
		in     weights.Shape
	}{}
	for _, n := range []struct {
		net weights.Network
		in  weights.Shape
	}{{d.Classifier.Networks[0], in}, {d.VAE.Encoder, in}, {d.VAE.Decoder, weights.Vector(d.VAE.Latent)}} {
		parts[n.net.File] = append(parts[n.net.File], struct {
			layers []weights.Layer
			in     weights.Shape
		}{n.net.Layers, n.in})
	}
	compact := map[string]*weights.File{}
	dtypeOf := map[string]weights.Named{}
	for name, f := range b.Files {
		named := f.Named()
		for _, part := range parts[name] {
			if named, err = CompactNetwork(named, part.layers, part.in); err != nil {
				t.Fatal(err)
			}
		}
		for _, n := range named {
			dtypeOf[n.Name] = n
		}
		enc, err := weights.Encode(f.Manifest, named)
		if err != nil {
			t.Fatal(err)
		}
		if compact[name], err = weights.Decode(name, enc); err != nil {
			t.Fatal(err)
		}
	}
	// Every dense and convolution's weights are int8; every vector is float32.
	for _, n := range []weights.Network{d.Classifier.Networks[0], d.VAE.Encoder, d.VAE.Decoder} {
		for _, l := range n.Layers {
			switch l.Op {
			case weights.OpDense, weights.OpConv, weights.OpConvTranspose:
				if w := dtypeOf[l.Weights]; w.DType != weights.Int8 {
					t.Errorf("%s's weights %s are %q", l.Op, l.Weights, w.DType)
				} else if want := map[bool]int{true: 0, false: 1}[l.Op == weights.OpConv || l.Groups > 1]; l.Op != weights.OpDense && w.ScaleAxis != want {
					t.Errorf("%s (groups %d) weights %s: scale axis %d, want %d", l.Op, l.Groups, l.Weights, w.ScaleAxis, want)
				}
				if dt := dtypeOf[l.Bias].DType; dt != weights.Float32 {
					t.Errorf("%s's bias %s is %q", l.Op, l.Bias, dt)
				}
			case weights.OpBatchNorm:
				for _, v := range []string{l.Weights, l.Bias} {
					if dt := dtypeOf[v].DType; dt != weights.Float32 {
						t.Errorf("batch-norm's %s is %q", v, dt)
					}
				}
			}
		}
	}
	if err := d.Check(compact); err != nil {
		t.Fatalf("the compact bundle does not check: %v", err)
	}
	// Near the float32 bundle: int8 rounding moves each value by well under a percent of its scale.
	vae32, bnn32, err := engine.Load(d, b.Files)
	if err != nil {
		t.Skipf("SKIPPED, NOT PASSED: engine.Load refuses %s (%v)", d.Name, err)
	}
	vae8, bnn8, err := engine.Load(d, compact)
	if err != nil {
		t.Fatalf("the compact bundle does not load: %v", err)
	}
	r := rng.New(4)
	z := make([]float32, 3*d.VAE.Latent)
	for i := range z {
		z[i] = float32(r.Norm())
	}
	x := tensors.MustCopyFlatData[float32](itemFloats(b.Items(3, 9), 0, 3))
	diff := func(a, b []float32) float64 {
		worst := 0.0
		for i := range a {
			worst = max(worst, math.Abs(float64(a[i]-b[i])))
		}
		return worst
	}
	probs := func(c *engine.BNN) []float32 {
		var p []float32
		for _, u := range c.Classify(x) {
			p = append(p, u.Probs...)
		}
		return p
	}
	for _, c := range []struct {
		name   string
		d, tol float64
	}{
		{"decoded images", diff(vae32.DecodeImages(z), vae8.DecodeImages(z)), 0.05},
		{"encoder mean", diff(vae32.Encode(x), vae8.Encode(x)), 0.1},
		{"probabilities", diff(probs(bnn32), probs(bnn8)), 0.05},
	} {
		t.Logf("%s: int8 moves them by at most %.3g", c.name, c.d)
		if !(c.d <= c.tol) {
			t.Errorf("%s: int8 moves them by %.3g (above %v)", c.name, c.d, c.tol)
		}
	}
	// And gomlx measures the compact bundle as the engine runs it.
	checkAgainstEngine(t, d, compact, 1e-4)
}

// TestGraphEncodeLogVariance: a graph encoder's log-variance head reads the encoder's values as the
// log-variance network's graph says; here the head is a copy of the mean's, so the two agree to the bit, and
// with the encoder's output.
func TestGraphEncodeLogVariance(t *testing.T) {
	b, err := testbundle.Graph(17)
	if err != nil {
		t.Fatal(err)
	}
	d := *b.Description
	enc := d.VAE.Encoder.Layers // conv, leaky ReLU, flatten, dense: made a graph with a residual add
	conv, leaky := enc[0], enc[1]
	conv.Name, leaky.Name = "c", "l"
	layers := []weights.Layer{conv, leaky, {Op: weights.OpAdd, Inputs: []string{"c", "l"}}, enc[2], enc[3]}
	d.VAE.Encoder.Layers = layers
	d.VAE.LogVariance = &weights.Network{File: d.VAE.Encoder.File, Layers: slices.Clone(layers)}
	if err := d.Check(b.Files); err != nil {
		t.Fatal(err)
	}
	p, err := FileTensors(b.Files[d.VAE.Encoder.File])
	if err != nil {
		t.Fatal(err)
	}
	v := NewVAEGraphs(p, &d)
	exec := MustNewExec(Backend(), func(x *Node) []*Node {
		mean, logVar := v.encode(x)
		return []*Node{mean, logVar, v.Mean(x)}
	})
	out := exec.MustExec(itemFloats(b.Items(3, 5), 0, 3))
	mean, logVar, whole := tensors.MustCopyFlatData[float32](out[0]), tensors.MustCopyFlatData[float32](out[1]), tensors.MustCopyFlatData[float32](out[2])
	if !slices.Equal(mean, logVar) || !slices.Equal(mean, whole) {
		t.Errorf("mean %v, log-variance %v, the encoder's output %v", mean, logVar, whole)
	}
}
