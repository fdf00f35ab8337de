//go:build !js

package onnximport

import (
	"fmt"
	"math"
	"slices"

	"github.com/deltaclue/deltaclue/internal/onnxfile"
	"github.com/deltaclue/deltaclue/weights"
)

// layerMakers are the ops that make a layer of the activations they read (Pad aside: it waits for its
// convolution).
var layerMakers = map[string]bool{"Dropout": true, "Flatten": true, "Reshape": true, "Gemm": true, "MatMul": true,
	"Conv": true, "ConvTranspose": true, "MaxPool": true, "AveragePool": true, "GlobalAveragePool": true,
	"GlobalMaxPool": true, "ReduceMean": true, "ReduceMax": true, "Resize": true, "Upsample": true, "Concat": true}

// layerOf appends the layer a node makes of what it reads, and returns its output; nil (and no error) for a
// node that is an identity here (a flatten of a vector, a dropout of rate 0).
func (c *converter) layerOf(n *onnxfile.Node, in []input) (*expr, error) {
	x := in[0]
	switch n.Op {
	case "Dropout":
		return c.dropoutNode(n, x)
	case "Flatten":
		if a, ok := n.Attrs["axis"]; ok && a.I != 1 {
			return nil, fmt.Errorf("a flatten from axis %d; the import reads torch.flatten(x, 1)", a.I)
		}
		if x.shape.Flat {
			return nil, nil
		}
		return c.add(weights.Layer{Op: weights.OpFlatten}, x, n.Name)
	case "Reshape":
		return c.reshape(n, x)
	case "Gemm":
		return c.gemm(n, x)
	case "MatMul":
		w, err := c.floats(arg(n, 1), "its weights")
		if err != nil {
			return nil, err
		}
		if len(w.Dims) != 2 {
			return nil, fmt.Errorf("weights of shape %s; a dense layer's are [in, out]", dimsString(w.Dims))
		}
		return c.dense(n, x, int(w.Dims[0]), int(w.Dims[1]), w.Float, nil, false)
	case "Conv", "ConvTranspose":
		return c.conv(n, x)
	case "MaxPool", "AveragePool":
		return c.pool(n, x)
	case "GlobalAveragePool", "GlobalMaxPool":
		return c.globalPool(n.Op == "GlobalMaxPool", x, n.Name)
	case "ReduceMean", "ReduceMax":
		return c.reduce(n, x)
	case "Resize", "Upsample":
		return c.resize(n, x)
	case "Concat":
		return c.concat(n, in)
	}
	return nil, unsupported(n.Op)
}

// dropoutNode reads a Dropout the file keeps (a training-mode export): MC dropout at its ratio (0.5 unless it
// says), none at ratio 0.
func (c *converter) dropoutNode(n *onnxfile.Node, x input) (*expr, error) {
	rate := 0.5
	if a, ok := n.Attrs["ratio"]; ok { // opsets before 12
		rate = float64(a.F)
	}
	if arg(n, 1) != "" {
		t, err := c.floats(arg(n, 1), "its ratio")
		if err != nil {
			return nil, err
		}
		if len(t.Float) != 1 {
			return nil, fmt.Errorf("a ratio of %d values", len(t.Float))
		}
		rate = float64(t.Float[0])
	}
	if rate == 0 {
		return nil, nil
	}
	if !(rate > 0 && rate < 1) {
		return nil, fmt.Errorf("a dropout rate of %v; MC dropout needs a rate above 0 and below 1", rate)
	}
	return c.add(weights.Layer{Op: weights.OpDropout, Rate: rate}, x, n.Name)
}

// dense appends a dense layer from weights [in, out] (or [out, in] when transposed).
func (c *converter) dense(n *onnxfile.Node, x input, in, out int, w, b []float32, transposed bool) (*expr, error) {
	if !x.shape.Flat {
		return nil, fmt.Errorf("a dense layer on a %v image; flatten it first (torch.flatten(x, 1))", x.shape)
	}
	if in != x.shape.Size() {
		return nil, fmt.Errorf("a dense layer of %d inputs on %d values", in, x.shape.Size())
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
		return nil, fmt.Errorf("%d biases for %d units", len(b), out)
	}
	return c.weighted(weights.Layer{Op: weights.OpDense, Out: out}, x, w, []int{in, out}, b, []int{out}, n.Name)
}

