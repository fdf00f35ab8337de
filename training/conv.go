package training

import (
	"fmt"
	"math"

	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"

	"github.com/deltaclue/deltaclue/engine/mcmask"
	"github.com/deltaclue/deltaclue/engine/rng"
	"github.com/deltaclue/deltaclue/internal/dataset"
	"github.com/deltaclue/deltaclue/weights"
)

// Training and measuring the models of any description whose networks training builds (NetworkGraph): an
// MC-dropout classifier and a VAE whose encoder ends in a dense layer to the latent mean, beside which a
// log-variance head (VAE.LogVariance) is trained. The images are 28×28 grey, as mnist.Set holds them.

// tensorSpec is one tensor a network's layers need: its name, shape, the fan-in its initialisation scales by,
// and the axis an int8 copy keeps a scale per index of (the output units or channels). A vector (a bias, or
// batch normalisation's scale or shift) starts at init and stays float32 when compacted.
type tensorSpec struct {
	name      string
	shape     []int
	fanIn     int
	vector    bool
	scaleAxis int
	init      float32
}

// networkTensors lists the tensors of layers applied to shape in (a graph, resolved), in layer order, each once.
func networkTensors(layers []weights.Layer, in weights.Shape) ([]tensorSpec, error) {
	g, err := ResolveNetwork(layers, in)
	if err != nil {
		return nil, err
	}
	var specs []tensorSpec
	add := func(t tensorSpec) {
		if t.name != "" && !containsTensor(specs, t.name) { // a tensor two layers share is one variable
			specs = append(specs, t)
		}
	}
	for _, node := range g.Nodes {
		l, s := node.Layer, node.In[0]
		k := l.Kernel[0] * l.Kernel[1]
		groups := max(l.Groups, 1)
		switch l.Op {
		case weights.OpDense:
			add(tensorSpec{name: l.Weights, shape: []int{s.Size(), l.Out}, fanIn: s.Size(), scaleAxis: 1})
		case weights.OpConv:
			add(tensorSpec{name: l.Weights, shape: []int{l.Out, s.C / groups, l.Kernel[0], l.Kernel[1]}, fanIn: s.C / groups * k})
		case weights.OpConvTranspose:
			// Each output value takes in.C/groups channels through about k/stride² taps. The int8 scale is per
			// output channel [in, Out, …] ungrouped; grouped, axis 1 indexes a channel within each group (one
			// scale for a depthwise one), so the scale is per input channel instead.
			fan := max(1, s.C/groups*k/(l.Stride[0]*l.Stride[1]))
			axis := 1
			if groups > 1 {
				axis = 0
			}
			add(tensorSpec{name: l.Weights, shape: []int{s.C, l.Out / groups, l.Kernel[0], l.Kernel[1]}, fanIn: fan, scaleAxis: axis})
		case weights.OpBatchNorm:
			// Eval-mode batch normalisation starts as the identity: scale 1, shift 0 (PyTorch's).
			add(tensorSpec{name: l.Weights, shape: []int{s.C}, fanIn: 1, vector: true, init: 1})
			add(tensorSpec{name: l.Bias, shape: []int{s.C}, fanIn: 1, vector: true})
			continue
		}
		if l.Bias != "" {
			add(tensorSpec{name: l.Bias, shape: []int{l.Out}, fanIn: 1, vector: true})
		}
	}
	return specs, nil
}

// newTensorStore creates the tensors as trainable variables: He-normal weights drawn from seed, and vectors at
// their init (biases zero).
func newTensorStore(specs []tensorSpec, seed uint64) *model.Store {
	store := model.NewStore()
	r := rng.New(seed)
	for _, t := range specs {
		size := 1
		for _, d := range t.shape {
			size *= d
		}
		v := make([]float32, size)
		if !t.vector {
			std := math.Sqrt(2 / float64(t.fanIn))
			for j := range v {
				v[j] = float32(r.Norm() * std)
			}
		} else {
			for j := range v {
				v[j] = t.init
			}
		}
		scope, name := splitVariable(t.name)
		if _, err := store.Scope(scope).CreateVariable(name, tensors.FromFlatDataAndDimensions(v, t.shape...)); err != nil {
			panic(err)
		}
	}
	return store
}

