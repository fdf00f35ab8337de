package engine

import (
	"fmt"

	"github.com/deltaclue/deltaclue/engine/kernel"
	"github.com/deltaclue/deltaclue/engine/mcmask"
	"github.com/deltaclue/deltaclue/weights"
)

// A network of a model description (weights.Network), built on the engine: each layer a step that adds its ops
// to a graph. An MC-dropout layer is no op of its own: each posterior sample's fixed mask is folded into the
// input rows (dense) or input channels (convolution) of the layer after it, which then runs once per sample
// (DenseSamples, ConvSamples), and everything after it on per-sample tensors. (h ⊙ m)·W = h·(diag(m)·W): the
// digits' BNN has always been built so, and the same bits come out of the same description.

// step is one layer of a built network.
type step struct {
	op      string
	dense   *Layer
	samples []Layer   // dense per MC sample
	keep    [][]int32 // a per-sample dense's rows the next per-sample dense keeps, per sample (compaction); nil: all
	// An image layer's ops (network_image.go), and its multiply-adds per input.
	run   func(g *Graph, x *Tensor) *Tensor
	madds int
}

// network is a built network: its steps.
type network struct{ steps []step }

// apply adds the network's ops to g, from x.
func (n *network) apply(g *Graph, x *Tensor) *Tensor {
	for i := range n.steps {
		s := &n.steps[i]
		switch s.op {
		case weights.OpDense:
			x = g.Dense(x, s.dense)
		case "dense-samples":
			x = g.denseSamples(x, s.samples, s.keep)
		case weights.OpReLU:
			x = g.ReLU(x)
		case weights.OpSigmoid:
			x = g.Sigmoid(x)
		default:
			x = s.run(g, x)
		}
	}
	return x
}

// multiplyAdds counts the network's multiply-adds per input, forward: a per-sample layer's K times.
func (n *network) multiplyAdds() int {
	total := 0
	for _, s := range n.steps {
		switch {
		case s.dense != nil:
			total += s.dense.In * s.dense.Out
		case s.samples != nil:
			total += len(s.samples) * s.samples[0].In * s.samples[0].Out
		default:
			total += s.madds
		}
	}
	return total
}

func engineShape(s weights.Shape) Shape { return Shape{s.C, s.H, s.W} }

// buildNetwork builds a description's network from its file, starting from a value of shape in; masks are the
// MC-dropout masks of its dropout layers in order (masks[k][l]: sample k, dropout layer l), nil for none. The
// description has been checked (weights.Description.Check): every layer's settings, the shapes, the tensors, and
// where dropout stands (right before a dense or conv2d layer, a flatten or reshape between).
func buildNetwork(where string, n weights.Network, f *weights.File, in weights.Shape, masks [][][]float32) (*network, error) {
	net := &network{}
	s := in
	dropout := -1            // the dropout layer whose masks wait for the next weighted layer
	var masked weights.Shape // what that dropout layer acted on: its masks are per unit of a vector or per channel
	dropouts := 0
	for i, l := range n.Layers {
		fail := func(err error) (*network, error) {
			return nil, fmt.Errorf("%s, layer %d (%s): %w", where, i, l.Op, err)
		}
		out, err := l.OutShape(s)
		if err != nil {
			return fail(err)
		}
		tensors := func(wShape []int) (w, b []float32, err error) {
			if w, err = f.Tensor(l.Weights, wShape...); err != nil {
				return nil, nil, err
			}
			b, err = f.Tensor(l.Bias, l.Out)
			return w, b, err
		}
		// The masks of the dropout before this layer, per unit of its input (a channel's mask over its pixels
		// once the image is flat), or nil.
		var inputMasks [][]float32
		if dropout >= 0 {
			for k := range masks {
				inputMasks = append(inputMasks, masks[k][dropout])
			}
		}
		switch l.Op {
		case weights.OpDense:
			w, b, err := tensors([]int{s.Size(), l.Out})
			if err != nil {
				return fail(err)
			}
			if inputMasks == nil {
				d := NewLayer(s.Size(), l.Out, w, b)
				net.steps = append(net.steps, step{op: l.Op, dense: &d})
				break
			}
			per := make([]Layer, len(inputMasks))
			for k, m := range inputMasks {
				unit := perUnit(m, s, masked)
				folded := make([]float32, len(w))
				kernel.ScaleRows(folded, w, unit, s.Size(), l.Out)
				per[k] = NewLayer(s.Size(), l.Out, folded, b)
			}
			net.steps = append(net.steps, step{op: "dense-samples", samples: per})
			dropout = -1
		case weights.OpConv, weights.OpConvTranspose, weights.OpMaxPool, weights.OpAvgPool, weights.OpUpsample,
			weights.OpLeakyReLU, weights.OpTanh:
			st, err := imageStep(l, s, inputMasks, tensors)
			if err != nil {
				return fail(err)
			}
			net.steps = append(net.steps, st)
			if inputMasks != nil {
				dropout = -1
			}
		case weights.OpFlatten, weights.OpReshape:
			// a row is already the image channel-major: nothing moves
		case weights.OpReLU, weights.OpSigmoid:
			net.steps = append(net.steps, step{op: l.Op})
		case weights.OpDropout:
			dropout, masked = dropouts, s
			dropouts++
		}
		s = out
	}
	// Compaction: a per-sample dense whose output reaches the next per-sample dense through a ReLU alone
	// computes only the units that layer's mask keeps (the rows of its folded weights that are not all zero), as
	// the digits' BNN always has.
	for i := 0; i+2 < len(net.steps); i++ {
		if net.steps[i].op == "dense-samples" && net.steps[i+1].op == weights.OpReLU && net.steps[i+2].op == "dense-samples" {
			next := net.steps[i+2].samples
			net.steps[i].keep = make([][]int32, len(next))
			for k := range next {
				net.steps[i].keep[k] = next[k].nzRows // nil: all
			}
		}
	}
	return net, nil
}