// gemm reads nn.Linear's Gemm: y = x·Wᵀ + b.
func (c *converter) gemm(n *onnxfile.Node, x input) (*expr, error) {
	for _, a := range []string{"alpha", "beta"} {
		if v, ok := n.Attrs[a]; ok && v.F != 1 {
			return nil, fmt.Errorf("%s = %v; the import reads Gemm with alpha = beta = 1 (nn.Linear's)", a, v.F)
		}
	}
	if n.Attrs["transA"].I != 0 {
		return nil, fmt.Errorf("transA = 1; the import reads the activation untransposed (nn.Linear's)")
	}
	w, err := c.floats(arg(n, 1), "its weights")
	if err != nil {
		return nil, err
	}
	if len(w.Dims) != 2 {
		return nil, fmt.Errorf("weights of shape %s", dimsString(w.Dims))
	}
	b, err := c.bias(n)
	if err != nil {
		return nil, err
	}
	trans := n.Attrs["transB"].I != 0
	in, out := int(w.Dims[0]), int(w.Dims[1])
	if trans {
		in, out = out, in
	}
	return c.dense(n, x, in, out, w.Float, b, trans)
}

// conv appends a Conv or ConvTranspose, grouped or dilated as its attributes say, padded by its pads and a Pad's
// before it.
func (c *converter) conv(n *onnxfile.Node, x input) (*expr, error) {
	s := x.shape
	if s.Flat {
		return nil, fmt.Errorf("a convolution of a vector; reshape it to an image first")
	}
	w, err := c.floats(arg(n, 1), "its weights")
	if err != nil {
		return nil, err
	}
	if len(w.Dims) != 4 {
		return nil, fmt.Errorf("weights of shape %s; a 2-D convolution's have 4 dimensions", dimsString(w.Dims))
	}
	b, err := c.bias(n)
	if err != nil {
		return nil, err
	}
	groups := int64(1)
	if a, ok := n.Attrs["group"]; ok {
		groups = a.I
	}
	if groups < 1 || groups > int64(s.C) {
		return nil, fmt.Errorf("group = %d on %v; the import reads 1 to the input's channels", groups, s)
	}
	dilation, err := pair(n.Attrs["dilations"].Ints, 1, "dilations")
	if err != nil {
		return nil, err
	}
	if dilation[0] < 1 || dilation[1] < 1 {
		return nil, fmt.Errorf("dilations %v; each is 1 or more", n.Attrs["dilations"].Ints)
	}
	if p := n.Attrs["auto_pad"].S; p != "" && p != "NOTSET" && p != "VALID" {
		return nil, fmt.Errorf("auto_pad %s; export with explicit padding", p)
	}
	if _, ok := n.Attrs["output_shape"]; ok {
		return nil, fmt.Errorf("an output_shape; the import reads ConvTranspose with strides, pads and output_padding")
	}
	stride, err := pair(n.Attrs["strides"].Ints, 1, "strides")
	if err != nil {
		return nil, err
	}
	pad, err := pads(n.Attrs["pads"].Ints)
	if err != nil {
		return nil, err
	}
	l := weights.Layer{Kernel: [2]int{int(w.Dims[2]), int(w.Dims[3])}, Stride: stride, Padding: [2]int{pad[0] + x.pad[0], pad[1] + x.pad[1]}}
	if groups > 1 {
		l.Groups = int(groups)
	}
	if dilation != [2]int{1, 1} {
		l.Dilation = dilation
	}
	g := int(groups)
	if n.Op == "Conv" {
		out, in := int(w.Dims[0]), int(w.Dims[1])
		if in*g != s.C || out%g != 0 {
			return nil, fmt.Errorf("a convolution of %d input channels (in %d groups) to %d on %v", in*g, g, out, s)
		}
		l.Op, l.Out = weights.OpConv, out
	} else {
		in, out := int(w.Dims[0]), int(w.Dims[1])
		if in != s.C || in%g != 0 {
			return nil, fmt.Errorf("a transposed convolution of %d input channels (in %d groups) on %v", in, g, s)
		}
		op, err := pair(n.Attrs["output_padding"].Ints, 0, "output_padding")
		if err != nil {
			return nil, err
		}
		l.Op, l.Out, l.OutputPadding = weights.OpConvTranspose, out*g, op
	}
	if b != nil && len(b) != l.Out {
		return nil, fmt.Errorf("%d biases for %d channels", len(b), l.Out)
	}
	shape := make([]int, 4)
	for i, d := range w.Dims {
		shape[i] = int(d)
	}
	return c.weighted(l, input{layer: x.layer, shape: s}, w.Float, shape, b, []int{l.Out}, n.Name)
}