// splitVariable splits a tensor's name "a/b/c" into the scope "/a/b" and the variable "c".
func splitVariable(name string) (scope, variable string) {
	for i := len(name) - 1; i >= 0; i-- {
		if name[i] == '/' {
			return "/" + name[:i], name[i+1:]
		}
	}
	return "/", name
}

// snapshotTensors copies the tensors' current values out of the store, as int8 with a scale per output unit or
// channel (weights) and float32 (biases) when compact, all float32 otherwise.
func snapshotTensors(store *model.Store, specs []tensorSpec) []weights.Named {
	var out []weights.Named
	for _, t := range specs {
		v := tensors.MustCopyFlatData[float32](store.GetVariable("/" + t.name).MustValue())
		out = append(out, weights.Named{Name: t.name, Shape: t.shape, Values: v})
	}
	return out
}

// CompactNetwork returns named as the project ships a network (a graph's layers applied to shape in): each
// dense or convolution's weight tensor int8 with a float32 scale per output unit or channel (a grouped
// transposed convolution's per input channel), biases and batch normalisation's scale and shift float32 (a
// vector of C values: int8 with a scale per value would be no smaller).
func CompactNetwork(named []weights.Named, layers []weights.Layer, in weights.Shape) ([]weights.Named, error) {
	specs, err := networkTensors(layers, in)
	if err != nil {
		return nil, err
	}
	axis := map[string]int{}
	for _, t := range specs {
		if !t.vector {
			axis[t.name] = t.scaleAxis
		}
	}
	out := make([]weights.Named, len(named))
	for i, t := range named {
		out[i] = t
		if a, ok := axis[t.Name]; ok {
			out[i].DType, out[i].ScaleAxis = weights.Int8, a
		}
	}
	return out, nil
}

// columns returns images [N, F] as the feature-major [F, N] the networks take.
func columns(x *Node) *Node { return Transpose(x, 0, 1) }

// imageMask spreads a dropout mask m [C, N] (per channel) or [units, N] over a value of shape s.
func imageMask(m *Node, s weights.Shape) *Node {
	if s.Flat {
		return m
	}
	n := m.Shape().Dimensions[1]
	return Reshape(BroadcastToDims(Reshape(m, s.C, 1, n), s.C, s.H*s.W, n), s.Size(), n)
}

// PredictiveGraph returns the classifier's posterior predictive (an ensemble's: the mean of its members') or an
// MC-dropout classifier's [N, classes] for images x [N, F]: the mean of the softmax of its posterior samples'
// logits (SampleOutputs). A classifier ending in a softmax or a log-softmax is taken at its input, the logits, as
// the engine takes it.
func PredictiveGraph(p Tensors, d *weights.Description, x *Node) *Node {
	return meanSoftmax(SampleOutputs(p, d, x))
}

// SampleOutputs returns what each of the classifier's posterior samples outputs for images x [N, F], each
// [outputs, N]: an ensemble's members in order, or an MC-dropout network under each of its fixed masks
// (mcmask.DrawLayers, as the engine draws them). A layer that no dropout precedes in the graph (no path from a
// dropout to it: a chain's layers before its first dropout) is built once and shared by every sample; the rest
// is built per sample.
func SampleOutputs(p Tensors, d *weights.Description, x *Node) []*Node {
	in := d.InputShape()
	var outs []*Node
	if d.Classifier.Uncertainty == weights.UncertaintyEnsemble {
		for _, net := range d.Classifier.Networks {
			l, _, err := NetworkGraph(p, net.Layers, in, columns(x), nil, 0)
			if err != nil {
				panic(err)
			}
			outs = append(outs, l)
		}
		return outs
	}
	g, err := ResolveNetwork(d.Classifier.Networks[0].Layers, in)
	if err != nil {
		panic(err)
	}
	widths, rates := dropoutWidths(g)
	all := mcmask.DrawLayers(d.Classifier.MaskSeed, d.Classifier.Samples, widths, rates)
	dep := dropoutDependent(g)
	shared := make([]bool, len(dep))
	for i := range dep {
		shared[i] = !dep[i]
	}
	cols := columns(x)
	trunk := make([]*Node, len(g.Nodes))
	if err := fillNodes(p, g, cols, nil, 0, trunk, shared); err != nil {
		panic(err)
	}
	for _, sample := range all {
		masks := func(gr *Graph, l int, at weights.Shape) *Node {
			return imageMask(Const(gr, tensors.FromFlatDataAndDimensions(sample[l], len(sample[l]), 1)), at)
		}
		values := append([]*Node(nil), trunk...)
		if err := fillNodes(p, g, cols, masks, 0, values, nil); err != nil {
			panic(err)
		}
		outs = append(outs, values[len(values)-1])
	}
	return outs
}

