// Package testbundle makes small convolutional model bundles with seeded random weights, for tests that run the
// whole path (description, engine, search, worker, page) on a model that is not the digits': a grey one with an
// MC-dropout classifier (dropout on channels and on units, max-pooling, a transposed convolution in the decoder)
// and a colour one with a deep ensemble (average pooling, nearest upsampling, leaky ReLU and tanh). Their weights
// are untrained: what the tests check is that every platform computes the same bits, not what a model knows.
// One is trained when asked (bars.go: an image regressor, trained in float64 the same on every platform).
package testbundle

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/deltaclue/deltaclue/engine/rng"
	"github.com/deltaclue/deltaclue/internal/idx"
	"github.com/deltaclue/deltaclue/weights"
)

// Bundle is a made bundle: its description, its weights files by name, and the bundle's bytes (model.json and
// the files, as the site serves models.bin).
type Bundle struct {
	Description *weights.Description
	Files       map[string]*weights.File
	Bytes       []byte
}

// builder collects a network's tensors as its layers are added.
type builder struct {
	r       *rng.Rand
	prefix  string
	tensors []weights.Named
	n       int
}

func (b *builder) tensor(shape []int, fanIn int, scale float64) string {
	size := 1
	for _, d := range shape {
		size *= d
	}
	v := make([]float32, size)
	for i := range v {
		v[i] = float32(b.r.Norm() * scale / math.Sqrt(float64(fanIn)))
	}
	name := fmt.Sprintf("%s/%d", b.prefix, b.n)
	b.n++
	b.tensors = append(b.tensors, weights.Named{Name: name, Shape: shape, Values: v})
	return name
}

func (b *builder) dense(in, out int) weights.Layer { return b.denseScaled(in, out, 1.5) }

// denseScaled is a dense layer whose weights have a larger spread: a classifier's last layer, so that some
// inputs give it sure logits (an untrained model is unsure of everything otherwise, and nothing is accepted).
func (b *builder) denseScaled(in, out int, scale float64) weights.Layer {
	return weights.Layer{Op: weights.OpDense, Out: out, Weights: b.tensor([]int{in, out}, in, scale), Bias: b.tensor([]int{out}, 1, 0.1)}
}

func (b *builder) conv(in, out, k, stride, pad int) weights.Layer {
	return weights.Layer{Op: weights.OpConv, Out: out, Kernel: [2]int{k, k}, Stride: [2]int{stride, stride}, Padding: [2]int{pad, pad},
		Weights: b.tensor([]int{out, in, k, k}, in*k*k, 1.5), Bias: b.tensor([]int{out}, 1, 0.1)}
}

func (b *builder) convT(in, out, k, stride, pad, outPad int) weights.Layer {
	return weights.Layer{Op: weights.OpConvTranspose, Out: out, Kernel: [2]int{k, k}, Stride: [2]int{stride, stride}, Padding: [2]int{pad, pad},
		OutputPadding: [2]int{outPad, outPad}, Weights: b.tensor([]int{in, out, k, k}, in*k*k/(stride*stride), 1.5), Bias: b.tensor([]int{out}, 1, 0.1)}
}

func op(name string) weights.Layer { return weights.Layer{Op: name} }

func window(name string, k int) weights.Layer {
	return weights.Layer{Op: name, Kernel: [2]int{k, k}, Stride: [2]int{k, k}}
}

// file encodes the builders' tensors as one weights file of the given model kind.
func file(name, model string, bs ...*builder) (*weights.File, []byte, error) {
	var tensors []weights.Named
	for _, b := range bs {
		tensors = append(tensors, b.tensors...)
	}
	raw, err := weights.Encode(weights.Manifest{Model: model, Dataset: weights.Dataset{Source: "testbundle: seeded random weights"}}, tensors)
	if err != nil {
		return nil, nil, err
	}
	f, err := weights.Decode(name, raw)
	return f, raw, err
}

