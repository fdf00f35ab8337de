//go:build !js

// Package onnximport turns an ONNX graph exported from PyTorch (torch.onnx.export, opsets 13–18) into one of a
// models description's networks: its layers (weights.Layer) and their float32 tensors, named as the layers name
// them. It reads a graph of layers (residual connections, concatenations, squeeze-and-excitation), the shape
// of every value known, from the ops PyTorch emits for them: graph.go walks the values, layers.go makes the
// layers that read an activation, activations.go the elementwise ops (an activation, GELU and SiLU written as
// several ops, an affine folded into the layer before it), and the constant shape arithmetic an exporter writes
// around a flatten or a view is folded here. Anything else is refused in one sentence that names the node, its
// op and what is read.
package onnximport

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/deltaclue/deltaclue/internal/onnxfile"
	"github.com/deltaclue/deltaclue/weights"
)

// The operator sets the import reads: those torch.onnx.export writes from torch 1.13 (13–17) to today's (18).
const (
	MinOpset = 13
	MaxOpset = 18
)

// Supported lists the ONNX ops the import reads, for its refusals.
var Supported = []string{"Gemm", "MatMul by constant weights (with Add)", "Conv and ConvTranspose (with group and dilations)",
	"MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool", "ReduceMean/ReduceMax over the height and width",
	"BatchNormalization", "Add, Sub, Mul and Div by a constant of one value or one per channel",
	"Add and Mul of two activations (a residual connection, squeeze-and-excitation)", "Concat of channels",
	"Relu", "LeakyRelu", "Sigmoid", "Tanh", "Clip (ReLU6)", "HardSigmoid", "HardSwish", "Elu", "Softplus",
	"GELU as Erf or Tanh ops", "SiLU as Sigmoid and Mul", "Softmax/LogSoftmax (last)", "Flatten", "Reshape",
	"Pad (before a convolution)", "Dropout", "Identity", "Resize/Upsample (nearest, whole factors)",
	"and constant shape arithmetic (Constant, Shape, Gather, Unsqueeze, Squeeze, Concat, Slice, Cast, Add, Sub, Mul, Div)"}

// Network is a converted graph: the shape it takes and gives, its layers, their tensors, and the final op the
// import took off (Softmax, LogSoftmax or Sigmoid, "" for none): the engine's classifier gives logits and
// applies the softmax itself, and a Bernoulli decoder gives logits whose sigmoid is the image.
type Network struct {
	In, Out weights.Shape
	Layers  []weights.Layer
	Tensors []weights.Named
	Final   string
}

// Options are what the file cannot say.
type Options struct {
	// Prefix names the network's tensors: layer i's are Prefix/i/weights and Prefix/i/biases.
	Prefix string
	// Dropout places MC dropout where an eval-mode export dropped it: before the node named (its input
	// masked), at the rate given. A Dropout node the file keeps (a training-mode export) needs none.
	Dropout map[string]float64
}

// batchDim stands for the batch dimension in folded shape arithmetic (Shape of an activation).
const batchDim = math.MinInt64 / 4

// converter is one conversion's state: every value the graph has computed so far (activations and constants)
// and the layers made of them.
type converter struct {
	opt     Options
	net     Network
	consts  map[string]*onnxfile.Tensor
	values  map[string]*expr // the activations, by ONNX value name
	readers map[string]int   // how many inputs of the nodes the output needs read each value (Shape's aside)
	from    [][]int          // what each layer reads: earlier layers, −1 the network's input
	hints   []string         // each layer's name, should it need one: its node's
	gives   []*expr          // the value each layer gives (an affine folded into it moves it on)
	tensors map[string]int   // a tensor's index in net.Tensors
	params  int64
	used    map[string]bool
}

// nodeError is an error that already names its node: one about a node whose value a later node made into a layer.
type nodeError struct{ error }

// atNode names node n (its index i when it has no name) in err, unless err names its node already.
func atNode(n *onnxfile.Node, i int, err error) error {
	if errors.As(err, new(nodeError)) {
		return err
	}
	where := n.Name
	switch {
	case where == "" && i >= 0:
		where = fmt.Sprintf("#%d", i)
	case where == "":
		where = "(unnamed)"
	}
	return nodeError{fmt.Errorf("node %s (%s): %w", where, n.Op, err)}
}