// perUnit spreads a mask over the units of a value of shape s: a vector's mask is per unit already; an image
// mask (per channel of the shape the dropout acted on, at) gives each pixel its channel's value.
func perUnit(m []float32, s, at weights.Shape) []float32 {
	if at.Flat {
		return m
	}
	unit := make([]float32, s.Size())
	hw := at.H * at.W
	for j := range unit {
		unit[j] = m[j/hw]
	}
	return unit
}

// dropoutWidths lists what each dropout layer of the network masks: units of a vector, channels of an image.
func dropoutWidths(n weights.Network, in weights.Shape) (widths []int, rates []float64) {
	s := in
	for _, l := range n.Layers {
		if l.Op == weights.OpDropout {
			widths, rates = append(widths, s.C), append(rates, l.Rate)
		}
		if out, err := l.OutShape(s); err == nil {
			s = out
		}
	}
	return widths, rates
}

// DropoutMasks draws the fixed MC-dropout masks of a classifier's network n, whose input has shape in, as Load
// builds it: masks[k][l] is dropout layer l's mask in posterior sample k (one value per unit of a vector, or per
// channel of an image), each 0 or 1/(1−rate); nil for an ensemble's member.
func DropoutMasks(c weights.Classifier, n weights.Network, in weights.Shape) [][][]float32 {
	if c.Uncertainty == weights.UncertaintyEnsemble {
		return nil
	}
	widths, rates := dropoutWidths(n, in)
	return mcmask.DrawLayers(c.MaskSeed, c.Samples, widths, rates)
}

// Load builds the VAE and the classifier a description describes, from the bundle's weights files, after
// checking it against them.
func Load(d *weights.Description, files map[string]*weights.File) (*VAE, *BNN, error) {
	if err := d.Check(files); err != nil {
		return nil, nil, err
	}
	v, err := loadVAE(d, files)
	if err != nil {
		return nil, nil, err
	}
	b, err := loadClassifier(d, files)
	if err != nil {
		return nil, nil, err
	}
	return v, b, nil
}

// loadVAE builds the VAE of a description whose VAE part has been checked.
func loadVAE(d *weights.Description, files map[string]*weights.File) (*VAE, error) {
	in := d.InputShape()
	v := &VAE{Latent: d.VAE.Latent, Image: engineShape(in), bernoulli: d.VAE.Likelihood == weights.LikelihoodBernoulli}
	var err error
	if v.encoder, err = buildNetwork("the VAE's encoder", d.VAE.Encoder, files[d.VAE.Encoder.File], in, nil); err != nil {
		return nil, err
	}
	if v.decoder, err = buildNetwork("the VAE's decoder", d.VAE.Decoder, files[d.VAE.Decoder.File], weights.Vector(d.VAE.Latent), nil); err != nil {
		return nil, err
	}
	v.initOneShots()
	return v, nil
}

// loadClassifier builds the classifier of a description whose classifier part has been checked, drawing an
// MC-dropout network's fixed masks.
func loadClassifier(d *weights.Description, files map[string]*weights.File) (*BNN, error) {
	in := d.InputShape()
	c := d.Classifier
	b := &BNN{Classes: len(d.Classes), K: c.Samples, Input: engineShape(in), ensemble: c.Uncertainty == weights.UncertaintyEnsemble}
	for i, n := range c.Networks {
		net, err := buildNetwork(c.NetworkName(i), n, files[n.File], in, DropoutMasks(c, n, in))
		if err != nil {
			return nil, err
		}
		b.nets = append(b.nets, net)
	}
	b.initOneShots()
	return b, nil
}