// assemble encodes d's files and the bundle, and checks the description against them.
func assemble(d *weights.Description, parts map[string][]*builder, kinds map[string]string) (*Bundle, error) {
	b := &Bundle{Description: d, Files: map[string]*weights.File{}}
	desc, err := json.Marshal(d)
	if err != nil {
		return nil, err
	}
	members := []weights.BundleFile{{Name: weights.DescriptionFile, Data: desc}}
	for _, name := range []string{weights.BundleVAE, weights.BundleBNN} {
		f, raw, err := file(name, kinds[name], parts[name]...)
		if err != nil {
			return nil, err
		}
		b.Files[name] = f
		members = append(members, weights.BundleFile{Name: name, Data: raw})
	}
	if err := d.Check(b.Files); err != nil {
		return nil, err
	}
	b.Bytes = weights.EncodeBundle(members)
	return b, nil
}

// Grey is a 1×12×12 model of four classes: an MC-dropout CNN (conv, ReLU, max-pool, channel dropout, strided
// conv, ReLU, flatten, unit dropout, dense; 5 samples) and a VAE of latent size 3 whose decoder ends in a
// transposed convolution, Bernoulli.
func Grey(seed uint64) (*Bundle, error) { return grey(seed, nil) }

// grey is Grey, or with reg a regression's (its last layer two outputs, its classes the ranges).
func grey(seed uint64, reg *weights.Regression) (*Bundle, error) {
	r := rng.New(seed)
	clf := &builder{r: r, prefix: "clf"}
	enc, dec := &builder{r: r, prefix: "enc"}, &builder{r: r, prefix: "dec"}
	d := &weights.Description{Format: 1, Name: "grey-test", Title: "A small grey test model",
		Input:   weights.Input{Height: 12, Width: 12, Channels: 1, Range: [2]float64{0, 1}, Drawing: weights.DrawInk, Noun: "sketch"},
		Classes: []string{"ring", "bar", "cross", "dot"},
		Classifier: weights.Classifier{Uncertainty: weights.UncertaintyMCDropout, Samples: 5, MaskSeed: seed, Networks: []weights.Network{{
			File: weights.BundleBNN, Layers: []weights.Layer{
				clf.conv(1, 4, 3, 1, 1), op(weights.OpReLU), window(weights.OpMaxPool, 2),
				{Op: weights.OpDropout, Rate: 0.25},
				clf.conv(4, 6, 3, 2, 1), op(weights.OpReLU), op(weights.OpFlatten),
				{Op: weights.OpDropout, Rate: 0.2},
				clf.denseScaled(6*3*3, outputs(reg, 4), headScale(reg, 12)),
			}}}},
		VAE: greyVAE(enc, dec),
	}
	regress(d, reg)
	return assemble(d, map[string][]*builder{weights.BundleVAE: {enc, dec}, weights.BundleBNN: {clf}},
		map[string]string{weights.BundleVAE: "vae", weights.BundleBNN: "bnn"})
}

// greyVAE is Grey's VAE of 1×12×12 images, its weights drawn by enc's and dec's generator (encoder first).
func greyVAE(enc, dec *builder) weights.VAE {
	return weights.VAE{Latent: 3, Likelihood: weights.LikelihoodBernoulli,
		Encoder: weights.Network{File: weights.BundleVAE, Layers: []weights.Layer{
			enc.conv(1, 4, 3, 2, 1), op(weights.OpReLU), op(weights.OpFlatten), enc.dense(4*6*6, 3)}},
		Decoder: weights.Network{File: weights.BundleVAE, Layers: []weights.Layer{
			dec.dense(3, 4*6*6), op(weights.OpReLU), {Op: weights.OpReshape, Shape: []int{4, 6, 6}},
			dec.convT(4, 1, 4, 2, 1, 0)}},
	}
}

// outputs is a classifier's last layer's outputs: classes, or a regression's two.
func outputs(reg *weights.Regression, classes int) int {
	if reg != nil {
		return weights.RegressionOutputs
	}
	return classes
}

// headScale is the spread of a classifier's last layer: a regression's near 1 (its outputs are standardised
// values and a σ's logarithm, not logits to make sure).
func headScale(reg *weights.Regression, classifier float64) float64 {
	if reg != nil {
		return 0.5
	}
	return classifier
}

