// Package testbundle makes small convolutional model bundles with seeded random weights, for tests that run the
// whole path (description, engine, search, worker, page) on a model that is not the digits': a grey one with an
// MC-dropout classifier (dropout on channels and on units, max-pooling, a transposed convolution in the decoder)
// and a colour one with a deep ensemble (average pooling, nearest upsampling, leaky ReLU and tanh). Their weights
// are untrained: what the tests check is that every platform computes the same bits, not what a model knows.
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
func Grey(seed uint64) (*Bundle, error) {
	r := rng.New(seed)
	clf := &builder{r: r, prefix: "clf"}
	enc, dec := &builder{r: r, prefix: "enc"}, &builder{r: r, prefix: "dec"}
	d := &weights.Description{Format: weights.DescriptionFormat, Name: "grey-test", Title: "A small grey test model",
		Input:   weights.Input{Height: 12, Width: 12, Channels: 1, Range: [2]float64{0, 1}, Drawing: weights.DrawInk, Noun: "sketch"},
		Classes: []string{"ring", "bar", "cross", "dot"},
		Classifier: weights.Classifier{Uncertainty: weights.UncertaintyMCDropout, Samples: 5, MaskSeed: seed, Networks: []weights.Network{{
			File: weights.BundleBNN, Layers: []weights.Layer{
				clf.conv(1, 4, 3, 1, 1), op(weights.OpReLU), window(weights.OpMaxPool, 2),
				{Op: weights.OpDropout, Rate: 0.25},
				clf.conv(4, 6, 3, 2, 1), op(weights.OpReLU), op(weights.OpFlatten),
				{Op: weights.OpDropout, Rate: 0.2},
				clf.denseScaled(6*3*3, 4, 12),
			}}}},
		VAE: weights.VAE{Latent: 3, Likelihood: weights.LikelihoodBernoulli,
			Encoder: weights.Network{File: weights.BundleVAE, Layers: []weights.Layer{
				enc.conv(1, 4, 3, 2, 1), op(weights.OpReLU), op(weights.OpFlatten), enc.dense(4*6*6, 3)}},
			Decoder: weights.Network{File: weights.BundleVAE, Layers: []weights.Layer{
				dec.dense(3, 4*6*6), op(weights.OpReLU), {Op: weights.OpReshape, Shape: []int{4, 6, 6}},
				dec.convT(4, 1, 4, 2, 1, 0)}},
		},
	}
	return assemble(d, map[string][]*builder{weights.BundleVAE: {enc, dec}, weights.BundleBNN: {clf}},
		map[string]string{weights.BundleVAE: "vae", weights.BundleBNN: "bnn"})
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
	d := &weights.Description{Format: weights.DescriptionFormat, Name: "colour-test", Title: "A small colour test model",
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
	d := &weights.Description{Format: weights.DescriptionFormat, Name: "peers-test", Title: "A small model of every layer the peers run",
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
