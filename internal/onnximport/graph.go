//go:build !js

package onnximport

import (
	"fmt"
	"strings"

	"github.com/deltaclue/deltaclue/internal/onnxfile"
	"github.com/deltaclue/deltaclue/weights"
)

// The walk of the graph. Every ONNX value that depends on the network's input is an expr: a layer's output, or
// an elementwise node of such values and constants that is made into layers only when a layer reads it (so that
// GELU's five ops, or SiLU's two, become one layer; an affine becomes its layer's weights), or a Pad waiting for
// its convolution. The nodes are visited in the file's order, which ONNX makes topological, so a layer is made
// after every layer it reads: the network's list of layers is a topological order, as the description needs.

// expr is an activation: a value of the graph that depends on the network's input.
type expr struct {
	shape weights.Shape
	// made: the layer that gives it (−1 for the network's input).
	made  bool
	layer int
	// Otherwise, node is the elementwise node it is the output of, in its operands.
	node *onnxfile.Node
	in   []operand
	// pad is a Pad's zero padding (height, width) of base, for the convolution or average pool that reads it
	// (PyTorch exports AvgPool2d(padding=p) as Pad, then AveragePool).
	pad  *[2]int
	base *expr
	// readers counts the inputs of nodes that read it, or an identity of it, and the graph's output.
	readers int
}

// operand is one input of a node: an activation, or a constant (neither for an input left out).
type operand struct {
	x *expr
	k *onnxfile.Tensor
}

// input is what a layer reads: a layer's output (−1 the network's input), its shape, and a Pad's padding.
type input struct {
	layer int
	shape weights.Shape
	pad   [2]int
}

// live lists the nodes the graph's output depends on, in order, and counts who reads each value: a node
// nothing needs makes no layer (nothing would read it), and an affine may fold into the layer before it only
// when it is that layer's one reader. Shape reads no values, only their shape.
func (c *converter) live(nodes []onnxfile.Node, out string) []onnxfile.Node {
	need := map[string]bool{out: true}
	keep := make([]bool, len(nodes))
	for i := len(nodes) - 1; i >= 0; i-- {
		for _, o := range nodes[i].Outputs {
			if o != "" && need[o] {
				keep[i] = true
			}
		}
		if keep[i] {
			for _, name := range nodes[i].Inputs {
				need[name] = true
			}
		}
	}
	c.readers = map[string]int{out: 1}
	var live []onnxfile.Node
	for i, n := range nodes {
		if !keep[i] {
			continue
		}
		if len(n.Outputs) == 0 {
			n.Outputs = []string{""}
		}
		live = append(live, n)
		if n.Op == "Shape" {
			continue
		}
		for _, name := range n.Inputs {
			c.readers[name]++
		}
	}
	return live
}

// bind names the value x: a fresh one reads as many readers as the name has; an identity of an earlier value
// adds the name's readers to that value's, less the identity node itself.
func (c *converter) bind(name string, x *expr, fresh bool) {
	if fresh {
		x.readers = c.readers[name]
	} else {
		x.readers += c.readers[name] - 1
	}
	c.values[name] = x
}

// operands are a node's inputs, and how many are activations; an input that is neither an activation nor a
// constant is refused.
func (c *converter) operands(n *onnxfile.Node) ([]operand, int, error) {
	ops := make([]operand, len(n.Inputs))
	acts := 0
	for i, name := range n.Inputs {
		switch {
		case name == "":
		case c.values[name] != nil:
			ops[i].x = c.values[name]
			acts++
		case c.consts[name] != nil:
			ops[i].k = c.consts[name]
		default:
			return nil, 0, fmt.Errorf("its input %q is neither an activation nor a constant the import read", name)
		}
	}
	return ops, acts, nil
}

// push appends a layer reading the layers from (−1 the network's input) and giving out, named hint should it
// need a name, and returns its output.
func (c *converter) push(l weights.Layer, from []int, out weights.Shape, hint string) (*expr, error) {
	if len(c.net.Layers) >= weights.MaxLayers {
		return nil, fmt.Errorf("the network would have more than %d layers (weights.MaxLayers)", weights.MaxLayers)
	}
	if out.Size() < 1 || out.Size() > weights.MaxLayerValues {
		return nil, fmt.Errorf("it gives %v, %d values; a layer may give 1 to %d", out, out.Size(), weights.MaxLayerValues)
	}
	x := &expr{shape: out, made: true, layer: len(c.net.Layers)}
	c.net.Layers = append(c.net.Layers, l)
	c.from = append(c.from, from)
	c.hints = append(c.hints, hint)
	c.gives = append(c.gives, x)
	return x, nil
}