// meanSoftmax is the mean of the softmax of each of logits [classes, N], as [N, classes].
func meanSoftmax(logits []*Node) *Node {
	var sum *Node
	for _, l := range logits {
		probs := Softmax(columns(l), -1)
		if sum == nil {
			sum = probs
		} else {
			sum = Add(sum, probs)
		}
	}
	return MulScalar(sum, 1/float64(len(logits)))
}

// ClassifierConfig configures training an MC-dropout classifier of a description.
type ClassifierConfig struct {
	Loop
	Dropouts []float64 `json:"dropouts"` // candidate rates for every dropout layer; the best validation NLL is kept
}

// TrainClassifier trains the classifier of describe(rate) once per candidate dropout rate, with early stopping
// on the validation NLL of the fixed-mask posterior predictive, and returns the best one's tensors (float32),
// its description and the history. A regression's networks (weights.Regression) train on the Gaussian NLL of
// their standardised targets and stop on the validation rows' predictive NLL (trainRegressorRate).
func TrainClassifier(backend compute.Backend, c ClassifierConfig, describe func(rate float64) *weights.Description, train, val dataset.Items) ([]weights.Named, *weights.Description, map[string]any, error) {
	var best []weights.Named
	var bestDesc *weights.Description
	bestNLL := math.Inf(1)
	candidates := map[string]any{}
	for _, rate := range c.Dropouts {
		d := describe(rate)
		named, nll, info, err := trainClassifierRate(backend, c, d, rate, train, val)
		if err != nil {
			return nil, nil, nil, err
		}
		candidates[fmt.Sprint(rate)] = info
		if nll < bestNLL {
			best, bestDesc, bestNLL = named, d, nll
		}
	}
	return best, bestDesc, map[string]any{"config": c, "candidates": candidates}, nil
}

func trainClassifierRate(backend compute.Backend, c ClassifierConfig, d *weights.Description, rate float64, train, val dataset.Items) ([]weights.Named, float64, map[string]any, error) {
	if d.IsRegression() {
		return trainRegressorRate(backend, c, d, rate, train, val)
	}
	net := d.Classifier.Networks[0]
	specs, err := networkTensors(net.Layers, d.InputShape())
	if err != nil {
		return nil, 0, nil, err
	}
	store := newTensorStore(specs, rng.Derive(c.Seed, 0))
	p := StoreTensors(store)
	trainer, err := newClassifierTrainer(backend, store, d, c.LR)
	if err != nil {
		return nil, 0, nil, err
	}
	predict := model.MustNewExec(backend, store, func(scope *model.Scope, x *Node) *Node { return PredictiveGraph(p, d, x) })
	maskRand := rng.New(rng.Derive(c.Seed, uint64(rate*1000)+10))
	var last Classification
	validate := func() (float64, string) {
		var probs []float32
		batchChunks(val.Len(), 500, func(lo, hi int) {
			probs = append(probs, tensors.MustCopyFlatData[float32](predict.MustCall1(itemFloats(val, lo, hi)))...)
		})
		last = Classify(probs, itemLabels(val))
		return last.NLL, fmt.Sprintf("dropout %.2f  validation NLL %.4f accuracy %.4f ECE %.4f", rate, last.NLL, last.Accuracy, last.ECE)
	}
	best, bestEpoch, history := c.run("classifier", func() []weights.Named { return snapshotTensors(store, specs) }, train,
		func(epoch int, batch []int, images []float32) {
			labels := make([]int, len(batch))
			for k, i := range batch {
				labels[k] = train.Label(i)
			}
			trainer.step(images, labels, maskRand)
		}, validate)
	q, _ := MeasureClassifier(backend, d, best, val)
	return best, q.NLL, map[string]any{"best_epoch": bestEpoch, "epochs": len(history), "validation": q, "history": history}, nil
}