// Convert converts m's graph.
func Convert(m *onnxfile.Model, opt Options) (*Network, error) {
	if v := m.Opset(); v < MinOpset || v > MaxOpset {
		return nil, fmt.Errorf("the model was exported with opset %d; the import reads opsets %d to %d (torch.onnx.export(…, opset_version=17))", v, MinOpset, MaxOpset)
	}
	g := m.Graph
	if len(g.Inputs) != 1 {
		names := make([]string, len(g.Inputs))
		for i, v := range g.Inputs {
			names[i] = v.Name
		}
		return nil, fmt.Errorf("the graph takes %d inputs (%s); the import reads a network of one input", len(g.Inputs), strings.Join(names, ", "))
	}
	if len(g.Outputs) != 1 {
		names := make([]string, len(g.Outputs))
		for i, v := range g.Outputs {
			names[i] = v.Name
		}
		return nil, fmt.Errorf("the graph gives %d outputs (%s); export one (an encoder to the latent mean alone)", len(g.Outputs), strings.Join(names, ", "))
	}
	in := g.Inputs[0]
	if in.ElemType != onnxfile.Float {
		return nil, fmt.Errorf("the input %q is of element type %d, not float32", in.Name, in.ElemType)
	}
	var shape weights.Shape
	switch d := in.Dims; {
	case len(d) == 4 && d[1] > 0 && d[2] > 0 && d[3] > 0 && d[0] != 0 && d[1]*d[2]*d[3] <= weights.MaxLayerValues:
		shape = weights.Image(int(d[1]), int(d[2]), int(d[3]))
	case len(d) == 2 && d[1] > 0 && d[0] != 0 && d[1] <= weights.MaxLayerValues:
		shape = weights.Vector(int(d[1]))
	default:
		return nil, fmt.Errorf("the input %q has shape %s; the import reads N×C×H×W images (or N×L latent points for a decoder) with fixed C, H, W", in.Name, dimsString(d))
	}
	c := &converter{opt: opt, consts: map[string]*onnxfile.Tensor{}, values: map[string]*expr{}, tensors: map[string]int{}, used: map[string]bool{}}
	c.net.In = shape
	for name, t := range g.Initializers {
		c.consts[name] = t
	}
	out := g.Outputs[0].Name
	nodes := c.live(g.Nodes, out)
	if err := refuseKinds(nodes); err != nil {
		return nil, err
	}
	c.bind(in.Name, &expr{shape: shape, made: true, layer: -1}, true)
	for i, n := range nodes {
		if err := c.node(&nodes[i], n.Outputs[0] == out); err != nil {
			return nil, atNode(&nodes[i], i, err)
		}
	}
	if err := c.finish(out); err != nil {
		return nil, err
	}
	for name := range opt.Dropout {
		if !c.used[name] {
			return nil, fmt.Errorf("-dropout names node %q, which the graph does not have as a layer", name)
		}
	}
	c.link()
	if _, err := (weights.Network{Layers: c.net.Layers}).Graph("the converted network", c.net.In, nil); err != nil {
		return nil, err
	}
	return &c.net, nil
}

// finish makes the graph's output the network's last layer.
func (c *converter) finish(out string) error {
	x := c.values[out]
	switch {
	case x == nil && c.consts[out] != nil:
		return fmt.Errorf("the graph's output %q is a constant", out)
	case x == nil:
		return fmt.Errorf("the graph's output %q is made by no node", out)
	case x.pad != nil:
		return fmt.Errorf("the graph's output %q is a Pad's", out)
	}
	k, err := c.materialize(x)
	if err != nil {
		return err
	}
	if k < 0 {
		return fmt.Errorf("the graph has no layers")
	}
	if k != len(c.net.Layers)-1 {
		return fmt.Errorf("the graph's output %q is not its last layer's", out)
	}
	c.net.Out = x.shape
	return nil
}