// add appends a layer of one input whose tensors (if any) are already in place.
func (c *converter) add(l weights.Layer, in input, hint string) (*expr, error) {
	out, err := l.OutShape(in.shape)
	if err != nil {
		return nil, err
	}
	return c.push(l, []int{in.layer}, out, hint)
}

// weighted appends a layer of one input with its weights [wShape] and bias [bShape] (zeros when nil), named as
// layer i's.
func (c *converter) weighted(l weights.Layer, in input, w []float32, wShape []int, b []float32, bShape []int, hint string) (*expr, error) {
	i := len(c.net.Layers)
	l.Weights = fmt.Sprintf("%s/%d/weights", c.opt.Prefix, i)
	l.Bias = fmt.Sprintf("%s/%d/biases", c.opt.Prefix, i)
	if bShape[0] > weights.MaxLayerValues {
		return nil, fmt.Errorf("%d output channels; a layer may give at most %d values", bShape[0], weights.MaxLayerValues)
	}
	if b == nil {
		b = make([]float32, bShape[0])
	}
	if n := int64(len(w)) + int64(len(b)); c.params+n > weights.MaxParameters {
		return nil, fmt.Errorf("the network would hold %d parameters with this layer's %d; a network holds at most %d (weights.MaxParameters, 256 MB of float32)",
			c.params+n, n, weights.MaxParameters)
	}
	x, err := c.add(l, in, hint)
	if err != nil {
		return nil, err
	}
	c.params += int64(len(w)) + int64(len(b))
	c.tensors[l.Weights] = len(c.net.Tensors)
	c.net.Tensors = append(c.net.Tensors, weights.Named{Name: l.Weights, Shape: wShape, Values: w})
	c.tensors[l.Bias] = len(c.net.Tensors)
	c.net.Tensors = append(c.net.Tensors, weights.Named{Name: l.Bias, Shape: bShape, Values: b})
	return x, nil
}

// materialize makes the activation x into layers, once, and returns the layer that gives it.
func (c *converter) materialize(x *expr) (int, error) {
	if x.made {
		if x.layer >= 0 && c.gives[x.layer] != x {
			return 0, fmt.Errorf("a value folded into the layer after it is read again") // guarded by readers
		}
		return x.layer, nil
	}
	if x.pad != nil {
		return 0, fmt.Errorf("it follows a Pad; the import reads a Pad only as the padding of the convolution or average pool right after it")
	}
	y, err := c.makeElementwise(x)
	if err != nil {
		return 0, atNode(x.node, -1, err)
	}
	if y != x { // a new layer's output: x is now that layer's
		x.made, x.layer = true, y.layer
		c.gives[y.layer] = x
	}
	return x.layer, nil
}

// dropoutBefore places MC dropout of the rate given on each activation a node reads (-dropout NODE=RATE): a
// dropout layer on the edge, which the node reads instead.
func (c *converter) dropoutBefore(ops []operand, rate float64) error {
	done := map[*expr]*expr{}
	for i, o := range ops {
		if o.x == nil {
			continue
		}
		if d := done[o.x]; d != nil {
			ops[i].x = d
			continue
		}
		x := o.x
		if x.pad != nil {
			x = x.base
		}
		k, err := c.materialize(x)
		if err != nil {
			return err
		}
		d, err := c.add(weights.Layer{Op: weights.OpDropout, Rate: rate}, input{layer: k, shape: x.shape}, "")
		if err != nil {
			return err
		}
		d.readers = 1
		if o.x.pad != nil {
			d = &expr{shape: d.shape, pad: o.x.pad, base: d, readers: 1}
		}
		done[o.x], ops[i].x = d, d
	}
	return nil
}

