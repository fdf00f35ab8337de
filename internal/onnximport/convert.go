//go:build !js

// Package onnximport turns an ONNX graph exported from PyTorch (torch.onnx.export, opsets 13–18) into one of a
// models description's networks: its layers (weights.Layer) and their float32 tensors, named as the layers name
// them. It reads a chain of layers, the shape of what flows between them known at every step, from the ops
// PyTorch emits for them, and the constant shape arithmetic an exporter writes around a flatten or a view,
// which it folds. Anything else is refused in one sentence that names the op, the node and what is supported.
package onnximport

import (
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
var Supported = []string{"Gemm", "MatMul (with Add)", "Conv", "ConvTranspose", "MaxPool", "AveragePool",
	"GlobalAveragePool", "BatchNormalization (folded into the layer before)", "Relu", "LeakyRelu", "Sigmoid",
	"Tanh", "Softmax/LogSoftmax (last)", "Flatten", "Reshape", "Dropout", "Identity", "Resize/Upsample (nearest, whole factors)",
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

// converter is one conversion's state: the activation flowing down the chain and everything constant.
type converter struct {
	opt     Options
	net     Network
	live    string        // the value the chain's next layer reads
	shape   weights.Shape // its shape
	dead    map[string]bool
	consts  map[string]*onnxfile.Tensor
	tensors map[string]int // a tensor's index in net.Tensors
	used    map[string]bool
	// pad is a Pad's zero padding (height, width) waiting for the convolution or average pool after it, which
	// takes it as its own (PyTorch exports AvgPool2d(padding=p) as Pad, then AveragePool).
	pad *[2]int
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
	c := &converter{opt: opt, live: in.Name, dead: map[string]bool{}, consts: map[string]*onnxfile.Tensor{}, tensors: map[string]int{}, used: map[string]bool{}}
	switch d := in.Dims; {
	case len(d) == 4 && d[1] > 0 && d[2] > 0 && d[3] > 0 && d[0] != 0:
		c.shape = weights.Image(int(d[1]), int(d[2]), int(d[3]))
	case len(d) == 2 && d[1] > 0 && d[0] != 0:
		c.shape = weights.Vector(int(d[1]))
	default:
		return nil, fmt.Errorf("the input %q has shape %s; the import reads N×C×H×W images (or N×L latent points for a decoder) with fixed C, H, W", in.Name, dimsString(d))
	}
	c.net.In = c.shape
	for name, t := range g.Initializers {
		c.consts[name] = t
	}
	for i, n := range g.Nodes {
		last := i == len(g.Nodes)-1
		if err := c.node(n, last); err != nil {
			where := n.Name
			if where == "" {
				where = fmt.Sprintf("#%d", i)
			}
			return nil, fmt.Errorf("node %s (%s): %w", where, n.Op, err)
		}
	}
	if c.live != g.Outputs[0].Name {
		return nil, fmt.Errorf("the graph's output %q is not the end of its chain of layers (%q)", g.Outputs[0].Name, c.live)
	}
	for name := range opt.Dropout {
		if !c.used[name] {
			return nil, fmt.Errorf("-dropout names node %q, which the graph does not have as a layer", name)
		}
	}
	if len(c.net.Layers) == 0 {
		return nil, fmt.Errorf("the graph has no layers")
	}
	c.net.Out = c.shape
	return &c.net, nil
}

// node converts one node.
func (c *converter) node(n onnxfile.Node, last bool) error {
	if n.Domain != "" && n.Domain != "ai.onnx" {
		return fmt.Errorf("an op of domain %q; the import reads the standard ops: %s", n.Domain, strings.Join(Supported, ", "))
	}
	liveAt := -1
	for i, name := range n.Inputs {
		if c.dead[name] {
			return fmt.Errorf("it reads %q, an earlier layer's output the chain has gone past: the import reads a chain of layers (no skip connections or branches)", name)
		}
		if name == c.live {
			if liveAt >= 0 {
				return fmt.Errorf("it reads %q twice: the import reads a chain of layers", name)
			}
			liveAt = i
		}
	}
	if liveAt < 0 {
		return c.fold(n)
	}
	if n.Op == "Shape" { // the activation's shape, for a flatten's or view's arithmetic
		dims := []int64{batchDim, int64(c.shape.C)}
		if !c.shape.Flat {
			dims = append(dims, int64(c.shape.H), int64(c.shape.W))
		}
		return c.setConst(n, &onnxfile.Tensor{DataType: onnxfile.Int64, Dims: []int64{int64(len(dims))}, Int: dims})
	}
	if liveAt != 0 && n.Op != "Add" {
		return fmt.Errorf("the activation is its input %d, not its first", liveAt)
	}
	if rate, ok := c.opt.Dropout[n.Name]; ok {
		c.used[n.Name] = true
		if err := c.add(weights.Layer{Op: weights.OpDropout, Rate: rate}); err != nil {
			return err
		}
	}
	if len(n.Outputs) == 0 {
		return fmt.Errorf("it has no output")
	}
	pending := c.pad
	if err := c.apply(n, last); err != nil {
		return err
	}
	if pending != nil && c.pad == pending {
		return fmt.Errorf("it follows a Pad; the import reads a Pad only as the padding of the convolution or average pool right after it")
	}
	c.dead[c.live] = true
	c.live = n.Outputs[0]
	return nil
}

// apply converts a node on the activation.
func (c *converter) apply(n onnxfile.Node, last bool) error {
	s := c.shape
	switch n.Op {
	case "Identity":
		return nil
	case "Cast":
		if to := n.Attrs["to"].I; to != onnxfile.Float {
			return fmt.Errorf("a cast of the activation to type %d; the engine computes in float32", to)
		}
		return nil
	case "Dropout":
		rate := 0.5
		if a, ok := n.Attrs["ratio"]; ok { // opsets before 12
			rate = float64(a.F)
		}
		if len(n.Inputs) > 1 && n.Inputs[1] != "" {
			t, err := c.floats(arg(n, 1), "its ratio")
			if err != nil {
				return err
			}
			if len(t.Float) != 1 {
				return fmt.Errorf("a ratio of %d values", len(t.Float))
			}
			rate = float64(t.Float[0])
		}
		if rate == 0 {
			return nil
		}
		if !(rate > 0 && rate < 1) {
			return fmt.Errorf("a dropout rate of %v; MC dropout needs a rate above 0 and below 1", rate)
		}
		return c.add(weights.Layer{Op: weights.OpDropout, Rate: rate})
	case "Relu":
		return c.add(weights.Layer{Op: weights.OpReLU})
	case "LeakyRelu":
		slope := 0.01
		if a, ok := n.Attrs["alpha"]; ok {
			slope = float64(a.F)
		}
		return c.add(weights.Layer{Op: weights.OpLeakyReLU, Slope: slope})
	case "Sigmoid", "Softmax", "LogSoftmax":
		if last {
			if n.Op != "Sigmoid" && !s.Flat {
				return fmt.Errorf("a softmax over an image; the import reads a classifier's softmax over its flat outputs")
			}
			if a, ok := n.Attrs["axis"]; ok && a.I != -1 && a.I != 1 {
				return fmt.Errorf("a softmax over axis %d, not the classes'", a.I)
			}
			c.net.Final = n.Op
			return nil
		}
		if n.Op == "Sigmoid" {
			return c.add(weights.Layer{Op: weights.OpSigmoid})
		}
		return fmt.Errorf("a %s inside the network; the import reads one only as its last op", n.Op)
	case "Tanh":
		return c.add(weights.Layer{Op: weights.OpTanh})
	case "Flatten":
		if a, ok := n.Attrs["axis"]; ok && a.I != 1 {
			return fmt.Errorf("a flatten from axis %d; the import reads torch.flatten(x, 1)", a.I)
		}
		if s.Flat {
			return nil
		}
		return c.add(weights.Layer{Op: weights.OpFlatten})
	case "Reshape":
		return c.reshape(n)
	case "Gemm":
		return c.gemm(n)
	case "MatMul":
		w, err := c.floats(arg(n, 1), "its weights")
		if err != nil {
			return err
		}
		if len(w.Dims) != 2 {
			return fmt.Errorf("weights of shape %s; a dense layer's are [in, out]", dimsString(w.Dims))
		}
		return c.dense(int(w.Dims[0]), int(w.Dims[1]), w.Float, nil, false)
	case "Add":
		return c.addBias(n)
	case "Conv", "ConvTranspose":
		return c.conv(n)
	case "BatchNormalization":
		return c.batchNorm(n)
	case "MaxPool", "AveragePool":
		return c.pool(n)
	case "GlobalAveragePool":
		if s.Flat {
			return fmt.Errorf("a global pool over a vector")
		}
		return c.add(weights.Layer{Op: weights.OpAvgPool, Kernel: [2]int{s.H, s.W}, Stride: [2]int{s.H, s.W}})
	case "Resize", "Upsample":
		return c.resize(n)
	case "Pad":
		return c.padNode(n)
	}
	return fmt.Errorf("the import does not read this op; it reads %s", strings.Join(Supported, ", "))
}

// add appends a layer whose tensors (if any) are already in place, and moves the shape on.
func (c *converter) add(l weights.Layer) error {
	out, err := l.OutShape(c.shape)
	if err != nil {
		return err
	}
	c.net.Layers = append(c.net.Layers, l)
	c.shape = out
	return nil
}

// weighted appends a layer with its weights [shape] and bias, named as layer i's.
func (c *converter) weighted(l weights.Layer, w []float32, wShape []int, b []float32) error {
	i := len(c.net.Layers)
	l.Weights = fmt.Sprintf("%s/%d/weights", c.opt.Prefix, i)
	l.Bias = fmt.Sprintf("%s/%d/biases", c.opt.Prefix, i)
	if b == nil {
		b = make([]float32, l.Out)
	}
	if err := c.add(l); err != nil {
		return err
	}
	c.tensors[l.Weights] = len(c.net.Tensors)
	c.net.Tensors = append(c.net.Tensors, weights.Named{Name: l.Weights, Shape: wShape, Values: w})
	c.tensors[l.Bias] = len(c.net.Tensors)
	c.net.Tensors = append(c.net.Tensors, weights.Named{Name: l.Bias, Shape: []int{l.Out}, Values: b})
	return nil
}

// dense appends a dense layer from weights [in, out] (or [out, in] when transposed).
func (c *converter) dense(in, out int, w, b []float32, transposed bool) error {
	if !c.shape.Flat {
		return fmt.Errorf("a dense layer on a %v image; flatten it first (torch.flatten(x, 1))", c.shape)
	}
	if in != c.shape.Size() {
		return fmt.Errorf("a dense layer of %d inputs on %d values", in, c.shape.Size())
	}
	if transposed {
		t := make([]float32, len(w))
		for o := range out {
			for i := range in {
				t[i*out+o] = w[o*in+i]
			}
		}
		w = t
	}
	if b != nil && len(b) != out {
		return fmt.Errorf("%d biases for %d units", len(b), out)
	}
	return c.weighted(weights.Layer{Op: weights.OpDense, Out: out}, w, []int{in, out}, b)
}

func (c *converter) gemm(n onnxfile.Node) error {
	for _, a := range []string{"alpha", "beta"} {
		if v, ok := n.Attrs[a]; ok && v.F != 1 {
			return fmt.Errorf("%s = %v; the import reads Gemm with alpha = beta = 1 (nn.Linear's)", a, v.F)
		}
	}
	if n.Attrs["transA"].I != 0 {
		return fmt.Errorf("transA = 1; the import reads the activation untransposed (nn.Linear's)")
	}
	w, err := c.floats(arg(n, 1), "its weights")
	if err != nil {
		return err
	}
	if len(w.Dims) != 2 {
		return fmt.Errorf("weights of shape %s", dimsString(w.Dims))
	}
	b, err := c.bias(n)
	if err != nil {
		return err
	}
	trans := n.Attrs["transB"].I != 0
	in, out := int(w.Dims[0]), int(w.Dims[1])
	if trans {
		in, out = out, in
	}
	return c.dense(in, out, w.Float, b, trans)
}

// addBias folds an Add of a constant into the bias of the layer just before (MatMul + Add, a conv's bias
// added apart).
func (c *converter) addBias(n onnxfile.Node) error {
	other := arg(n, 0)
	if other == c.live {
		other = arg(n, 1)
	}
	t, err := c.floats(other, "what it adds")
	if err != nil {
		return fmt.Errorf("an Add of two activations (a skip connection?): %w", err)
	}
	k := len(c.net.Layers) - 1
	if k < 0 || c.net.Layers[k].Bias == "" {
		return fmt.Errorf("an Add that is not the bias of a dense or convolution layer just before it")
	}
	l := c.net.Layers[k]
	if len(t.Float) != l.Out {
		return fmt.Errorf("an Add of %d values (shape %s) after a layer of %d outputs: not a bias", len(t.Float), dimsString(t.Dims), l.Out)
	}
	b := c.net.Tensors[c.tensors[l.Bias]].Values
	for i, v := range t.Float {
		b[i] += v
	}
	return nil
}

// conv appends a Conv or ConvTranspose.
func (c *converter) conv(n onnxfile.Node) error {
	s := c.shape
	if s.Flat {
		return fmt.Errorf("a convolution of a vector; reshape it to an image first")
	}
	w, err := c.floats(arg(n, 1), "its weights")
	if err != nil {
		return err
	}
	if len(w.Dims) != 4 {
		return fmt.Errorf("weights of shape %s; a 2-D convolution's have 4 dimensions", dimsString(w.Dims))
	}
	b, err := c.bias(n)
	if err != nil {
		return err
	}
	if g := n.Attrs["group"].I; g > 1 {
		return fmt.Errorf("a grouped convolution (groups = %d); the engine runs groups = 1", g)
	}
	for _, d := range n.Attrs["dilations"].Ints {
		if d != 1 {
			return fmt.Errorf("dilations %v; the engine runs dilation 1", n.Attrs["dilations"].Ints)
		}
	}
	if p := n.Attrs["auto_pad"].S; p != "" && p != "NOTSET" && p != "VALID" {
		return fmt.Errorf("auto_pad %s; export with explicit padding", p)
	}
	if _, ok := n.Attrs["output_shape"]; ok {
		return fmt.Errorf("an output_shape; the import reads ConvTranspose with strides, pads and output_padding")
	}
	kh, kw := int(w.Dims[2]), int(w.Dims[3])
	stride, err := pair(n.Attrs["strides"].Ints, 1, "strides")
	if err != nil {
		return err
	}
	pad, err := c.padsWithPending(n)
	if err != nil {
		return err
	}
	l := weights.Layer{Kernel: [2]int{kh, kw}, Stride: stride, Padding: pad}
	if n.Op == "Conv" {
		out, in := int(w.Dims[0]), int(w.Dims[1])
		if in != s.C {
			return fmt.Errorf("a convolution of %d input channels on %v", in, s)
		}
		l.Op, l.Out = weights.OpConv, out
	} else {
		in, out := int(w.Dims[0]), int(w.Dims[1])
		if in != s.C {
			return fmt.Errorf("a transposed convolution of %d input channels on %v", in, s)
		}
		op, err := pair(n.Attrs["output_padding"].Ints, 0, "output_padding")
		if err != nil {
			return err
		}
		l.Op, l.Out, l.OutputPadding = weights.OpConvTranspose, out, op
	}
	if b != nil && len(b) != l.Out {
		return fmt.Errorf("%d biases for %d channels", len(b), l.Out)
	}
	shape := make([]int, 4)
	for i, d := range w.Dims {
		shape[i] = int(d)
	}
	return c.weighted(l, w.Float, shape, b)
}

// batchNorm folds an inference batch normalisation into the layer just before it: per output channel
// (unit), w·γ/√(σ²+ε) and (b − μ)·γ/√(σ²+ε) + β, in float64.
func (c *converter) batchNorm(n onnxfile.Node) error {
	k := len(c.net.Layers) - 1
	if k < 0 {
		return fmt.Errorf("a batch normalisation of the input; the import folds one into the dense or convolution layer before it")
	}
	l := c.net.Layers[k]
	if l.Weights == "" {
		return fmt.Errorf("a batch normalisation after a %s layer; the import folds one only into the dense or convolution layer right before it", l.Op)
	}
	if len(n.Inputs) != 5 || len(n.Outputs) > 1 && n.Outputs[1] != "" {
		return fmt.Errorf("a batch normalisation in training mode; export the model in eval mode (model.eval())")
	}
	var p [4][]float32
	for i, what := range []string{"its scale", "its bias", "its running mean", "its running variance"} {
		t, err := c.floats(n.Inputs[i+1], what)
		if err != nil {
			return err
		}
		if len(t.Float) != l.Out {
			return fmt.Errorf("%s has %d values for %d channels", what, len(t.Float), l.Out)
		}
		p[i] = t.Float
	}
	eps := 1e-5
	if a, ok := n.Attrs["epsilon"]; ok {
		eps = float64(a.F)
	}
	w := c.net.Tensors[c.tensors[l.Weights]]
	b := c.net.Tensors[c.tensors[l.Bias]].Values
	for o := range l.Out {
		f := float64(p[0][o]) / math.Sqrt(float64(p[3][o])+eps)
		b[o] = float32((float64(b[o])-float64(p[2][o]))*f + float64(p[1][o]))
		scaleUnit(w, l.Op, o, f)
	}
	return nil
}

// scaleUnit multiplies output unit or channel o's weights by f.
func scaleUnit(w weights.Named, op string, o int, f float64) {
	v, sh := w.Values, w.Shape
	switch op {
	case weights.OpDense: // [in, out]
		for i := range sh[0] {
			v[i*sh[1]+o] = float32(float64(v[i*sh[1]+o]) * f)
		}
	case weights.OpConv: // [out, in, kh, kw]
		per := sh[1] * sh[2] * sh[3]
		for j := o * per; j < (o+1)*per; j++ {
			v[j] = float32(float64(v[j]) * f)
		}
	case weights.OpConvTranspose: // [in, out, kh, kw]
		per := sh[2] * sh[3]
		for i := range sh[0] {
			at := (i*sh[1] + o) * per
			for j := at; j < at+per; j++ {
				v[j] = float32(float64(v[j]) * f)
			}
		}
	}
}

func (c *converter) pool(n onnxfile.Node) error {
	if c.shape.Flat {
		return fmt.Errorf("a pool over a vector")
	}
	k := n.Attrs["kernel_shape"].Ints
	if len(k) != 2 {
		return fmt.Errorf("a kernel of %v; the import reads 2-D pools", k)
	}
	if n.Attrs["ceil_mode"].I != 0 {
		return fmt.Errorf("ceil_mode = 1; the engine pools with PyTorch's default, ceil_mode=False")
	}
	for _, d := range n.Attrs["dilations"].Ints {
		if d != 1 {
			return fmt.Errorf("dilations %v; the engine pools with dilation 1", n.Attrs["dilations"].Ints)
		}
	}
	if p := n.Attrs["auto_pad"].S; p != "" && p != "NOTSET" && p != "VALID" {
		return fmt.Errorf("auto_pad %s; export with explicit padding", p)
	}
	if len(n.Outputs) > 1 && n.Outputs[1] != "" {
		return fmt.Errorf("a max-pool that also returns its indices")
	}
	stride, err := pair(n.Attrs["strides"].Ints, 1, "strides")
	if err != nil {
		return err
	}
	if c.pad != nil && n.Op == "MaxPool" {
		return fmt.Errorf("a max-pool after a Pad of zeros; a max-pool pads with -∞ (its own pads)")
	}
	padded := c.pad != nil
	pad, err := c.padsWithPending(n)
	if err != nil {
		return err
	}
	l := weights.Layer{Op: weights.OpMaxPool, Kernel: [2]int{int(k[0]), int(k[1])}, Stride: stride, Padding: pad}
	if n.Op == "AveragePool" {
		l.Op = weights.OpAvgPool
		if pad != [2]int{} && !padded && n.Attrs["count_include_pad"].I == 0 {
			return fmt.Errorf("an average pool with padding and count_include_pad=False; the engine counts the padding as zeros (PyTorch's default)")
		}
	}
	return c.add(l)
}

// padsWithPending is a layer's padding: its own pads, plus a Pad's just before it (taken).
func (c *converter) padsWithPending(n onnxfile.Node) ([2]int, error) {
	pad, err := pads(n.Attrs["pads"].Ints)
	if err != nil {
		return pad, err
	}
	if c.pad != nil {
		pad[0] += c.pad[0]
		pad[1] += c.pad[1]
		c.pad = nil
	}
	return pad, nil
}

// padNode reads a Pad of zeros, the same on both sides of the height and of the width, and leaves it for the
// convolution or average pool after it.
func (c *converter) padNode(n onnxfile.Node) error {
	if c.shape.Flat {
		return fmt.Errorf("a pad of a vector")
	}
	if m := n.Attrs["mode"].S; m != "" && m != "constant" {
		return fmt.Errorf("a %s pad; the engine pads with zeros", m)
	}
	if c.pad != nil {
		return fmt.Errorf("two Pads in a row")
	}
	t, err := c.ints(arg(n, 1), "its pads")
	if err != nil {
		return err
	}
	if len(n.Inputs) > 2 && n.Inputs[2] != "" {
		v, err := c.floats(arg(n, 2), "its value")
		if err != nil {
			return err
		}
		if len(v.Float) != 1 || v.Float[0] != 0 {
			return fmt.Errorf("a pad with %v; the engine pads with zeros", v.Float)
		}
	}
	p := t.Int // [n, c, h, w begin; n, c, h, w end]
	if len(p) != 8 || p[0] != 0 || p[1] != 0 || p[4] != 0 || p[5] != 0 || p[2] != p[6] || p[3] != p[7] || p[2] < 0 || p[3] < 0 {
		return fmt.Errorf("pads %v; the import reads the same zero padding on both sides of the height and of the width", p)
	}
	c.pad = &[2]int{int(p[2]), int(p[3])}
	return nil
}

// reshape reads a Reshape of the activation to [N, −1] or [N, n] (a flatten) or to [N, C, H, W].
func (c *converter) reshape(n onnxfile.Node) error {
	t, err := c.ints(arg(n, 1), "its shape")
	if err != nil {
		return err
	}
	dims := t.Int
	if len(dims) < 2 || (dims[0] != batchDim && dims[0] != -1 && dims[0] != 0 && dims[0] != 1) {
		return fmt.Errorf("a reshape to %s; the import reads a reshape that keeps the batch first: to [N, -1] or [N, C, H, W]", dimsString(dims))
	}
	rest := slices.Clone(dims[1:])
	size := int64(c.shape.Size())
	known, unknown := int64(1), -1
	for i, d := range rest {
		switch {
		case d == -1 && unknown < 0:
			unknown = i
		case d > 0:
			known *= d
		default:
			return fmt.Errorf("a reshape to %s", dimsString(dims))
		}
	}
	if unknown >= 0 {
		if known == 0 || size%known != 0 {
			return fmt.Errorf("a reshape of %v to %s", c.shape, dimsString(dims))
		}
		rest[unknown] = size / known
	}
	switch len(rest) {
	case 1:
		if rest[0] != size {
			return fmt.Errorf("a reshape of %v to %d values", c.shape, rest[0])
		}
		if c.shape.Flat {
			return nil
		}
		return c.add(weights.Layer{Op: weights.OpFlatten})
	case 3:
		return c.add(weights.Layer{Op: weights.OpReshape, Shape: []int{int(rest[0]), int(rest[1]), int(rest[2])}})
	}
	return fmt.Errorf("a reshape to %s; the import reads [N, -1] and [N, C, H, W]", dimsString(dims))
}

// resize reads a nearest-neighbour upsampling by whole factors (nn.Upsample(scale_factor=s)).
func (c *converter) resize(n onnxfile.Node) error {
	if c.shape.Flat {
		return fmt.Errorf("a resize of a vector")
	}
	if m := n.Attrs["mode"].S; m != "nearest" {
		return fmt.Errorf("mode %q; the engine upsamples by nearest neighbour", m)
	}
	if ct := n.Attrs["coordinate_transformation_mode"].S; ct != "" && ct != "asymmetric" {
		return fmt.Errorf("coordinate_transformation_mode %q; the import reads PyTorch's nearest upsampling (asymmetric)", ct)
	}
	if nm := n.Attrs["nearest_mode"].S; nm != "" && nm != "floor" {
		return fmt.Errorf("nearest_mode %q; the import reads PyTorch's nearest upsampling (floor)", nm)
	}
	var sh, sw float64
	switch {
	case n.Op == "Resize" && len(n.Inputs) > 3 && n.Inputs[3] != "":
		t, err := c.ints(arg(n, 3), "its sizes")
		if err != nil {
			return err
		}
		if len(t.Int) != 4 {
			return fmt.Errorf("sizes %v", t.Int)
		}
		sh, sw = float64(t.Int[2])/float64(c.shape.H), float64(t.Int[3])/float64(c.shape.W)
	default:
		at := 2
		if n.Op == "Upsample" {
			at = 1
		}
		if len(n.Inputs) <= at || n.Inputs[at] == "" {
			return fmt.Errorf("neither scales nor sizes")
		}
		t, err := c.floats(n.Inputs[at], "its scales")
		if err != nil {
			return err
		}
		if len(t.Float) != 4 || t.Float[0] != 1 || t.Float[1] != 1 {
			return fmt.Errorf("scales %v; the import reads [1, 1, s, s]", t.Float)
		}
		sh, sw = float64(t.Float[2]), float64(t.Float[3])
	}
	if sh != math.Trunc(sh) || sw != math.Trunc(sw) || sh < 1 || sw < 1 {
		return fmt.Errorf("a scale of %g×%g; the engine upsamples by whole factors", sh, sw)
	}
	return c.add(weights.Layer{Op: weights.OpUpsample, Scale: [2]int{int(sh), int(sw)}})
}

// bias is a Gemm's or a convolution's optional third input, nil when it has none.
func (c *converter) bias(n onnxfile.Node) ([]float32, error) {
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

// ints is a constant input of integers (shapes, pads, sizes).
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
		t, ok := c.consts[name]
		if !ok {
			return fmt.Errorf("its input %q is neither the chain's activation nor a constant: the import reads a chain of layers", name)
		}
		in[i] = t
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
	return fmt.Errorf("an op on constants the import does not fold; it reads %s", strings.Join(Supported, ", "))
}

// arg is a node's i-th input, "" when it has none there.
func arg(n onnxfile.Node, i int) string {
	if i < len(n.Inputs) {
		return n.Inputs[i]
	}
	return ""
}

// pair reads a 2-D attribute (strides, output_padding), def when absent.
func pair(v []int64, def int, what string) ([2]int, error) {
	switch len(v) {
	case 0:
		return [2]int{def, def}, nil
	case 2:
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
