package weights

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// A network is a graph of layers: each reads the network's input or earlier layers' outputs (Layer.Inputs), in
// the order the layers are listed, so the list is a topological order and a cycle cannot be written (a layer
// that names one after it, or itself, is refused). A chain names nothing and reads each layer's predecessor.

// Bounds on one network, so that a corrupt or hostile description cannot make a reader allocate or compute much:
// what one layer may give for one input (4 MB of float32: more would not run in a browser's worker at a useful
// speed), how many layers, parameters and multiply-adds per input.
const (
	MaxLayerValues  = 1 << 20
	MaxLayers       = 1024
	MaxParameters   = 1 << 26 // 67 M: 256 MB as float32 (torchvision's ResNet-18 has 11 M)
	MaxMultiplyAdds = 1 << 32 // per input, forward
)

// Node is a layer of a network with what it reads resolved.
type Node struct {
	Layer
	From    []int   // the layers it reads, by index in the network; −1 is the network's input
	In      []Shape // their shapes, in the same order
	Out     Shape
	Readers []int // the layers that read its output, in order (a layer reading it twice is listed twice)
}

// Graph is a network resolved from a value of shape In: every layer's inputs and shapes, and what it costs.
type Graph struct {
	In           Shape
	Nodes        []Node
	Out          Shape // the last layer's output: the network's
	Dropouts     int
	Parameters   int64 // weights and biases
	MultiplyAdds int64 // per input, forward
}

// Chain resolves the network from a value of shape in (Graph) and returns the shape it ends in and how many
// dropout layers it has.
func (n Network) Chain(where string, in Shape, files map[string]*File) (Shape, int, error) {
	g, err := n.Graph(where, in, files)
	if err != nil {
		return Shape{}, 0, err
	}
	return g.Out, g.Dropouts, nil
}

// Graph resolves the network's layers from a value of shape in, checking each layer's settings, what it reads
// and, when files is not nil, its tensors; where names the network in errors.
func (n Network) Graph(where string, in Shape, files map[string]*File) (*Graph, error) {
	var f *File
	if files != nil {
		if f = files[n.File]; f == nil {
			return nil, fmt.Errorf("%s's weights are in %q, which the bundle does not hold", where, n.File)
		}
	}
	if len(n.Layers) == 0 || len(n.Layers) > MaxLayers {
		return nil, fmt.Errorf("%s has %d layers: 1 to %d", where, len(n.Layers), MaxLayers)
	}
	g := &Graph{In: in, Nodes: make([]Node, len(n.Layers))}
	names := map[string]int{InputName: -1}
	for i, l := range n.Layers {
		fail := func(err error) (*Graph, error) {
			return nil, fmt.Errorf("%s, layer %d (%s): %w", where, i, l.Op, err)
		}
		node := Node{Layer: l}
		if len(l.Inputs) == 0 {
			node.From = []int{i - 1}
		}
		if len(l.Inputs) > 64 {
			return fail(fmt.Errorf("it reads %d inputs: at most 64", len(l.Inputs)))
		}
		for _, name := range l.Inputs {
			j, ok := names[name]
			if !ok {
				return fail(fmt.Errorf("it reads %q, which is neither %q nor an earlier layer's name (a layer reads only layers before it: a graph has no cycles)", clip(name), InputName))
			}
			node.From = append(node.From, j)
		}
		for _, j := range node.From {
			s := in
			if j >= 0 {
				s = g.Nodes[j].Out
				g.Nodes[j].Readers = append(g.Nodes[j].Readers, i)
			}
			node.In = append(node.In, s)
		}
		if l.Name != "" {
			if err := checkLayerName(l.Name); err != nil {
				return fail(err)
			}
			if _, dup := names[l.Name]; dup {
				return fail(fmt.Errorf("its name %q is taken (by the network's input or an earlier layer)", l.Name))
			}
			names[l.Name] = i
		}
		out, err := l.outShapeOf(node.In)
		if err == nil && (l.Op == OpSoftmax || l.Op == OpLogSoftmax) && i != len(n.Layers)-1 {
			err = errors.New("a softmax may only end a classifier (its input is then taken as the logits)")
		}
		if err == nil && f != nil {
			err = l.checkTensors(f, node.In[0], out)
		}
		if err != nil {
			return fail(err)
		}
		if out.Size() < 1 || out.Size() > MaxLayerValues {
			return fail(fmt.Errorf("its output, %v, has %d values; a layer may give 1 to %d", out, out.Size(), MaxLayerValues))
		}
		node.Out = out
		params, madds := l.cost(node.In[0], out)
		g.Parameters += params
		g.MultiplyAdds += madds
		if l.Op == OpDropout {
			g.Dropouts++
		}
		g.Nodes[i] = node
	}
	for i, node := range g.Nodes[:len(g.Nodes)-1] {
		if len(node.Readers) == 0 {
			return nil, fmt.Errorf("%s, layer %d (%s): nothing reads its output (only the last layer's leaves the network)", where, i, node.Op)
		}
	}
	switch {
	case g.Parameters > MaxParameters:
		return nil, fmt.Errorf("%s has %d parameters: at most %d", where, g.Parameters, MaxParameters)
	case g.MultiplyAdds > MaxMultiplyAdds:
		return nil, fmt.Errorf("%s takes %d multiply-adds per input: at most %d", where, g.MultiplyAdds, int64(MaxMultiplyAdds))
	}
	g.Out = g.Nodes[len(g.Nodes)-1].Out
	return g, nil
}