// classifierTrainer is one Adam step of an MC-dropout classifier's loss (its first network, a graph) on a batch,
// with fresh dropout masks: a classifier's cross-entropy, or a regression's Gaussian negative log-likelihood
// (RegressionNLL) of the standardised target.
type classifierTrainer struct {
	exec    *model.Exec
	in      weights.Shape
	targets int   // values per item of the target: a class's one-hot, or a regression's standardised target
	widths  []int // per dropout layer, in layer order: the units or channels it masks
	rates   []float64
	sigma   string // a regression's weights.Regression.Sigma, "" for a classifier
}

// newClassifierTrainer compiles the step for d's classifier, its tensors the store's (StoreTensors).
func newClassifierTrainer(backend compute.Backend, store *model.Store, d *weights.Description, lr float64) (*classifierTrainer, error) {
	net := d.Classifier.Networks[0]
	t := &classifierTrainer{in: d.InputShape(), targets: len(d.Classes)}
	if d.IsRegression() {
		t.targets, t.sigma = 1, d.Regression.Sigma
	}
	g, err := ResolveNetwork(net.Layers, t.in)
	if err != nil {
		return nil, err
	}
	t.widths, t.rates = dropoutWidths(g)
	p := StoreTensors(store)
	t.exec = adamStep(backend, store, lr, func(scope *model.Scope, args []*Node) *Node {
		masks := func(_ *Graph, l int, s weights.Shape) *Node { return imageMask(args[2+l], s) }
		values, err := GraphNodes(p, g, columns(args[0]), masks)
		if err != nil {
			panic(err)
		}
		out := columns(values[len(values)-1])
		if t.sigma != "" {
			return ReduceAllMean(RegressionNLL(t.sigma, out, Reshape(args[1], -1)))
		}
		return Neg(ReduceAllMean(ReduceSum(Mul(args[1], LogSoftmax(out, -1)), -1)))
	})
	return t, nil
}

// step trains on images [len(labels)·F] of the labels (a classifier's), and returns the batch's loss before the
// step.
func (t *classifierTrainer) step(images []float32, labels []int, r *rng.Rand) float32 {
	onehot := make([]float32, len(labels)*t.targets)
	for k, c := range labels {
		onehot[k*t.targets+c] = 1
	}
	return t.stepTargets(images, onehot, r)
}

// stepTargets trains on images [n·F] of targets [n·t.targets], each dropout layer's mask drawn from r (per layer,
// then per unit or channel, then per image), and returns the batch's loss before the step.
func (t *classifierTrainer) stepTargets(images, targets []float32, r *rng.Rand) float32 {
	n := len(targets) / t.targets
	args := []any{tensors.FromFlatDataAndDimensions(images, n, t.in.Size()), tensors.FromFlatDataAndDimensions(targets, n, t.targets)}
	for l, w := range t.widths {
		keep := float32(1 / (1 - t.rates[l]))
		m := make([]float32, w*n)
		for j := range m {
			if r.Float64() >= t.rates[l] {
				m[j] = keep
			}
		}
		args = append(args, tensors.FromFlatDataAndDimensions(m, w, n))
	}
	return t.exec.MustCall(args...)[0].Value().(float32)
}

// namedTensors makes the tensors of named graph constants (the float32 values they hold, as decoded).
func namedTensors(named []weights.Named) Tensors {
	byName := map[string]weights.Named{}
	for _, t := range named {
		byName[t.Name] = t
	}
	type key struct {
		g    *Graph
		name string
	}
	consts := map[key]*Node{}
	return func(g *Graph, name string) *Node {
		if n, ok := consts[key{g, name}]; ok {
			return n
		}
		t, ok := byName[name]
		if !ok {
			panic(fmt.Sprintf("training: no tensor %q", name))
		}
		n := Const(g, tensors.FromFlatDataAndDimensions(t.Values, t.Shape...))
		consts[key{g, name}] = n
		return n
	}
}