// node converts one node: a node of constants is folded, one that reads an activation becomes a value of
// the graph (an elementwise op, made into a layer when a layer reads it) or a layer.
func (c *converter) node(n *onnxfile.Node, output bool) error {
	if n.Domain != "" && n.Domain != "ai.onnx" {
		return fmt.Errorf("an op of domain %q; the import reads the standard ops: %s", n.Domain, strings.Join(Supported, ", "))
	}
	ops, acts, err := c.operands(n)
	if err != nil {
		return err
	}
	if acts == 0 {
		return c.fold(*n)
	}
	if len(n.Outputs) == 0 || n.Outputs[0] == "" {
		return fmt.Errorf("it has no output")
	}
	if n.Op == "Shape" { // the activation's shape, for a flatten's or view's arithmetic
		return c.shapeOf(n, ops)
	}
	if rate, ok := c.opt.Dropout[n.Name]; ok {
		c.used[n.Name] = true
		if err := c.dropoutBefore(ops, rate); err != nil {
			return err
		}
	}
	x, fresh, err := c.apply(n, ops, output)
	if err != nil {
		return err
	}
	c.bind(n.Outputs[0], x, fresh)
	return nil
}

// apply converts a node that reads an activation into the value it gives, fresh unless it is one of its
// inputs' (an identity).
func (c *converter) apply(n *onnxfile.Node, ops []operand, output bool) (x *expr, fresh bool, err error) {
	switch n.Op {
	case "Identity":
		return ops[0].x, false, nil
	case "Cast":
		if to := n.Attrs["to"].I; to != onnxfile.Float {
			return nil, false, fmt.Errorf("a cast of the activation to type %d; the engine computes in float32", to)
		}
		return ops[0].x, false, nil
	case "Sigmoid", "Softmax", "LogSoftmax":
		if output {
			x, err := c.final(n, ops)
			return x, false, err
		}
		if n.Op != "Sigmoid" {
			return nil, false, fmt.Errorf("a %s inside the network; the import reads one only as its last op", n.Op)
		}
	}
	if elementwise[n.Op] {
		x, err := c.elementwise(n, ops)
		return x, true, err
	}
	if n.Op == "Pad" {
		x, err := c.padNode(n, ops)
		return x, true, err
	}
	if !layerMakers[n.Op] {
		return nil, false, unsupported(n.Op)
	}
	var in []input
	if n.Op == "Concat" {
		in, err = c.all(ops)
	} else {
		in, err = c.first(n, ops)
	}
	if err != nil {
		return nil, false, err
	}
	if x, err = c.layerOf(n, in); x == nil && err == nil { // an identity: a flatten of a vector, a dropout of rate 0
		return ops[0].x, false, nil
	}
	return x, true, err
}

// final takes the graph's last op off when it is a classifier's softmax or a Bernoulli decoder's sigmoid.
func (c *converter) final(n *onnxfile.Node, ops []operand) (*expr, error) {
	x := ops[0].x
	if len(ops) != 1 || x == nil || x.pad != nil {
		return nil, fmt.Errorf("a %s of %d inputs", n.Op, len(ops))
	}
	if n.Op != "Sigmoid" && !x.shape.Flat {
		return nil, fmt.Errorf("a softmax over an image; the import reads a classifier's softmax over its flat outputs")
	}
	if a, ok := n.Attrs["axis"]; ok && a.I != -1 && a.I != 1 {
		return nil, fmt.Errorf("a softmax over axis %d, not the classes'", a.I)
	}
	c.net.Final = n.Op
	return x, nil
}

// kinds are the ops of networks the engine does not run, and what they are.
var kinds = map[string]string{
	"LSTM": "a recurrent layer", "GRU": "a recurrent layer", "RNN": "a recurrent layer",
	"Loop": "control flow", "If": "control flow", "Scan": "control flow",
	"NonZero": "an op whose output's shape depends on the data", "TopK": "an op whose output's shape depends on the data",
	"Unique": "an op whose output's shape depends on the data", "NonMaxSuppression": "an op whose output's shape depends on the data",
	"Compress":  "an op whose output's shape depends on the data",
	"Attention": "an op of attention", "MultiHeadAttention": "an op of attention", "LayerNormalization": "an op of attention",
	"Einsum": "an op of attention",
}