// pool appends a MaxPool or an AveragePool.
func (c *converter) pool(n *onnxfile.Node, x input) (*expr, error) {
	if x.shape.Flat {
		return nil, fmt.Errorf("a pool over a vector")
	}
	k := n.Attrs["kernel_shape"].Ints
	if len(k) != 2 {
		return nil, fmt.Errorf("a kernel of %v; the import reads 2-D pools", k)
	}
	if n.Attrs["ceil_mode"].I != 0 {
		return nil, fmt.Errorf("ceil_mode = 1; the engine pools with PyTorch's default, ceil_mode=False")
	}
	for _, d := range n.Attrs["dilations"].Ints {
		if d != 1 {
			return nil, fmt.Errorf("dilations %v; the engine pools with dilation 1", n.Attrs["dilations"].Ints)
		}
	}
	if p := n.Attrs["auto_pad"].S; p != "" && p != "NOTSET" && p != "VALID" {
		return nil, fmt.Errorf("auto_pad %s; export with explicit padding", p)
	}
	if len(n.Outputs) > 1 && n.Outputs[1] != "" {
		return nil, fmt.Errorf("a max-pool that also returns its indices")
	}
	stride, err := pair(n.Attrs["strides"].Ints, 1, "strides")
	if err != nil {
		return nil, err
	}
	padded := x.pad != [2]int{}
	if padded && n.Op == "MaxPool" {
		return nil, fmt.Errorf("a max-pool after a Pad of zeros; a max-pool pads with -∞ (its own pads)")
	}
	pad, err := pads(n.Attrs["pads"].Ints)
	if err != nil {
		return nil, err
	}
	own := pad
	pad = [2]int{pad[0] + x.pad[0], pad[1] + x.pad[1]}
	l := weights.Layer{Op: weights.OpMaxPool, Kernel: [2]int{int(k[0]), int(k[1])}, Stride: stride, Padding: pad}
	if n.Op == "AveragePool" {
		l.Op = weights.OpAvgPool
		if own != [2]int{} && !padded && n.Attrs["count_include_pad"].I == 0 {
			return nil, fmt.Errorf("an average pool with padding and count_include_pad=False; the engine counts the padding as zeros (PyTorch's default)")
		}
	}
	return c.add(l, input{layer: x.layer, shape: x.shape}, n.Name)
}

// globalPool appends a global average or max pool: the pool of the whole image where its window fits one
// (format 1, which every build reads), else the global pool.
func (c *converter) globalPool(maxPool bool, x input, hint string) (*expr, error) {
	s := x.shape
	if s.Flat {
		return nil, fmt.Errorf("a global pool over a vector")
	}
	l := weights.Layer{Op: weights.OpAvgPool, Kernel: [2]int{s.H, s.W}, Stride: [2]int{s.H, s.W}}
	if maxPool {
		l.Op = weights.OpMaxPool
	}
	if s.H > 64 || s.W > 64 {
		l = weights.Layer{Op: weights.OpGlobalAvgPool}
		if maxPool {
			l.Op = weights.OpGlobalMaxPool
		}
	}
	return c.add(l, x, hint)
}