// Colour is a 3×8×8 model of three classes: a deep ensemble of three small CNNs (conv, leaky ReLU, average
// pool, flatten, dense) and a VAE of latent size 4 whose decoder upsamples and ends in a convolution, Bernoulli,
// with a tanh in its encoder.
func Colour(seed uint64) (*Bundle, error) {
	r := rng.New(seed)
	enc, dec := &builder{r: r, prefix: "enc"}, &builder{r: r, prefix: "dec"}
	clf := &builder{r: r, prefix: "clf"}
	var members []weights.Network
	for range 3 {
		members = append(members, weights.Network{File: weights.BundleBNN, Layers: []weights.Layer{
			clf.conv(3, 4, 3, 1, 1), {Op: weights.OpLeakyReLU, Slope: 0.1}, window(weights.OpAvgPool, 2), op(weights.OpFlatten),
			clf.denseScaled(4*4*4, 3, 12)}})
	}
	d := &weights.Description{Format: 1, Name: "colour-test", Title: "A small colour test model",
		Input:      weights.Input{Height: 8, Width: 8, Channels: 3, Range: [2]float64{0, 1}, Drawing: weights.DrawColour, Noun: "tile"},
		Classes:    []string{"red", "green", "blue"},
		Classifier: weights.Classifier{Uncertainty: weights.UncertaintyEnsemble, Samples: 3, Networks: members},
		VAE: weights.VAE{Latent: 4, Likelihood: weights.LikelihoodBernoulli,
			Encoder: weights.Network{File: weights.BundleVAE, Layers: []weights.Layer{
				enc.conv(3, 4, 3, 2, 1), op(weights.OpTanh), op(weights.OpFlatten), enc.dense(4*4*4, 4)}},
			Decoder: weights.Network{File: weights.BundleVAE, Layers: []weights.Layer{
				dec.dense(4, 3*4*4), op(weights.OpReLU), {Op: weights.OpReshape, Shape: []int{3, 4, 4}},
				{Op: weights.OpUpsample, Scale: [2]int{2, 2}}, dec.conv(3, 3, 3, 1, 1)}},
		},
	}
	return assemble(d, map[string][]*builder{weights.BundleVAE: {enc, dec}, weights.BundleBNN: {clf}},
		map[string]string{weights.BundleVAE: "vae", weights.BundleBNN: "bnn"})
}

// Peers is a 1×16×16 model of three classes whose networks hold every layer cmd/benchpeers' peers (TensorFlow.js
// and PyTorch) build, in the settings that trip a port up: an MC-dropout CNN (4 samples) with a non-square
// kernel and padding, leaky ReLU, dropout on an image's channels before a convolution, a strided convolution,
// tanh, dropout on channels before a flatten and a dense layer, and dropout on units; and a VAE of latent size 3
// whose decoder runs a dense layer, a reshape and two transposed convolutions (the second with output padding),
// Bernoulli.
func Peers(seed uint64) (*Bundle, error) {
	r := rng.New(seed)
	clf := &builder{r: r, prefix: "clf"}
	enc, dec := &builder{r: r, prefix: "enc"}, &builder{r: r, prefix: "dec"}
	tall := weights.Layer{Op: weights.OpConv, Out: 4, Kernel: [2]int{3, 1}, Stride: [2]int{1, 1}, Padding: [2]int{1, 0},
		Weights: clf.tensor([]int{4, 1, 3, 1}, 3, 1.5), Bias: clf.tensor([]int{4}, 1, 0.1)}
	d := &weights.Description{Format: 1, Name: "peers-test", Title: "A small model of every layer the peers run",
		Input:   weights.Input{Height: 16, Width: 16, Channels: 1, Range: [2]float64{0, 1}, Drawing: weights.DrawInk, Noun: "sketch"},
		Classes: []string{"left", "middle", "right"},
		Classifier: weights.Classifier{Uncertainty: weights.UncertaintyMCDropout, Samples: 4, MaskSeed: seed, Networks: []weights.Network{{
			File: weights.BundleBNN, Layers: []weights.Layer{
				tall, {Op: weights.OpLeakyReLU, Slope: 0.1},
				{Op: weights.OpDropout, Rate: 0.25},
				clf.conv(4, 6, 3, 2, 1), op(weights.OpTanh),
				{Op: weights.OpDropout, Rate: 0.3},
				op(weights.OpFlatten), clf.dense(6*8*8, 12), op(weights.OpReLU),
				{Op: weights.OpDropout, Rate: 0.2},
				clf.denseScaled(12, 3, 12),
			}}}},
		VAE: weights.VAE{Latent: 3, Likelihood: weights.LikelihoodBernoulli,
			Encoder: weights.Network{File: weights.BundleVAE, Layers: []weights.Layer{
				enc.conv(1, 2, 3, 2, 1), op(weights.OpReLU), op(weights.OpFlatten), enc.dense(2*8*8, 3)}},
			Decoder: weights.Network{File: weights.BundleVAE, Layers: []weights.Layer{
				dec.dense(3, 4*4*4), op(weights.OpReLU), {Op: weights.OpReshape, Shape: []int{4, 4, 4}},
				dec.convT(4, 3, 4, 2, 1, 0), {Op: weights.OpLeakyReLU, Slope: 0.2},
				dec.convT(3, 1, 3, 2, 1, 1)}},
		},
	}
	return assemble(d, map[string][]*builder{weights.BundleVAE: {enc, dec}, weights.BundleBNN: {clf}},
		map[string]string{weights.BundleVAE: "vae", weights.BundleBNN: "bnn"})
}