// unsupported refuses an op the import does not read, saying what it reads.
func unsupported(op string) error {
	why := "the import does not read this op"
	if k, ok := kinds[op]; ok {
		why = k + ", which the engine does not run"
	}
	return fmt.Errorf("%s; the import reads %s", why, strings.Join(Supported, ", "))
}

// refuseKinds refuses the first node the output needs that is of a kind of network the engine does not run (a
// recurrent layer, control flow, a shape that depends on the data, attention's ops) before the walk reaches
// it: that says more than a refusal of the ops an exporter writes around it (the reshape to a sequence, the
// ConstantOfShape of an LSTM's initial state).
func refuseKinds(nodes []onnxfile.Node) error {
	for i := range nodes {
		if _, ok := kinds[nodes[i].Op]; ok && (nodes[i].Domain == "" || nodes[i].Domain == "ai.onnx") {
			return atNode(&nodes[i], i, unsupported(nodes[i].Op))
		}
	}
	return nil
}

// shapeOf folds Shape of an activation: [N, C] or [N, C, H, W], N standing for the batch.
func (c *converter) shapeOf(n *onnxfile.Node, ops []operand) error {
	x := ops[0].x
	if x == nil || x.pad != nil {
		return fmt.Errorf("a Shape of what is no activation the import reads")
	}
	dims := []int64{batchDim, int64(x.shape.C)}
	if !x.shape.Flat {
		dims = append(dims, int64(x.shape.H), int64(x.shape.W))
	}
	start, end := int64(0), int64(len(dims))
	if a, ok := n.Attrs["start"]; ok {
		start = a.I
	}
	if a, ok := n.Attrs["end"]; ok {
		end = a.I
	}
	clamp := func(i int64) int64 {
		if i < 0 {
			i += int64(len(dims))
		}
		return max(0, min(i, int64(len(dims))))
	}
	start, end = clamp(start), max(clamp(start), clamp(end))
	dims = dims[start:end]
	return c.setConst(*n, &onnxfile.Tensor{DataType: onnxfile.Int64, Dims: []int64{int64(len(dims))}, Int: dims})
}

// bias is a Gemm's or a convolution's optional third input, nil when it has none.
func (c *converter) bias(n *onnxfile.Node) ([]float32, error) {
	if arg(n, 2) == "" {
		return nil, nil
	}
	t, err := c.floats(arg(n, 2), "its bias")
	if err != nil {
		return nil, err
	}
	return t.Float, nil
}

// floats is a constant input of float values (weights, biases, rates, scales), refused in a sentence when it is
// not one or holds NaN or infinite values.
func (c *converter) floats(name, what string) (*onnxfile.Tensor, error) {
	t, err := c.constant(name, what)
	if err != nil {
		return nil, err
	}
	if t.Int != nil || len(t.Float) != t.Len() {
		return nil, fmt.Errorf("%s (%q) is not a float tensor", what, name)
	}
	return t, nil
}

// ints is a constant input of integers (shapes, pads, sizes, axes).
func (c *converter) ints(name, what string) (*onnxfile.Tensor, error) {
	t, err := c.constant(name, what)
	if err != nil {
		return nil, err
	}
	if t.Float != nil || len(t.Int) != t.Len() {
		return nil, fmt.Errorf("%s (%q) is not an integer tensor", what, name)
	}
	return t, nil
}

// constant is a constant input of a node (an initialiser or a folded value), refused in a sentence when it is
// not one; float32 values for a float tensor.
func (c *converter) constant(name, what string) (*onnxfile.Tensor, error) {
	if name == "" {
		return nil, fmt.Errorf("it has no input for %s", what)
	}
	t, ok := c.consts[name]
	if !ok {
		if c.values[name] != nil {
			return nil, fmt.Errorf("%s (%q) is an activation, not a constant of the file", what, name)
		}
		return nil, fmt.Errorf("%s (%q) is not a constant of the file", what, name)
	}
	for _, v := range t.Float {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return nil, fmt.Errorf("%s (%q) holds NaN or infinite values", what, name)
		}
	}
	return t, nil
}