// reduce reads a ReduceMean or ReduceMax over the height and width (x.mean((2, 3))) as a global pool, then a
// flatten when it drops those dimensions; its axes are an attribute before opset 18 and an input from it.
func (c *converter) reduce(n *onnxfile.Node, x input) (*expr, error) {
	if x.shape.Flat {
		return nil, fmt.Errorf("a reduction of a vector; the import reads one over an image's height and width")
	}
	axes := n.Attrs["axes"].Ints
	if arg(n, 1) != "" {
		t, err := c.ints(arg(n, 1), "its axes")
		if err != nil {
			return nil, err
		}
		axes = t.Int
	}
	norm := make([]int64, len(axes))
	for i, a := range axes {
		if a < 0 {
			a += 4
		}
		norm[i] = a
	}
	slices.Sort(norm)
	if !slices.Equal(norm, []int64{2, 3}) {
		return nil, fmt.Errorf("a reduction over axes %v; the import reads one over the height and width, axes [2, 3] (a global pool)", axes)
	}
	y, err := c.globalPool(n.Op == "ReduceMax", x, n.Name)
	if err != nil {
		return nil, err
	}
	if a, ok := n.Attrs["keepdims"]; ok && a.I == 0 {
		return c.add(weights.Layer{Op: weights.OpFlatten}, input{layer: y.layer, shape: y.shape}, "")
	}
	return y, nil
}

// concat appends a concatenation of the channels of images (or of vectors' values).
func (c *converter) concat(n *onnxfile.Node, in []input) (*expr, error) {
	rank := int64(4)
	if in[0].shape.Flat {
		rank = 2
	}
	axis := n.Attrs["axis"].I
	if axis < 0 {
		axis += rank
	}
	if axis != 1 {
		return nil, fmt.Errorf("a concatenation along axis %d; the import reads one of channels, axis 1", n.Attrs["axis"].I)
	}
	if len(in) < 2 {
		return nil, nil
	}
	return c.merge(weights.OpConcat, in, n.Name)
}

// padNode reads a Pad of zeros, the same on both sides of the height and of the width, and leaves it for the
// convolution or average pool after it.
func (c *converter) padNode(n *onnxfile.Node, ops []operand) (*expr, error) {
	x := ops[0].x
	switch {
	case x == nil:
		return nil, fmt.Errorf("its first input is a constant where the import reads the activation")
	case x.pad != nil:
		return nil, fmt.Errorf("two Pads in a row")
	case x.shape.Flat:
		return nil, fmt.Errorf("a pad of a vector")
	}
	if m := n.Attrs["mode"].S; m != "" && m != "constant" {
		return nil, fmt.Errorf("a %s pad; the engine pads with zeros", m)
	}
	for i, o := range ops[1:] {
		if o.x != nil {
			return nil, fmt.Errorf("its input %d is an activation; the import reads a Pad by constants", i+1)
		}
	}
	if arg(n, 3) != "" {
		return nil, fmt.Errorf("a Pad of chosen axes; the import reads a Pad of every axis (torch's)")
	}
	t, err := c.ints(arg(n, 1), "its pads")
	if err != nil {
		return nil, err
	}
	if arg(n, 2) != "" {
		v, err := c.floats(arg(n, 2), "its value")
		if err != nil {
			return nil, err
		}
		if len(v.Float) != 1 || v.Float[0] != 0 {
			return nil, fmt.Errorf("a pad with %v; the engine pads with zeros", v.Float)
		}
	}
	p := t.Int // [n, c, h, w begin; n, c, h, w end]
	if len(p) != 8 || p[0] != 0 || p[1] != 0 || p[4] != 0 || p[5] != 0 || p[2] != p[6] || p[3] != p[7] || p[2] < 0 || p[3] < 0 || p[2] > 64 || p[3] > 64 {
		return nil, fmt.Errorf("pads %v; the import reads the same zero padding on both sides of the height and of the width", p)
	}
	return &expr{shape: x.shape, pad: &[2]int{int(p[2]), int(p[3])}, base: x}, nil
}

