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

// step is one layer of a built network, reading the values in (0 is the network's input; value i+1 is step i's
// output).
type step struct {
	op      string
	in      []int
	dense   *Layer
	samples []Layer   // dense per MC sample
	keep    [][]int32 // a per-sample dense's rows the next per-sample dense keeps, per sample (compaction); nil: all
	// Any other layer's ops (network_image.go): run of one input, or merge of several; and its multiply-adds per
	// input.
	run   func(g *Graph, x *Tensor) *Tensor
	merge func(g *Graph, xs []*Tensor) *Tensor
	madds int
}

// network is a built network: its steps, and the value it gives.
type network struct {
	steps []step
	out   int
}

// apply adds the network's ops to g, from x.
func (n *network) apply(g *Graph, x *Tensor) *Tensor {
	vals := make([]*Tensor, len(n.steps)+1)
	vals[0] = x
	for i := range n.steps {
		s := &n.steps[i]
		x := vals[s.in[0]]
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
			if s.merge != nil {
				xs := make([]*Tensor, len(s.in))
				for j, v := range s.in {
					xs[j] = vals[v]
				}
				x = s.merge(g, xs)
			} else {
				x = s.run(g, x)
			}
		}
		vals[i+1] = x
	}
	return vals[n.out]
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
// description has been checked (weights.Description.Check): every layer's settings, what each reads, the shapes
// and the tensors.
func buildNetwork(where string, n weights.Network, f *weights.File, in weights.Shape, masks [][][]float32) (*network, error) {
	gr, err := n.Graph(where, in, nil)
	if err != nil {
		return nil, err
	}
	net := &network{}
	value := make([]int, len(gr.Nodes)) // the value each layer's output is (flatten, reshape, identity and a folded dropout pass theirs on)
	of := func(j int) int {
		if j < 0 {
			return 0
		}
		return value[j]
	}
	pending := map[int]int{}                // a weighted layer → the dropout whose masks fold into it
	masked := map[int]weights.Shape{}       // that dropout's input shape
	dropoutAt := make([]int, len(gr.Nodes)) // a dropout layer's number among the network's dropouts
	dropouts := 0
	for i, node := range gr.Nodes {
		l, s, out := node.Layer, node.In[0], node.Out
		fail := func(err error) (*network, error) {
			return nil, fmt.Errorf("%s, layer %d (%s): %w", where, i, l.Op, err)
		}
		ins := make([]int, len(node.From))
		for j, from := range node.From {
			ins[j] = of(from)
		}
		add := func(st step) {
			st.in = ins
			net.steps = append(net.steps, st)
			value[i] = len(net.steps)
		}
		tensors := func(wShape []int) (w, b []float32, err error) {
			if w, err = f.Tensor(l.Weights, wShape...); err != nil {
				return nil, nil, err
			}
			biases := l.Out
			if l.Op == weights.OpBatchNorm { // a shift per channel
				biases = s.C
			}
			b, err = f.Tensor(l.Bias, biases)
			return w, b, err
		}
		// The masks of the dropout folded into this layer, per unit of its input (a channel's mask over its
		// pixels once the image is flat), or nil.
		var inputMasks [][]float32
		var at weights.Shape
		if d, ok := pending[i]; ok {
			at = masked[i]
			for k := range masks {
				inputMasks = append(inputMasks, masks[k][dropoutAt[d]])
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
				add(step{op: l.Op, dense: &d})
				break
			}
			per := make([]Layer, len(inputMasks))
			for k, m := range inputMasks {
				unit := perUnit(m, s, at)
				folded := make([]float32, len(w))
				kernel.ScaleRows(folded, w, unit, s.Size(), l.Out)
				per[k] = NewLayer(s.Size(), l.Out, folded, b)
			}
			add(step{op: "dense-samples", samples: per})
		case weights.OpFlatten, weights.OpReshape, weights.OpIdentity, weights.OpSoftmax, weights.OpLogSoftmax:
			// A row is already the image channel-major: nothing moves. A classifier's closing softmax is the
			// engine's own (Predictive): its input is the logits.
			value[i] = ins[0]
		case weights.OpReLU, weights.OpSigmoid:
			add(step{op: l.Op})
		case weights.OpDropout:
			dropoutAt[i] = dropouts
			dropouts++
			if t := gr.FoldsInto(i); t >= 0 {
				pending[t], masked[t] = i, s
				value[i] = ins[0]
				break
			}
			if masks == nil { // an ensemble's member (checked to have none) or a network without samples
				value[i] = ins[0]
				break
			}
			per := make([][]float32, len(masks))
			for k := range masks {
				per[k] = perUnit(masks[k][dropoutAt[i]], s, s)
			}
			st, err := maskStep(per)
			if err != nil {
				return fail(err)
			}
			add(st)
		default:
			st, err := layerStep(l, node.In, out, inputMasks, tensors)
			if err != nil {
				return fail(err)
			}
			add(st)
		}
	}
	net.out = of(len(gr.Nodes) - 1)
	// Compaction: a per-sample dense whose output reaches the next per-sample dense through a ReLU alone
	// computes only the units that layer's mask keeps (the rows of its folded weights that are not all zero), as
	// the digits' BNN always has.
	readers := make([][]int, len(net.steps)+1)
	for i, st := range net.steps {
		for _, v := range st.in {
			readers[v] = append(readers[v], i)
		}
	}
	readers[net.out] = append(readers[net.out], -1) // the network's output is read too
	for i, st := range net.steps {
		if st.op != "dense-samples" || len(readers[i+1]) != 1 || readers[i+1][0] < 0 {
			continue
		}
		r := readers[i+1][0]
		if net.steps[r].op != weights.OpReLU || len(readers[r+1]) != 1 || readers[r+1][0] < 0 || net.steps[readers[r+1][0]].op != "dense-samples" {
			continue
		}
		next := net.steps[readers[r+1][0]].samples
		net.steps[i].keep = make([][]int32, len(next))
		for k := range next {
			net.steps[i].keep[k] = next[k].nzRows // nil: all
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

// dropoutWidths lists what each dropout layer of the network masks, in the layers' order: units of a vector,
// channels of an image.
func dropoutWidths(n weights.Network, in weights.Shape) (widths []int, rates []float64) {
	g, err := n.Graph("", in, nil)
	if err != nil {
		return nil, nil
	}
	for _, node := range g.Nodes {
		if node.Op == weights.OpDropout {
			widths, rates = append(widths, node.In[0].C), append(rates, node.Rate)
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
	if !weights.RegressionLeftOut && d.Regression != nil {
		b.Regression = regressionHead(d)
	}
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
