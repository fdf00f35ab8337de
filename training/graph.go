package training

import (
	"fmt"
	"math"

	. "github.com/gomlx/gomlx/core/graph"

	"github.com/deltaclue/deltaclue/weights"
)

// A network is a graph (description format 2): each layer reads the network's input or earlier layers' outputs.
// GraphNodes builds every node from the values of the nodes it reads, each a [features, N] value laid out as
// the engine lays it (channel-major); NetworkGraph builds the layers of format 1 (those of a chain) one by one,
// and graphLayer here the rest: merges (add, mul, concat), the newer activations, global pooling and batch
// normalisation. A chain is built layer by layer by NetworkGraph, as it was before graphs, to the same ops.

// ResolveNetwork resolves layers applied to a value of shape in as a graph (weights.Network.Graph: what each
// layer reads and every shape; no tensors are checked).
func ResolveNetwork(layers []weights.Layer, in weights.Shape) (*weights.Graph, error) {
	return weights.Network{Layers: layers}.Graph("the network", in, nil)
}

// GraphNodes computes every node of the resolved network g on x [g.In.Size(), N]: values[i] is node i's output
// [g.Nodes[i].Out.Size(), N], the last one the network's. Dropout layer j (counted in layer order, as
// mcmask.DrawLayers draws the masks) multiplies its input by masks(…, j, its input's shape); nil masks is no
// dropout (the network's expectation).
func GraphNodes(p Tensors, g *weights.Graph, x *Node, masks Masks) ([]*Node, error) {
	values := make([]*Node, len(g.Nodes))
	if err := fillNodes(p, g, x, masks, 0, values, nil); err != nil {
		return nil, err
	}
	return values, nil
}

// fillNodes computes node i of g into values[i] where values[i] is nil and which (nil: every node) says so,
// from what values holds of the nodes it reads (an error if one is missing); the network's dropout layers are
// numbered from dropouts.
func fillNodes(p Tensors, g *weights.Graph, x *Node, masks Masks, dropouts int, values []*Node, which []bool) error {
	for i, node := range g.Nodes {
		dropout := dropouts
		if node.Op == weights.OpDropout {
			dropouts++
		}
		if values[i] != nil || (which != nil && !which[i]) {
			continue
		}
		ins := make([]*Node, len(node.From))
		for k, j := range node.From {
			if j < 0 {
				ins[k] = x
			} else if ins[k] = values[j]; ins[k] == nil {
				return fmt.Errorf("layer %d (%s) reads layer %d, which was not computed", i, node.Op, j)
			}
		}
		v, err := graphLayer(p, node, ins, masks, dropout)
		if err != nil {
			return fmt.Errorf("layer %d (%s): %v", i, node.Op, err)
		}
		values[i] = v
	}
	return nil
}

// dropoutDependent says which nodes of g are a dropout layer or read one's output, directly or not: what differs
// between posterior samples. The other nodes are the same in every sample and are computed once.
func dropoutDependent(g *weights.Graph) []bool {
	dep := make([]bool, len(g.Nodes))
	for i, node := range g.Nodes {
		dep[i] = node.Op == weights.OpDropout
		for _, j := range node.From {
			if j >= 0 && dep[j] {
				dep[i] = true
			}
		}
	}
	return dep
}

// dropoutWidths lists what each dropout layer of g masks, in layer order: the units of a vector or the channels
// of an image it reads, and its rate.
func dropoutWidths(g *weights.Graph) (widths []int, rates []float64) {
	for _, node := range g.Nodes {
		if node.Op == weights.OpDropout {
			widths, rates = append(widths, node.In[0].C), append(rates, node.Rate)
		}
	}
	return widths, rates
}