func (c *converter) setConst(n onnxfile.Node, t *onnxfile.Tensor) error {
	if len(n.Outputs) != 1 {
		return fmt.Errorf("%d outputs", len(n.Outputs))
	}
	t.Name = n.Outputs[0]
	c.consts[t.Name] = t
	return nil
}

// fold computes a node whose inputs are all constants: the shape arithmetic around a flatten or a view.
func (c *converter) fold(n onnxfile.Node) error {
	in := make([]*onnxfile.Tensor, len(n.Inputs))
	for i, name := range n.Inputs {
		if name == "" {
			continue
		}
		in[i] = c.consts[name]
	}
	ints := func(i int) ([]int64, error) {
		if i >= len(in) || in[i] == nil {
			return nil, fmt.Errorf("a missing input %d", i)
		}
		if in[i].Int != nil || in[i].Len() == 0 {
			return in[i].Int, nil
		}
		return nil, fmt.Errorf("input %d is not integer", i)
	}
	intsOut := func(v []int64, dims []int64) error {
		return c.setConst(n, &onnxfile.Tensor{DataType: onnxfile.Int64, Dims: dims, Int: v})
	}
	switch n.Op {
	case "Constant":
		a, ok := n.Attrs["value"]
		switch {
		case ok && a.T != nil:
			t := *a.T
			return c.setConst(n, &t)
		case n.Attrs["value_int"].Type == 2:
			return intsOut([]int64{n.Attrs["value_int"].I}, nil)
		case n.Attrs["value_ints"].Type == 7:
			v := n.Attrs["value_ints"].Ints
			return intsOut(v, []int64{int64(len(v))})
		case n.Attrs["value_float"].Type == 1:
			return c.setConst(n, &onnxfile.Tensor{DataType: onnxfile.Float, Float: []float32{n.Attrs["value_float"].F}})
		}
		return fmt.Errorf("a constant of a kind the import does not read")
	case "Identity":
		if len(in) != 1 || in[0] == nil {
			return fmt.Errorf("%d inputs", len(in))
		}
		t := *in[0]
		return c.setConst(n, &t)
	case "Cast":
		if len(in) != 1 || in[0] == nil {
			return fmt.Errorf("%d inputs", len(in))
		}
		t := *in[0]
		switch to := n.Attrs["to"].I; {
		case to == onnxfile.Int64 || to == onnxfile.Int32:
			if t.Int == nil {
				t.Int = make([]int64, len(t.Float))
				for i, v := range t.Float {
					t.Int[i] = int64(v)
				}
				t.Float = nil
			}
		case to == onnxfile.Float || to == onnxfile.Double:
			if t.Float == nil {
				t.Float = make([]float32, len(t.Int))
				for i, v := range t.Int {
					t.Float[i] = float32(v)
				}
				t.Int = nil
			}
		default:
			return fmt.Errorf("a cast to type %d", to)
		}
		return c.setConst(n, &t)
	case "Gather":
		v, err := ints(0)
		if err != nil {
			return err
		}
		idx, err := ints(1)
		if err != nil {
			return err
		}
		if ax := n.Attrs["axis"].I; ax != 0 || len(in[0].Dims) > 1 {
			return fmt.Errorf("a gather along axis %d of %s; the import folds gathers from a shape", ax, dimsString(in[0].Dims))
		}
		out := make([]int64, len(idx))
		for i, j := range idx {
			if j < 0 {
				j += int64(len(v))
			}
			if j < 0 || j >= int64(len(v)) {
				return fmt.Errorf("index %d of %d values", idx[i], len(v))
			}
			out[i] = v[j]
		}
		return intsOut(out, in[1].Dims)
	case "Unsqueeze", "Squeeze":
		v, err := ints(0)
		if err != nil {
			return err
		}
		if len(in[0].Dims) > 1 {
			return fmt.Errorf("a %s of %s; the import folds them on scalars and vectors", n.Op, dimsString(in[0].Dims))
		}
		if n.Op == "Unsqueeze" {
			return intsOut(v, []int64{int64(len(v))})
		}
		return intsOut(v, nil)
	case "Concat":
		var out []int64
		for i := range in {
			v, err := ints(i)
			if err != nil {
				return err
			}
			out = append(out, v...)
		}
		return intsOut(out, []int64{int64(len(out))})
	case "Slice":
		v, err := ints(0)
		if err != nil {
			return err
		}
		starts, err := ints(1)
		if err != nil {
			return err
		}
		ends, err := ints(2)
		if err != nil {
			return err
		}
		if len(starts) != 1 || len(ends) != 1 || len(in) > 4 && in[4] != nil && (len(in[4].Int) != 1 || in[4].Int[0] != 1) {
			return fmt.Errorf("a slice the import does not fold")
		}
		clamp := func(x int64) int64 {
			if x < 0 {
				x += int64(len(v))
			}
			return max(0, min(x, int64(len(v))))
		}
		a, b := clamp(starts[0]), clamp(ends[0])
		if b < a {
			b = a
		}
		out := slices.Clone(v[a:b])
		return intsOut(out, []int64{int64(len(out))})
	case "Add", "Sub", "Mul", "Div":
		a, err := ints(0)
		if err != nil {
			return err
		}
		b, err := ints(1)
		if err != nil {
			return err
		}
		if len(b) == 1 && len(a) > 1 {
			b = slices.Repeat(b, len(a))
		}
		if len(a) != len(b) {
			return fmt.Errorf("shapes %s and %s", dimsString(in[0].Dims), dimsString(in[1].Dims))
		}
		out := make([]int64, len(a))
		for i := range a {
			if a[i] == batchDim || b[i] == batchDim {
				return fmt.Errorf("arithmetic on the batch size")
			}
			switch n.Op {
			case "Add":
				out[i] = a[i] + b[i]
			case "Sub":
				out[i] = a[i] - b[i]
			case "Mul":
				out[i] = a[i] * b[i]
			case "Div":
				if b[i] == 0 {
					return fmt.Errorf("a division by zero")
				}
				out[i] = a[i] / b[i]
			}
		}
		return intsOut(out, in[0].Dims)
	}
	return fmt.Errorf("an op on constants the import does not fold; the import reads %s", strings.Join(Supported, ", "))
}