// IsChain says whether every layer reads the one before it (the first the network's input).
func (g *Graph) IsChain() bool {
	for i, n := range g.Nodes {
		if len(n.From) != 1 || n.From[0] != i-1 {
			return false
		}
	}
	return true
}

// checkLayerName says what makes s a name no layer may have: 1 to 128 printable ASCII bytes without spaces.
func checkLayerName(s string) error {
	if s == "" || len(s) > 128 {
		return fmt.Errorf("its name %q must be 1 to 128 bytes", clip(s))
	}
	for _, r := range s {
		if r <= ' ' || r > '~' {
			return fmt.Errorf("its name %q must be printable ASCII without spaces", clip(s))
		}
	}
	return nil
}

// clip shortens s for an error message.
func clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}

// sameLayout says whether two shapes lay their values out alike (a vector of C values is a C×1×1 image).
func sameLayout(a, b Shape) bool { return a.C == b.C && a.H == b.H && a.W == b.W }

// outShapeOf is the shape the layer makes of its inputs, or why it cannot take them.
func (l Layer) outShapeOf(ins []Shape) (Shape, error) {
	switch l.Op {
	case OpAdd:
		if len(ins) < 2 {
			return Shape{}, fmt.Errorf("it adds %d inputs: two or more", len(ins))
		}
		for _, s := range ins[1:] {
			if !sameLayout(s, ins[0]) {
				return Shape{}, fmt.Errorf("its inputs are %v and %v: an add takes inputs of one shape", ins[0], s)
			}
		}
		return ins[0], nil
	case OpMul:
		if len(ins) != 2 {
			return Shape{}, fmt.Errorf("it multiplies %d inputs: two", len(ins))
		}
		a, b := ins[0], ins[1]
		switch {
		case sameLayout(a, b):
			return a, nil
		case b.H == 1 && b.W == 1 && b.C == a.C && !a.Flat:
			return a, nil
		case a.H == 1 && a.W == 1 && a.C == b.C && !b.Flat:
			return b, nil
		}
		return Shape{}, fmt.Errorf("its inputs are %v and %v: a mul takes two of one shape, or an image and one value per channel", a, b)
	case OpConcat:
		if len(ins) < 2 {
			return Shape{}, fmt.Errorf("it concatenates %d inputs: two or more", len(ins))
		}
		out := ins[0]
		for _, s := range ins[1:] {
			if s.H != out.H || s.W != out.W {
				return Shape{}, fmt.Errorf("its inputs are %v and %v: a concat joins channels of one height and width", ins[0], s)
			}
			out.C += s.C
			out.Flat = out.Flat && s.Flat
		}
		return out, nil
	}
	if len(ins) != 1 {
		return Shape{}, fmt.Errorf("it reads %d inputs: one", len(ins))
	}
	return l.OutShape(ins[0])
}