// reshape reads a Reshape of the activation to [N, −1] or [N, n] (a flatten) or to [N, C, H, W].
func (c *converter) reshape(n *onnxfile.Node, x input) (*expr, error) {
	t, err := c.ints(arg(n, 1), "its shape")
	if err != nil {
		return nil, err
	}
	dims := t.Int
	if len(dims) < 2 || (dims[0] != batchDim && dims[0] != -1 && dims[0] != 0 && dims[0] != 1) {
		return nil, fmt.Errorf("a reshape to %s; the import reads a reshape that keeps the batch first: to [N, -1] or [N, C, H, W]", dimsString(dims))
	}
	rest := slices.Clone(dims[1:])
	size := int64(x.shape.Size())
	known, unknown := int64(1), -1
	for i, d := range rest {
		switch {
		case d == -1 && unknown < 0:
			unknown = i
		case d > 0 && d <= size:
			known *= d
		default:
			return nil, fmt.Errorf("a reshape to %s", dimsString(dims))
		}
		if known > size {
			return nil, fmt.Errorf("a reshape of %v to %s", x.shape, dimsString(dims))
		}
	}
	if unknown >= 0 {
		if known == 0 || size%known != 0 {
			return nil, fmt.Errorf("a reshape of %v to %s", x.shape, dimsString(dims))
		}
		rest[unknown] = size / known
	}
	switch len(rest) {
	case 1:
		if rest[0] != size {
			return nil, fmt.Errorf("a reshape of %v to %d values", x.shape, rest[0])
		}
		if x.shape.Flat {
			return nil, nil
		}
		return c.add(weights.Layer{Op: weights.OpFlatten}, x, n.Name)
	case 3:
		return c.add(weights.Layer{Op: weights.OpReshape, Shape: []int{int(rest[0]), int(rest[1]), int(rest[2])}}, x, n.Name)
	}
	return nil, fmt.Errorf("a reshape to %s; the import reads [N, -1] and [N, C, H, W]", dimsString(dims))
}

// resize reads a nearest-neighbour upsampling by whole factors (nn.Upsample(scale_factor=s)).
func (c *converter) resize(n *onnxfile.Node, x input) (*expr, error) {
	s := x.shape
	if s.Flat {
		return nil, fmt.Errorf("a resize of a vector")
	}
	if m := n.Attrs["mode"].S; m != "nearest" {
		return nil, fmt.Errorf("mode %q; the engine upsamples by nearest neighbour", m)
	}
	if ct := n.Attrs["coordinate_transformation_mode"].S; ct != "" && ct != "asymmetric" {
		return nil, fmt.Errorf("coordinate_transformation_mode %q; the import reads PyTorch's nearest upsampling (asymmetric)", ct)
	}
	if nm := n.Attrs["nearest_mode"].S; nm != "" && nm != "floor" {
		return nil, fmt.Errorf("nearest_mode %q; the import reads PyTorch's nearest upsampling (floor)", nm)
	}
	var sh, sw float64
	switch {
	case n.Op == "Resize" && arg(n, 3) != "":
		t, err := c.ints(arg(n, 3), "its sizes")
		if err != nil {
			return nil, err
		}
		if len(t.Int) != 4 {
			return nil, fmt.Errorf("sizes %v", t.Int)
		}
		sh, sw = float64(t.Int[2])/float64(s.H), float64(t.Int[3])/float64(s.W)
	default:
		at := 2
		if n.Op == "Upsample" {
			at = 1
		}
		if arg(n, at) == "" {
			return nil, fmt.Errorf("neither scales nor sizes")
		}
		t, err := c.floats(arg(n, at), "its scales")
		if err != nil {
			return nil, err
		}
		if len(t.Float) != 4 || t.Float[0] != 1 || t.Float[1] != 1 {
			return nil, fmt.Errorf("scales %v; the import reads [1, 1, s, s]", t.Float)
		}
		sh, sw = float64(t.Float[2]), float64(t.Float[3])
	}
	if sh != math.Trunc(sh) || sw != math.Trunc(sw) || sh < 1 || sw < 1 || sh > 64 || sw > 64 {
		return nil, fmt.Errorf("a scale of %g×%g; the engine upsamples by whole factors", sh, sw)
	}
	return c.add(weights.Layer{Op: weights.OpUpsample, Scale: [2]int{int(sh), int(sw)}}, x, n.Name)
}