// graphLayer is one node of a network on the values ins of what it reads; dropout is its number among the
// network's dropout layers if it is one.
func graphLayer(p Tensors, node weights.Node, ins []*Node, masks Masks, dropout int) (*Node, error) {
	x, in, out := ins[0], node.In[0], node.Out
	f := func(v float64) float64 { return float64(float32(v)) } // a setting as the engine holds it, in float32
	switch node.Op {
	case weights.OpAdd:
		for _, y := range ins[1:] {
			x = Add(x, y)
		}
		return x, nil
	case weights.OpMul:
		a, b := node.In[0], node.In[1]
		switch {
		case a.C == b.C && a.H == b.H && a.W == b.W:
			return Mul(ins[0], ins[1]), nil
		case b.H == 1 && b.W == 1:
			return channelMul(ins[0], a, ins[1]), nil
		default:
			return channelMul(ins[1], b, ins[0]), nil
		}
	case weights.OpConcat:
		// Channel-major values: the inputs' channels one after another are their rows one after another.
		return Concatenate(ins, 0), nil
	case weights.OpSiLU:
		return Mul(x, Sigmoid(x)), nil
	case weights.OpGELU:
		if node.Approximate == weights.ApproximateTanh {
			// 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))
			u := MulScalar(Add(x, MulScalar(Mul(x, Mul(x, x)), 0.044715)), math.Sqrt(2/math.Pi))
			return MulScalar(Mul(x, OnePlus(Tanh(u))), 0.5), nil
		}
		// 0.5·x·(1 + erf(x/√2))
		return MulScalar(Mul(x, OnePlus(Erf(MulScalar(x, 1/math.Sqrt2)))), 0.5), nil
	case weights.OpClip:
		if node.Min != nil {
			x = MaxScalar(x, f(*node.Min))
		}
		if node.Max != nil {
			x = MinScalar(x, f(*node.Max))
		}
		return x, nil
	case weights.OpHardSigmoid:
		return ClipScalar(AddScalar(MulScalar(x, f(node.Alpha)), f(node.Beta)), 0, 1), nil
	case weights.OpHardSwish:
		return Mul(x, ClipScalar(AddScalar(DivScalar(x, 6), 0.5), 0, 1)), nil
	case weights.OpELU:
		// α·(eᕽ − 1) below 0, of min(x, 0) so that the branch Where drops cannot overflow (its gradient would be
		// 0·∞). gomlx has Expm1 but not its gradient.
		neg := MulScalar(AddScalar(Exp(MinScalar(x, 0)), -1), f(node.Alpha))
		return Where(GreaterThan(x, ZerosLike(x)), x, neg), nil
	case weights.OpSoftplus:
		return Softplus(x), nil
	case weights.OpSoftmax, weights.OpLogSoftmax:
		// Only a classifier's last layer: the engine takes its input as the logits (softmax and log-softmax keep
		// the argmax and give the same softmax), and so does everything here that reads a classifier's output
		// (PredictiveGraph's softmax, the training loss's log-softmax).
		return x, nil
	case weights.OpIdentity:
		return x, nil
	case weights.OpGlobalAvgPool:
		n := x.Shape().Dimensions[1]
		return DivScalar(ReduceSum(Reshape(x, in.C, in.H*in.W, n), 1), float64(in.H*in.W)), nil
	case weights.OpGlobalMaxPool:
		n := x.Shape().Dimensions[1]
		return ReduceMax(Reshape(x, in.C, in.H*in.W, n), 1), nil
	case weights.OpBatchNorm:
		// Eval mode, folded: y = x·scale[c] + shift[c].
		n := x.Shape().Dimensions[1]
		scale, shift := p(x.Graph(), node.Weights), p(x.Graph(), node.Bias)
		y := Add(Mul(Reshape(x, in.C, in.H*in.W, n), Reshape(scale, in.C, 1, 1)), Reshape(shift, in.C, 1, 1))
		return Reshape(y, out.Size(), n), nil
	}
	// A layer of format 1: NetworkGraph's, as a chain of one (without its name and inputs, already resolved).
	l := node.Layer
	l.Name, l.Inputs = "", nil
	if len(ins) != 1 {
		return nil, fmt.Errorf("it reads %d inputs: one", len(ins))
	}
	y, s, err := NetworkGraph(p, []weights.Layer{l}, in, x, masks, dropout)
	if err != nil {
		return nil, err
	}
	if s.Size() != out.Size() {
		return nil, fmt.Errorf("it gives %v, the graph says %v", s, out)
	}
	return y, nil
}

// channelMul multiplies image x [s.Size(), N] by one value per channel, v [s.C, N].
func channelMul(x *Node, s weights.Shape, v *Node) *Node {
	n := x.Shape().Dimensions[1]
	return Reshape(Mul(Reshape(x, s.C, s.H*s.W, n), Reshape(v, s.C, 1, n)), s.Size(), n)
}

// isChain says whether NetworkGraph builds layers one after another: none names what it reads and each is a
// layer of format 1 (NetworkGraph's own).
func isChain(layers []weights.Layer) bool {
	for _, l := range layers {
		if len(l.Inputs) > 0 {
			return false
		}
		switch l.Op {
		case weights.OpDense, weights.OpConv, weights.OpConvTranspose, weights.OpMaxPool, weights.OpAvgPool,
			weights.OpUpsample, weights.OpReLU, weights.OpLeakyReLU, weights.OpSigmoid, weights.OpTanh,
			weights.OpFlatten, weights.OpReshape, weights.OpDropout:
		default:
			return false
		}
	}
	return true
}

// graphNetwork is NetworkGraph for layers that are not a chain of format 1: the resolved graph's nodes, of which
// the last is the output.
func graphNetwork(p Tensors, layers []weights.Layer, in weights.Shape, x *Node, masks Masks, dropouts int) (*Node, weights.Shape, error) {
	g, err := ResolveNetwork(layers, in)
	if err != nil {
		return nil, in, err
	}
	values := make([]*Node, len(g.Nodes))
	if err := fillNodes(p, g, x, masks, dropouts, values, nil); err != nil {
		return nil, in, err
	}
	return values[len(values)-1], g.Out, nil
}