// OutShape is the shape the layer makes of in, or why it cannot take in (its settings alone: not its tensors;
// a merge's shape is the network's Graph's to find).
func (l Layer) OutShape(in Shape) (Shape, error) {
	image := func() error {
		if in.Flat {
			return fmt.Errorf("it takes an image, not %v (reshape first)", in)
		}
		return nil
	}
	conv := l.Op == OpConv || l.Op == OpConvTranspose
	if !conv && (l.Groups != 0 || l.Dilation != [2]int{}) {
		return Shape{}, errors.New("groups and dilation are a convolution's settings")
	}
	groups, dilation := max(l.Groups, 1), l.Dilation
	if dilation == [2]int{} {
		dilation = [2]int{1, 1}
	}
	window := func(transposed bool) error {
		k, s, p, op := l.Kernel, l.Stride, l.Padding, l.OutputPadding
		for a := range 2 {
			switch {
			case k[a] < 1 || k[a] > 64 || s[a] < 1 || s[a] > 64:
				return fmt.Errorf("kernel %v and stride %v: each 1 to 64", k, s)
			case p[a] < 0 || p[a] > 64:
				return fmt.Errorf("padding %v: 0 to 64", p)
			case op[a] < 0 || op[a] >= s[a] || (op[a] > 0 && !transposed):
				return fmt.Errorf("output padding %v: a transposed convolution's, below its stride %v", op, s)
			case dilation[a] < 1 || dilation[a] > 64:
				return fmt.Errorf("dilation %v: each 1 to 64", dilation)
			}
		}
		return nil
	}
	switch l.Op {
	case OpDense:
		if l.Out < 1 {
			return Shape{}, fmt.Errorf("%d units", l.Out)
		}
		return Vector(l.Out), nil
	case OpConv, OpConvTranspose:
		if err := image(); err != nil {
			return Shape{}, err
		}
		if err := window(l.Op == OpConvTranspose); err != nil {
			return Shape{}, err
		}
		if l.Out < 1 {
			return Shape{}, fmt.Errorf("%d output channels", l.Out)
		}
		if l.Groups < 0 || in.C%groups != 0 || l.Out%groups != 0 {
			return Shape{}, fmt.Errorf("%d groups: a whole divisor of both its %d input and %d output channels", l.Groups, in.C, l.Out)
		}
		// The kernel's reach: its taps spaced by the dilation.
		kh, kw := dilation[0]*(l.Kernel[0]-1)+1, dilation[1]*(l.Kernel[1]-1)+1
		var h, w int
		if l.Op == OpConv {
			h = (in.H+2*l.Padding[0]-kh)/l.Stride[0] + 1
			w = (in.W+2*l.Padding[1]-kw)/l.Stride[1] + 1
			if in.H+2*l.Padding[0] < kh || in.W+2*l.Padding[1] < kw {
				h, w = 0, 0
			}
		} else {
			h = (in.H-1)*l.Stride[0] - 2*l.Padding[0] + kh + l.OutputPadding[0]
			w = (in.W-1)*l.Stride[1] - 2*l.Padding[1] + kw + l.OutputPadding[1]
		}
		if h < 1 || w < 1 {
			return Shape{}, fmt.Errorf("a %v kernel with stride %v, padding %v and dilation %v makes nothing of %v", l.Kernel, l.Stride, l.Padding, dilation, in)
		}
		return Image(l.Out, h, w), nil
	case OpMaxPool, OpAvgPool:
		if err := image(); err != nil {
			return Shape{}, err
		}
		if err := window(false); err != nil {
			return Shape{}, err
		}
		if 2*l.Padding[0] > l.Kernel[0] || 2*l.Padding[1] > l.Kernel[1] {
			return Shape{}, fmt.Errorf("padding %v is more than half the kernel %v", l.Padding, l.Kernel)
		}
		if in.H+2*l.Padding[0] < l.Kernel[0] || in.W+2*l.Padding[1] < l.Kernel[1] {
			return Shape{}, fmt.Errorf("a %v window does not fit %v", l.Kernel, in)
		}
		return Image(in.C, (in.H+2*l.Padding[0]-l.Kernel[0])/l.Stride[0]+1, (in.W+2*l.Padding[1]-l.Kernel[1])/l.Stride[1]+1), nil
	case OpGlobalAvgPool, OpGlobalMaxPool:
		if err := image(); err != nil {
			return Shape{}, err
		}
		return Image(in.C, 1, 1), nil
	case OpUpsample:
		if err := image(); err != nil {
			return Shape{}, err
		}
		if l.Scale[0] < 1 || l.Scale[1] < 1 || l.Scale[0] > 64 || l.Scale[1] > 64 {
			return Shape{}, fmt.Errorf("scale %v: whole factors from 1 to 64", l.Scale)
		}
		return Image(in.C, in.H*l.Scale[0], in.W*l.Scale[1]), nil
	case OpFlatten:
		return Vector(in.Size()), nil
	case OpReshape:
		if len(l.Shape) != 3 || l.Shape[0] < 1 || l.Shape[1] < 1 || l.Shape[2] < 1 || l.Shape[0] > 1<<24 || l.Shape[1] > 1<<24 || l.Shape[2] > 1<<24 {
			return Shape{}, fmt.Errorf("shape %v: [channels, height, width], each at least 1", l.Shape)
		}
		out := Image(l.Shape[0], l.Shape[1], l.Shape[2])
		if out.Size() != in.Size() {
			return Shape{}, fmt.Errorf("%v cannot become %v: %d values against %d", in, out, in.Size(), out.Size())
		}
		return out, nil
	case OpReLU, OpSigmoid, OpTanh, OpSiLU, OpHardSwish, OpSoftplus, OpIdentity, OpBatchNorm:
		return in, nil
	case OpSoftmax, OpLogSoftmax:
		if !in.Flat && (in.H != 1 || in.W != 1) {
			return Shape{}, fmt.Errorf("it takes a vector of the classes' logits, not %v", in)
		}
		return in, nil
	case OpGELU:
		if l.Approximate != "" && l.Approximate != ApproximateTanh {
			return Shape{}, fmt.Errorf("approximate %q: \"\" (the exact erf form) or %q", l.Approximate, ApproximateTanh)
		}
		return in, nil
	case OpClip:
		switch {
		case l.Min != nil && isBad(*l.Min), l.Max != nil && isBad(*l.Max):
			return Shape{}, errors.New("its bounds must be finite numbers (leave one out for none)")
		case l.Min != nil && l.Max != nil && !(*l.Min <= *l.Max):
			return Shape{}, fmt.Errorf("min %v is above max %v", *l.Min, *l.Max)
		}
		return in, nil
	case OpHardSigmoid:
		if !(l.Alpha > 0 && l.Alpha <= 1e6) || isBad(l.Beta) {
			return Shape{}, fmt.Errorf("alpha %v and beta %v: alpha above 0 (up to 10⁶), beta finite", l.Alpha, l.Beta)
		}
		return in, nil
	case OpELU:
		if !(l.Alpha > 0 && l.Alpha <= 1e6) {
			return Shape{}, fmt.Errorf("alpha %v: above 0 (up to 10⁶)", l.Alpha)
		}
		return in, nil
	case OpLeakyReLU:
		if !(l.Slope >= 0 && l.Slope < 1) {
			return Shape{}, fmt.Errorf("slope %v: from 0 to below 1", l.Slope)
		}
		return in, nil
	case OpDropout:
		if !(l.Rate > 0 && l.Rate < 1) {
			return Shape{}, fmt.Errorf("rate %v: above 0 and below 1", l.Rate)
		}
		return in, nil
	case OpAdd, OpMul, OpConcat:
		return Shape{}, fmt.Errorf("a %s reads two or more inputs", l.Op)
	}
	return Shape{}, fmt.Errorf("the engine does not run %q: it runs %s", clip(l.Op), strings.Join(Ops, ", "))
}