// FileTensors reads the tensors of weights files (decoded, as the engine reads them), each from the first file
// that has it.
func FileTensors(files ...*weights.File) (Tensors, error) {
	var named []weights.Named
	seen := map[string]bool{}
	for _, f := range files {
		for _, t := range f.Manifest.Tensors {
			if seen[t.Name] {
				continue
			}
			v, err := f.Tensor(t.Name, t.Shape...)
			if err != nil {
				return nil, err
			}
			seen[t.Name] = true
			named = append(named, weights.Named{Name: t.Name, Shape: t.Shape, Values: v})
		}
	}
	return namedTensors(named), nil
}

// MeasureClassifier measures the MC-dropout classifier of d with tensors named on set: accuracy, NLL, ECE and
// the AUROC of its entropy for its mistakes, and the probabilities [N·classes].
func MeasureClassifier(backend compute.Backend, d *weights.Description, named []weights.Named, set dataset.Items) (Classification, []float32) {
	return MeasureClassifierWith(backend, d, namedTensors(named), set)
}

// MeasureClassifierWith is MeasureClassifier with the tensors from p.
func MeasureClassifierWith(backend compute.Backend, d *weights.Description, p Tensors, set dataset.Items) (Classification, []float32) {
	predict := MustNewExec(backend, func(x *Node) *Node { return PredictiveGraph(p, d, x) })
	var probs []float32
	batchChunks(set.Len(), 500, func(lo, hi int) {
		probs = append(probs, tensors.MustCopyFlatData[float32](predict.MustExec(itemFloats(set, lo, hi))[0])...)
	})
	return Classify(probs, itemLabels(set)), probs
}

// itemLabels lists the items' classes.
func itemLabels(set dataset.Items) []uint8 {
	labels := make([]uint8, set.Len())
	for i := range labels {
		labels[i] = uint8(set.Label(i))
	}
	return labels
}

// itemFloats returns items lo..hi-1 of s as a [hi-lo, size] tensor.
func itemFloats(s dataset.Items, lo, hi int) *tensors.Tensor {
	size := s.Size()
	x := make([]float32, (hi-lo)*size)
	for i := lo; i < hi; i++ {
		s.Float(i, x[(i-lo)*size:(i-lo+1)*size])
	}
	return tensors.FromFlatDataAndDimensions(x, hi-lo, size)
}

// VAEGraphs are a described VAE's parts as graphs on images x [N, F] and latent points z [N, latent].
type VAEGraphs struct {
	p Tensors
	d *weights.Description
}

// encode returns the encoder's mean and log-variance [N, latent]. VAE.LogVariance is the encoder's layers but
// the last, then a head of its own: the encoder's layers are built once, and the head reads their values as
// the log-variance network's graph says (a chain's head, what the encoder's layers but its last give).
func (v VAEGraphs) encode(x *Node) (mean, logVar *Node) {
	in := v.d.InputShape()
	enc, err := ResolveNetwork(v.d.VAE.Encoder.Layers, in)
	if err != nil {
		panic(err)
	}
	lv, err := ResolveNetwork(v.d.VAE.LogVariance.Layers, in)
	if err != nil {
		panic(err)
	}
	cols := columns(x)
	values, err := GraphNodes(v.p, enc, cols, nil)
	if err != nil {
		panic(err)
	}
	head := lv.Nodes[len(lv.Nodes)-1]
	ins := make([]*Node, len(head.From))
	for k, j := range head.From {
		switch {
		case j < 0:
			ins[k] = cols
		case j < len(enc.Nodes)-1:
			ins[k] = values[j]
		default:
			panic(fmt.Sprintf("training: the VAE's log-variance head reads its layer %d, which is not one of the encoder's", j))
		}
	}
	l, err := graphLayer(v.p, head, ins, nil, 0)
	if err != nil {
		panic(err)
	}
	return columns(values[len(values)-1]), columns(l)
}

// Mean returns the encoder's mean [N, latent].
func (v VAEGraphs) Mean(x *Node) *Node {
	m, _, err := NetworkGraph(v.p, v.d.VAE.Encoder.Layers, v.d.InputShape(), columns(x), nil, 0)
	if err != nil {
		panic(err)
	}
	return columns(m)
}

// Logits returns the decoder's output [N, F] for z (Bernoulli logits).
func (v VAEGraphs) Logits(z *Node) *Node {
	y, _, err := NetworkGraph(v.p, v.d.VAE.Decoder.Layers, weights.Vector(v.d.VAE.Latent), columns(z), nil, 0)
	if err != nil {
		panic(err)
	}
	return columns(y)
}