// arg is a node's i-th input, "" when it has none there.
func arg(n *onnxfile.Node, i int) string {
	if i < len(n.Inputs) {
		return n.Inputs[i]
	}
	return ""
}

// pair reads a 2-D attribute (strides, dilations, output_padding), def when absent.
func pair(v []int64, def int, what string) ([2]int, error) {
	switch len(v) {
	case 0:
		return [2]int{def, def}, nil
	case 2:
		if v[0] < 0 || v[1] < 0 || v[0] > 1<<20 || v[1] > 1<<20 {
			return [2]int{}, fmt.Errorf("%s %v", what, v)
		}
		return [2]int{int(v[0]), int(v[1])}, nil
	}
	return [2]int{}, fmt.Errorf("%s %v; the import reads 2-D layers", what, v)
}

// pads reads ONNX's [top, left, bottom, right] padding, which must be the same on both sides.
func pads(v []int64) ([2]int, error) {
	switch len(v) {
	case 0:
		return [2]int{}, nil
	case 4:
		if v[0] != v[2] || v[1] != v[3] {
			return [2]int{}, fmt.Errorf("pads %v differ between the sides; the engine pads each side alike", v)
		}
		if v[0] < 0 || v[1] < 0 || v[0] > 1<<20 || v[1] > 1<<20 {
			return [2]int{}, fmt.Errorf("pads %v", v)
		}
		return [2]int{int(v[0]), int(v[1])}, nil
	}
	return [2]int{}, fmt.Errorf("pads %v; the import reads 2-D layers", v)
}

func dimsString(d []int64) string {
	parts := make([]string, len(d))
	for i, v := range d {
		switch {
		case v == batchDim:
			parts[i] = "N"
		case v < 0:
			parts[i] = "?"
		default:
			parts[i] = fmt.Sprint(v)
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