// cost is the layer's parameters and its multiply-adds per input, forward, from input in to out.
func (l Layer) cost(in, out Shape) (params, madds int64) {
	g := int64(max(l.Groups, 1))
	k := int64(l.Kernel[0]) * int64(l.Kernel[1])
	switch l.Op {
	case OpDense:
		return int64(in.Size())*int64(l.Out) + int64(l.Out), int64(in.Size()) * int64(l.Out)
	case OpConv:
		per := int64(in.C) / g * k // each output value's taps
		return int64(l.Out)*per + int64(l.Out), int64(out.Size()) * per
	case OpConvTranspose:
		per := int64(l.Out) / g * k // each input value's reach
		return int64(in.C)*per + int64(l.Out), int64(in.Size()) * per
	case OpBatchNorm:
		return 2 * int64(in.C), int64(in.Size())
	}
	return 0, 0
}

// checkTensors checks that f holds the layer's weights and bias with the shapes its op needs, in being its
// (first) input's shape.
func (l Layer) checkTensors(f *File, in, out Shape) error {
	var w, b []int
	g := max(l.Groups, 1)
	switch l.Op {
	case OpDense:
		w, b = []int{in.Size(), l.Out}, []int{l.Out}
	case OpConv:
		w, b = []int{l.Out, in.C / g, l.Kernel[0], l.Kernel[1]}, []int{l.Out}
	case OpConvTranspose:
		w, b = []int{in.C, l.Out / g, l.Kernel[0], l.Kernel[1]}, []int{l.Out}
	case OpBatchNorm:
		w, b = []int{in.C}, []int{in.C}
	default:
		if l.Weights != "" || l.Bias != "" {
			return errors.New("it has no weights, but names some")
		}
		return nil
	}
	for _, t := range []struct {
		name  string
		shape []int
	}{{l.Weights, w}, {l.Bias, b}} {
		if t.name == "" {
			return errors.New("its weights and bias must be named")
		}
		if err := f.hasTensor(t.name, t.shape); err != nil {
			return err
		}
	}
	return nil
}