// negELBO returns −ELBO per image [N] for images x and reparameterisation noise eps [N, latent] (Bernoulli
// likelihood, or a table's mixed one, MixedNLL; standard normal prior).
func (v VAEGraphs) negELBO(x, eps *Node) *Node {
	recon, kl := v.elboTerms(x, eps)
	return Add(recon, ReduceSum(kl, -1))
}

// elboTerms returns −ELBO's two terms for images x and noise eps: the reconstruction's NLL per image [N] and
// each latent dimension's KL from the prior per image [N, latent].
func (v VAEGraphs) elboTerms(x, eps *Node) (recon, kl *Node) {
	mean, logVar := v.encode(x)
	z := Add(mean, Mul(Exp(MulScalar(logVar, 0.5)), eps))
	logits := v.Logits(z)
	if v.d.VAE.Likelihood == weights.LikelihoodMixed {
		recon = MixedNLL(v.d.Input.Columns, x, logits) // a table's: Gaussian numbers, categorical categories
	} else {
		recon = ReduceSum(Sub(Softplus(logits), Mul(x, logits)), -1)
	}
	return recon, MulScalar(Sub(Sub(OnePlus(logVar), Square(mean)), Exp(logVar)), -0.5)
}

// objective returns the training objective of Loop (KLWeight, FreeBits) summed over the images x: Σ recon +
// β·N·Σ_d max(λ, mean_n KL_nd); with β 1 and λ 0 it is −ELBO summed, the same graph as before.
func (v VAEGraphs) objective(c Loop, x, eps *Node) *Node {
	if c.KLWeight == 0 && c.FreeBits == 0 {
		return ReduceAllSum(v.negELBO(x, eps))
	}
	recon, kl := v.elboTerms(x, eps)
	n := float64(x.Shape().Dimensions[0])
	perDim := ReduceMean(kl, 0) // [latent]
	if c.FreeBits > 0 {
		perDim = MaxScalar(perDim, c.FreeBits)
	}
	beta := c.KLWeight
	if beta == 0 {
		beta = 1
	}
	return Add(ReduceAllSum(recon), MulScalar(ReduceAllSum(perDim), beta*n))
}