// Items makes n test items for b's models from seed: each value a random k/255, each label a random class. With
// modelsource.WriteDir(dir, b.Bytes, b.Items(n, seed)) they make a models folder a command's -models reads.
func (b *Bundle) Items(n int, seed uint64) *idx.Items {
	r := rng.New(seed)
	in := b.Description.Input
	s := &idx.Items{Input: in, Labels: make([]uint8, n), Values: make([]uint8, n*in.Size())}
	for i := range s.Labels {
		s.Labels[i] = uint8(r.IntN(len(b.Description.Classes)))
	}
	for i := range s.Values {
		s.Values[i] = uint8(r.IntN(256))
	}
	return s
}

// convG is a convolution with groups and dilation ("same" padding for an odd kernel at stride 1).
func (b *builder) convG(in, out, k, stride, pad, groups, dilation int) weights.Layer {
	l := b.conv(in/groups, out, k, stride, pad) // weights [out, in/groups, k, k]
	l.Groups, l.Dilation = groups, [2]int{dilation, dilation}
	return l
}

// batchNorm is an eval-mode batch normalisation of c channels: a scale near 1 and a shift near 0 per channel.
func (b *builder) batchNorm(c int) weights.Layer {
	scale := b.tensor([]int{c}, 1, 0.2)
	for i := range b.tensors[len(b.tensors)-1].Values {
		b.tensors[len(b.tensors)-1].Values[i] += 1
	}
	return weights.Layer{Op: weights.OpBatchNorm, Weights: scale, Bias: b.tensor([]int{c}, 1, 0.1)}
}

// named gives a layer a name and what it reads.
func named(l weights.Layer, name string, inputs ...string) weights.Layer {
	l.Name, l.Inputs = name, inputs
	return l
}