// hasTensor says whether the file holds the named tensor with the shape given (a dense layer's weights may be
// stored [in, out] for any image shape of its input: only the count matters).
func (f *File) hasTensor(name string, shape []int) error {
	for _, t := range f.Manifest.Tensors {
		if t.Name == name {
			if !slices.Equal(t.Shape, shape) {
				return fmt.Errorf("tensor %q is %v in %s, the layer needs %v", name, t.Shape, f.Name, shape)
			}
			return nil
		}
	}
	return fmt.Errorf("%s has no tensor %q", f.Name, name)
}

// opsFormat1 lists the layers of format 1, a chain's.
var opsFormat1 = []string{OpDense, OpConv, OpConvTranspose, OpMaxPool, OpAvgPool, OpUpsample, OpFlatten, OpReshape,
	OpReLU, OpLeakyReLU, OpSigmoid, OpTanh, OpDropout}

// UsesGraphs says whether the network needs format 2 of the description: names, inputs, or a layer or setting
// format 1 did not have.
func (n Network) UsesGraphs() bool {
	for _, l := range n.Layers {
		if l.Name != "" || len(l.Inputs) > 0 || l.Groups != 0 || l.Dilation != [2]int{} || l.Min != nil || l.Max != nil ||
			l.Alpha != 0 || l.Beta != 0 || l.Approximate != "" || (slices.Contains(Ops, l.Op) && !slices.Contains(opsFormat1, l.Op)) {
			return true
		}
	}
	return false
}

// FoldsInto is where dropout node i's fixed masks can be folded: the dense or conv2d layer that alone reads it,
// through flatten, reshape and identity layers that each have one reader (a convolution only when the dropout
// masked its input's channels), whose weights then carry the masks, one copy per posterior sample; −1 where
// they cannot be, and the masks multiply the dropout's output instead.
func (g *Graph) FoldsInto(i int) int {
	masked := g.Nodes[i].In[0]
	for cur := i; len(g.Nodes[cur].Readers) == 1; {
		r := g.Nodes[cur].Readers[0]
		switch n := g.Nodes[r]; n.Op {
		case OpFlatten, OpReshape, OpIdentity:
			cur = r
		case OpDense:
			return r
		case OpConv:
			if !masked.Flat && n.In[0].C == masked.C {
				return r
			}
			return -1
		default:
			return -1
		}
	}
	return -1
}