// TrainDescribedVAE trains the VAE of d (its encoder, log-variance head and decoder) with early stopping on the
// validation ELBO, and returns the best epoch's tensors (float32) and the history.
func TrainDescribedVAE(backend compute.Backend, c Loop, d *weights.Description, train, val dataset.Items) ([]weights.Named, map[string]any, error) {
	in := d.InputShape()
	latent := d.VAE.Latent
	lv := d.VAE.LogVariance
	if lv == nil {
		return nil, nil, fmt.Errorf("the VAE has no log-variance head to train")
	}
	var specs []tensorSpec
	for _, part := range []struct {
		layers []weights.Layer
		in     weights.Shape
	}{{d.VAE.Encoder.Layers, in}, {lv.Layers, in}, {d.VAE.Decoder.Layers, weights.Vector(latent)}} {
		s, err := networkTensors(part.layers, part.in)
		if err != nil {
			return nil, nil, err
		}
		for _, t := range s {
			if !containsTensor(specs, t.name) {
				specs = append(specs, t)
			}
		}
	}
	store := newTensorStore(specs, rng.Derive(c.Seed, 0))
	v := VAEGraphs{StoreTensors(store), d}
	shaped := c.KLWeight != 0 || c.FreeBits != 0
	step := adamStep(backend, store, c.LR, func(scope *model.Scope, args []*Node) *Node {
		if shaped {
			return DivScalar(v.objective(c, args[0], args[1]), float64(args[0].Shape().Dimensions[0]))
		}
		return ReduceAllMean(v.negELBO(args[0], args[1]))
	})
	eval := model.MustNewExec(backend, store, func(scope *model.Scope, x, eps *Node) *Node {
		return ReduceAllSum(v.negELBO(x, eps))
	})
	noiseRand := rng.New(rng.Derive(c.Seed, 2))
	// With a shaped objective, early stopping reads it on the validation part: the reconstruction's NLL and each
	// latent dimension's KL summed over the rows, the floor applied to the whole part's mean.
	terms := model.MustNewExec(backend, store, func(scope *model.Scope, x, eps *Node) []*Node {
		recon, kl := v.elboTerms(x, eps)
		return []*Node{ReduceAllSum(recon), ReduceSum(kl, 0)}
	})
	validate := func() (float64, string) {
		r := rng.New(rng.Derive(c.Seed, 3)) // the same noise every epoch, so scores compare
		if shaped {
			var recon float64
			kl := make([]float64, latent)
			batchChunks(val.Len(), 500, func(lo, hi int) {
				out := terms.MustExec(itemFloats(val, lo, hi), noise(r, hi-lo, latent))
				recon += float64(out[0].Value().(float32))
				for d, k := range tensors.MustCopyFlatData[float32](out[1]) {
					kl[d] += float64(k)
				}
			})
			n := float64(val.Len())
			beta := c.KLWeight
			if beta == 0 {
				beta = 1
			}
			var klSum, floored float64
			for _, k := range kl {
				klSum += k / n
				floored += math.Max(c.FreeBits, k/n)
			}
			score := recon/n + beta*floored
			return score, fmt.Sprintf("validation objective %.2f, ELBO %.2f nats/row (KL %.2f)", score, -(recon/n + klSum), klSum)
		}
		var total float64
		batchChunks(val.Len(), 500, func(lo, hi int) {
			total += float64(eval.MustCall1(itemFloats(val, lo, hi), noise(r, hi-lo, latent)).Value().(float32))
		})
		elbo := -total / float64(val.Len())
		return -elbo, fmt.Sprintf("validation ELBO %.2f nats/image", elbo)
	}
	best, bestEpoch, history := c.run("vae", func() []weights.Named { return snapshotTensors(store, specs) }, train,
		func(epoch int, batch []int, images []float32) {
			step.MustCall(tensors.FromFlatDataAndDimensions(images, len(batch), in.Size()), noise(noiseRand, len(batch), latent))
		}, validate)
	return best, map[string]any{"config": c, "best_epoch": bestEpoch, "epochs": len(history), "history": history}, nil
}

func containsTensor(specs []tensorSpec, name string) bool {
	for _, t := range specs {
		if t.name == name {
			return true
		}
	}
	return false
}

// MeasureDescribedVAE measures a described VAE (tensors from vae) against set: the ELBO (a 10-sample estimate
// per image, nats; NaN without a log-variance head) and the share of images whose reconstruction
// decoder(encoder mean(x)) gets the classifier's (tensors from clf) label for x.
func MeasureDescribedVAE(backend compute.Backend, d *weights.Description, vae, clf Tensors, set dataset.Items) VAEQuality {
	v := VAEGraphs{vae, d}
	const samples = 10
	agree := MustNewExec(backend, func(x *Node) *Node {
		recon := Sigmoid(v.Logits(v.Mean(x)))
		same := Equal(ArgMax(PredictiveGraph(clf, d, x), -1), ArgMax(PredictiveGraph(clf, d, recon), -1))
		return ReduceAllSum(ConvertDType(same, x.DType()))
	})
	var elboExec *Exec
	if d.VAE.LogVariance != nil {
		elboExec = MustNewExec(backend, func(x, eps *Node) *Node { return ReduceAllSum(v.negELBO(x, eps)) })
	}
	r := rng.New(12345)
	var q VAEQuality
	batchChunks(set.Len(), 500, func(lo, hi int) {
		x := itemFloats(set, lo, hi)
		if elboExec != nil {
			for range samples {
				q.ELBO -= float64(elboExec.MustExec(x, noise(r, hi-lo, d.VAE.Latent))[0].Value().(float32))
			}
		}
		q.ReconLabelAgreement += float64(agree.MustExec(x)[0].Value().(float32))
	})
	q.ELBO /= float64(samples * set.Len())
	if elboExec == nil {
		q.ELBO = math.NaN()
	}
	q.ReconLabelAgreement /= float64(set.Len())
	return q
}

// NewVAEGraphs returns the graphs of d's VAE with tensors from p.
func NewVAEGraphs(p Tensors, d *weights.Description) VAEGraphs { return VAEGraphs{p, d} }