// Graph is a 1×16×16 model of three classes whose networks are graphs with every layer of format 2: an
// MC-dropout classifier (4 samples) with a residual block (batch normalisation, SiLU, a dilated depthwise
// convolution, an add), ReLU6, squeeze-and-excitation (global average pooling, 1×1 convolutions, hard-swish,
// hard-sigmoid, a per-channel mul), a grouped convolution with GELU beside an ELU branch, a concat, a channel
// dropout that no weighted layer follows, the tanh GELU, global max pooling, softplus, a unit dropout, a last
// dense layer and a softmax; and a VAE whose decoder has a residual dense block and a grouped transposed
// convolution, Bernoulli.
func Graph(seed uint64) (*Bundle, error) {
	r := rng.New(seed)
	clf := &builder{r: r, prefix: "clf"}
	enc, dec := &builder{r: r, prefix: "enc"}, &builder{r: r, prefix: "dec"}
	six, zero := 6.0, 0.0
	// Two groups of two channels each way: weights [in, out/groups, kh, kw].
	convT := weights.Layer{Op: weights.OpConvTranspose, Out: 4, Groups: 2, Kernel: [2]int{4, 4}, Stride: [2]int{2, 2}, Padding: [2]int{1, 1},
		Weights: dec.tensor([]int{4, 2, 4, 4}, 2*4*4/4, 1.5), Bias: dec.tensor([]int{4}, 1, 0.1)}
	d := &weights.Description{Format: weights.DescriptionFormat, Name: "graph-test", Title: "A small model of every graph layer",
		Input:   weights.Input{Height: 16, Width: 16, Channels: 1, Range: [2]float64{0, 1}, Drawing: weights.DrawInk, Noun: "sketch"},
		Classes: []string{"ring", "bar", "dot"},
		Classifier: weights.Classifier{Uncertainty: weights.UncertaintyMCDropout, Samples: 4, MaskSeed: seed, Networks: []weights.Network{{
			File: weights.BundleBNN, Layers: []weights.Layer{
				clf.conv(1, 8, 3, 1, 1), clf.batchNorm(8), named(op(weights.OpReLU), "stem"),
				clf.conv(8, 8, 3, 1, 1), clf.batchNorm(8), op(weights.OpSiLU),
				named(clf.convG(8, 8, 3, 1, 2, 8, 2), "block"), // depthwise, dilation 2
				named(op(weights.OpAdd), "res", "stem", "block"),
			}}}},
	}
	layers := append(d.Classifier.Networks[0].Layers,
		named(weights.Layer{Op: weights.OpClip, Min: &zero, Max: &six}, "r6"),
		op(weights.OpGlobalAvgPool), clf.conv(8, 4, 1, 1, 0), op(weights.OpHardSwish), clf.conv(4, 8, 1, 1, 0),
		named(weights.Layer{Op: weights.OpHardSigmoid, Alpha: 1.0 / 6, Beta: 0.5}, "gate"),
		named(op(weights.OpMul), "se", "r6", "gate"),
		clf.convG(8, 12, 3, 2, 1, 4, 1), named(op(weights.OpGELU), "g"),
		named(clf.conv(8, 4, 1, 2, 0), "", "se"), named(weights.Layer{Op: weights.OpELU, Alpha: 1}, "e"),
		named(op(weights.OpConcat), "", "g", "e"),
		weights.Layer{Op: weights.OpDropout, Rate: 0.2},
		weights.Layer{Op: weights.OpGELU, Approximate: weights.ApproximateTanh},
		op(weights.OpGlobalMaxPool), op(weights.OpFlatten), op(weights.OpSoftplus),
		clf.dense(16, 12), op(weights.OpIdentity), op(weights.OpTanh),
		weights.Layer{Op: weights.OpDropout, Rate: 0.25},
		clf.denseScaled(12, 3, 12), op(weights.OpSoftmax),
	)
	d.Classifier.Networks[0].Layers = layers
	d.VAE = weights.VAE{Latent: 3, Likelihood: weights.LikelihoodBernoulli,
		Encoder: weights.Network{File: weights.BundleVAE, Layers: []weights.Layer{
			enc.conv(1, 4, 3, 2, 1), {Op: weights.OpLeakyReLU, Slope: 0.1}, op(weights.OpFlatten), enc.dense(4*8*8, 3)}},
		Decoder: weights.Network{File: weights.BundleVAE, Layers: []weights.Layer{
			dec.dense(3, 64), named(op(weights.OpReLU), "h"), named(dec.dense(64, 64), "h2"), named(op(weights.OpAdd), "", "h", "h2"),
			{Op: weights.OpReshape, Shape: []int{4, 4, 4}},
			convT, op(weights.OpSiLU), // 4×8×8
			dec.convT(4, 1, 4, 2, 1, 0), // 1×16×16 logits
		}},
	}
	return assemble(d, map[string][]*builder{weights.BundleVAE: {enc, dec}, weights.BundleBNN: {clf}},
		map[string]string{weights.BundleVAE: "vae", weights.BundleBNN: "bnn"})
}