// first materializes the activation a layer node reads, its first input; the others must be constants (its
// weights, a shape, pads, scales). Only a convolution or an average pool reads a Pad's output, as its padding.
func (c *converter) first(n *onnxfile.Node, ops []operand) ([]input, error) {
	x := ops[0].x
	if x == nil {
		return nil, fmt.Errorf("its first input is a constant where the import reads the activation")
	}
	for i, o := range ops[1:] {
		if o.x == nil {
			continue
		}
		if n.Op == "MatMul" || n.Op == "Gemm" {
			return nil, fmt.Errorf("a product of two activations (attention's scores, or its weights times the values); the import reads %s by constant weights, a dense layer", n.Op)
		}
		return nil, fmt.Errorf("its input %d is an activation where the import reads a constant (weights, a shape, pads or scales)", i+1)
	}
	var pad [2]int
	if x.pad != nil {
		if n.Op != "Conv" && n.Op != "AveragePool" { // a transposed convolution's pads crop its output
			return nil, fmt.Errorf("it follows a Pad; the import reads a Pad only as the padding of the convolution or average pool right after it")
		}
		pad, x = *x.pad, x.base
	}
	k, err := c.materialize(x)
	if err != nil {
		return nil, err
	}
	return []input{{layer: k, shape: x.shape, pad: pad}}, nil
}

// all materializes every input of a merge (Concat), which must all be activations.
func (c *converter) all(ops []operand) ([]input, error) {
	in := make([]input, len(ops))
	for i, o := range ops {
		if o.x == nil {
			return nil, fmt.Errorf("its input %d is a constant; the import reads a concatenation of activations", i)
		}
		if o.x.pad != nil {
			return nil, fmt.Errorf("it follows a Pad; the import reads a Pad only as the padding of the convolution or average pool right after it")
		}
		k, err := c.materialize(o.x)
		if err != nil {
			return nil, err
		}
		in[i] = input{layer: k, shape: o.x.shape}
	}
	return in, nil
}

// merge appends an add or a mul of two activations, or a concat of several, checking their shapes as ONNX
// broadcasts them (a vector is [N, C], an image [N, C, H, W]).
func (c *converter) merge(op string, in []input, hint string) (*expr, error) {
	from := make([]int, len(in))
	out := in[0].shape
	for i, x := range in {
		from[i] = x.layer
		if i == 0 {
			continue
		}
		a, b := in[0].shape, x.shape
		same := a.Flat == b.Flat && a.C == b.C && a.H == b.H && a.W == b.W
		switch {
		case op == weights.OpConcat && a.Flat == b.Flat && a.H == b.H && a.W == b.W:
			out.C += b.C
		case op == weights.OpAdd && same:
		case op == weights.OpMul && same:
		case op == weights.OpMul && !a.Flat && !b.Flat && a.C == b.C && b.H == 1 && b.W == 1:
		case op == weights.OpMul && !a.Flat && !b.Flat && a.C == b.C && a.H == 1 && a.W == 1:
			out = b
		default:
			what := map[string]string{weights.OpAdd: "an Add of two activations of one shape (a residual connection)",
				weights.OpMul:    "a Mul of two activations of one shape, or of an image by one value per channel (squeeze-and-excitation)",
				weights.OpConcat: "a Concat of the channels of activations of one height and width"}[op]
			return nil, fmt.Errorf("its inputs are %v and %v; the import reads %s", a, b, what)
		}
	}
	return c.push(weights.Layer{Op: op}, from, out, hint)
}

// link names the layers another reads out of order and lists what each of those readers reads: a layer that
// reads the one before it alone names nothing, so a chain's description is a chain's (format 1).
func (c *converter) link() {
	names := make([]string, len(c.net.Layers))
	taken := map[string]bool{weights.InputName: true}
	nameOf := func(k int) string {
		if k < 0 {
			return weights.InputName
		}
		if names[k] == "" {
			names[k] = uniqueName(c.hints[k], k, taken)
			taken[names[k]] = true
		}
		return names[k]
	}
	for i, from := range c.from {
		if len(from) == 1 && from[0] == i-1 {
			continue
		}
		ins := make([]string, len(from))
		for j, k := range from {
			ins[j] = nameOf(k)
		}
		c.net.Layers[i].Inputs = ins
	}
	for k, name := range names {
		c.net.Layers[k].Name = name
	}
}

// uniqueName is a layer's name from its node's, printable ASCII without spaces, or "layerK".
func uniqueName(hint string, k int, taken map[string]bool) string {
	hint = strings.Map(func(r rune) rune {
		if r <= ' ' || r > '~' {
			return '_'
		}
		return r
	}, hint)
	if len(hint) > 100 {
		hint = hint[len(hint)-100:]
	}
	for _, name := range []string{hint, fmt.Sprintf("%s#%d", hint, k)} {
		if hint != "" && !taken[name] {
			return name
		}
	}
	name := fmt.Sprintf("layer%d", k)
	for i := 0; taken[name]; i++ {
		name = fmt.Sprintf("layer%d.%d", k, i)
	}
	return name
}