// TableColumns are Table's columns: every kind of column and every change rule (an integer that may only go up,
// numbers free, down-only and never, an integer down-only, categories free and never), 15 values flattened.
func TableColumns() weights.Columns {
	return weights.Columns{
		{Name: "Age", Kind: weights.ColumnInteger, Unit: "years", Range: [2]float64{18, 80}, Mean: 40, Std: 12, Change: weights.ChangeUp},
		{Name: "Income", Kind: weights.ColumnNumber, Range: [2]float64{0, 500}, Mean: 150, Std: 80, Change: weights.ChangeFree},
		{Name: "Home", Kind: weights.ColumnCategory, Levels: []string{"rent", "own", "parents"}, Change: weights.ChangeFree},
		{Name: "Debt", Kind: weights.ColumnNumber, Range: [2]float64{0, 20000}, Mean: 2000, Std: 3000, Change: weights.ChangeDown},
		{Name: "Children", Kind: weights.ColumnInteger, Range: [2]float64{0, 8}, Mean: 1.2, Std: 1.1, Change: weights.ChangeFree},
		{Name: "Birthplace", Kind: weights.ColumnCategory, Levels: []string{"north", "south", "east", "west"}, Change: weights.ChangeNever},
		{Name: "Score", Kind: weights.ColumnInteger, Range: [2]float64{300, 850}, Mean: 600, Std: 90, Change: weights.ChangeDown},
		{Name: "Records", Kind: weights.ColumnCategory, Levels: []string{"no", "yes"}, Change: weights.ChangeFree},
		{Name: "Height", Kind: weights.ColumnNumber, Unit: "cm", Range: [2]float64{140, 210}, Mean: 172, Std: 9, Change: weights.ChangeNever},
	}
}

// Table is a model of rows (TableColumns, 15 values flattened) of two classes: an MC-dropout MLP (dense, ReLU,
// dropout, dense, ReLU, dropout, dense; 6 samples) and a VAE of latent size 3 with the mixed likelihood (its
// decoder's output is each number's standardised mean and each category's logits), MLPs both.
func Table(seed uint64) (*Bundle, error) { return table(seed, nil) }

// table is Table, or with reg a regression's.
func table(seed uint64, reg *weights.Regression) (*Bundle, error) {
	r := rng.New(seed)
	clf := &builder{r: r, prefix: "clf"}
	enc, dec := &builder{r: r, prefix: "enc"}, &builder{r: r, prefix: "dec"}
	cols := TableColumns()
	w := cols.Width()
	d := &weights.Description{Format: weights.FormatTable, Name: "table-test", Title: "A small table test model",
		Input:   weights.Input{Kind: weights.KindTable, Columns: cols, Noun: "applicant"},
		Classes: []string{"bad", "good"},
		Classifier: weights.Classifier{Uncertainty: weights.UncertaintyMCDropout, Samples: 6, MaskSeed: seed, Networks: []weights.Network{{
			File: weights.BundleBNN, Layers: []weights.Layer{
				clf.dense(w, 24), op(weights.OpReLU), {Op: weights.OpDropout, Rate: 0.2},
				clf.dense(24, 16), op(weights.OpReLU), {Op: weights.OpDropout, Rate: 0.2},
				clf.denseScaled(16, outputs(reg, 2), headScale(reg, 8)),
			}}}},
		VAE: weights.VAE{Latent: 3, Likelihood: weights.LikelihoodMixed,
			Encoder: weights.Network{File: weights.BundleVAE, Layers: []weights.Layer{
				enc.dense(w, 16), op(weights.OpReLU), enc.dense(16, 3)}},
			Decoder: weights.Network{File: weights.BundleVAE, Layers: []weights.Layer{
				dec.dense(3, 16), op(weights.OpReLU), dec.denseScaled(16, w, 2)}},
		},
	}
	regress(d, reg)
	return assemble(d, map[string][]*builder{weights.BundleVAE: {enc, dec}, weights.BundleBNN: {clf}},
		map[string]string{weights.BundleVAE: "vae", weights.BundleBNN: "bnn"})
}

// Rows makes n random rows of a table's columns in natural units, from seed: a number uniform in its range, an
// integer a whole number uniform in its range, a category a level drawn uniformly; one row in four puts each
// number or integer at one end of its range instead (where the constraints bite).
func Rows(cols weights.Columns, n int, seed uint64) [][]float64 {
	r := rng.New(seed)
	rows := make([][]float64, n)
	for i := range rows {
		edges := r.IntN(4) == 0
		row := make([]float64, len(cols))
		for j, col := range cols {
			lo, hi := col.Range[0], col.Range[1]
			switch {
			case col.Kind == weights.ColumnCategory:
				row[j] = float64(r.IntN(len(col.Levels)))
			case edges:
				row[j] = []float64{lo, hi}[r.IntN(2)]
			case col.Kind == weights.ColumnInteger:
				row[j] = lo + float64(r.IntN(int(hi-lo)+1))
			default:
				row[j] = lo + (hi-lo)*r.Float64()
			}
		}
		rows[i] = row
	}
	return rows
}
