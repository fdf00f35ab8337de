//go:build !js

package onnximport

import (
	"fmt"
	"math"
	"slices"

	"github.com/deltaclue/deltaclue/internal/onnxfile"
	"github.com/deltaclue/deltaclue/weights"
)

// Elementwise ops. An exporter writes some activations as several ops: GELU as x·0.5·(1 + erf(x/√2)) (torch
// 1.13's nn.GELU) or its tanh form, SiLU as x·sigmoid(x), hard-swish at opset 13 as x·HardSigmoid(x); and a
// batch normalisation or a scaling as an affine of the layer before it. So an elementwise node is kept as an
// expression of its inputs, and made into layers only when a layer (or the graph's output) reads it, in this
// order: an activation op of one input is its layer; an expression of one value that is, to 10⁻⁶ at 71
// points, a known activation of it is that layer (whatever order the ops came in); an affine by constants of
// one value or one per channel folds into the dense, convolution or batch-norm layer that gives its input when
// it is that layer's only reader, else is a batch-norm layer; an Add or Mul of two activations is a merge.
// Anything else is refused naming the node.

// elementwise are the ops kept as expressions until a layer reads them.
var elementwise = map[string]bool{"Relu": true, "LeakyRelu": true, "Sigmoid": true, "Tanh": true, "Elu": true,
	"Softplus": true, "Clip": true, "HardSigmoid": true, "HardSwish": true, "Erf": true, "Add": true, "Sub": true,
	"Mul": true, "Div": true, "Pow": true, "BatchNormalization": true}

// elementwise checks an elementwise node's inputs and returns its value, an expression of them.
func (c *converter) elementwise(n *onnxfile.Node, ops []operand) (*expr, error) {
	var xs []*expr
	for _, o := range ops {
		if o.x != nil {
			if o.x.pad != nil {
				return nil, fmt.Errorf("it follows a Pad; the import reads a Pad only as the padding of the convolution or average pool right after it")
			}
			xs = append(xs, o.x)
		}
	}
	if ops[0].x == nil && n.Op != "Add" && n.Op != "Sub" && n.Op != "Mul" {
		return nil, fmt.Errorf("its first input is a constant where the import reads the activation")
	}
	shape := xs[0].shape
	switch n.Op {
	case "Add", "Sub", "Mul", "Div", "Pow":
		if len(ops) != 2 || (ops[0].x == nil && ops[0].k == nil) || (ops[1].x == nil && ops[1].k == nil) {
			return nil, fmt.Errorf("a %s of %d inputs", n.Op, len(ops))
		}
		if len(xs) == 2 {
			s, err := broadcast(xs[0].shape, xs[1].shape)
			if err != nil {
				return nil, err
			}
			shape = s
			break
		}
		k := ops[0].k
		if k == nil {
			k = ops[1].k
		}
		if n.Op == "Pow" {
			if _, err := scalar(k, "its exponent"); err != nil {
				return nil, err
			}
			break
		}
		if _, err := perChannel(k, shape); err != nil {
			return nil, err
		}
	case "BatchNormalization":
		if len(n.Inputs) != 5 || len(n.Outputs) > 1 && n.Outputs[1] != "" {
			return nil, fmt.Errorf("a batch normalisation in training mode; export the model in eval mode (model.eval())")
		}
		if _, err := c.batchNorm(n, shape); err != nil {
			return nil, err
		}
	case "Clip":
		if _, err := clipLayer(n, ops); err != nil {
			return nil, err
		}
	default:
		if len(xs) != 1 || len(ops) != 1 {
			return nil, fmt.Errorf("a %s of %d inputs", n.Op, len(ops))
		}
	}
	return &expr{shape: shape, node: n, in: ops}, nil
}

// broadcast is the shape of an elementwise op of two activations: of one shape, or an image and one value per
// channel of it (squeeze-and-excitation's gate), as ONNX broadcasts [N, C, H, W] with [N, C, 1, 1].
func broadcast(a, b weights.Shape) (weights.Shape, error) {
	switch {
	case a == b:
		return a, nil
	case !a.Flat && !b.Flat && a.C == b.C && b.H == 1 && b.W == 1:
		return a, nil
	case !a.Flat && !b.Flat && a.C == b.C && a.H == 1 && a.W == 1:
		return b, nil
	}
	return weights.Shape{}, fmt.Errorf("its inputs are %v and %v; the import reads two activations of one shape, or an image and one value per channel of it", a, b)
}

// makeElementwise makes the expression x into layers (see above) and returns the value of the layer made,
// or x itself when it folded into the layer before.
func (c *converter) makeElementwise(x *expr) (*expr, error) {
	n := x.node
	l, ok, err := activationLayer(n, x.in)
	if err != nil {
		return nil, err
	}
	if ok {
		k, err := c.materialize(x.in[0].x)
		if err != nil {
			return nil, err
		}
		return c.add(l, input{layer: k, shape: x.in[0].x.shape}, n.Name)
	}
	if v, l, ok := recognise(x); ok {
		k, err := c.materialize(v)
		if err != nil {
			return nil, err
		}
		return c.add(l, input{layer: k, shape: v.shape}, n.Name)
	}
	a, f, ok, err := c.affineOf(x)
	if err != nil {
		return nil, err
	}
	if ok {
		return c.affine(x, a, f)
	}
	if len(x.in) == 2 && x.in[0].x != nil && x.in[1].x != nil && (n.Op == "Add" || n.Op == "Mul") {
		in, err := c.all(x.in)
		if err != nil {
			return nil, err
		}
		return c.merge(map[string]string{"Add": weights.OpAdd, "Mul": weights.OpMul}[n.Op], in, n.Name)
	}
	return nil, refuseElementwise(n.Op)
}

// refuseElementwise says why an elementwise op is no layer.
func refuseElementwise(op string) error {
	switch op {
	case "Erf":
		return fmt.Errorf("an erf outside GELU; the import reads Erf within GELU, x·0.5·(1 + erf(x/√2)) (nn.GELU())")
	case "Pow":
		return fmt.Errorf("a power outside GELU's tanh form; the import reads Pow within 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))) (nn.GELU(approximate=\"tanh\"))")
	}
	return fmt.Errorf("a %s of two activations, or of a constant by one, which no layer computes; the import reads Add and Mul of two activations, "+
		"Add, Sub, Mul and Div by a constant, and the ops of GELU, SiLU and hard-swish", op)
}

// activationLayer is the layer of an activation op of one input (ok false for another op).
func activationLayer(n *onnxfile.Node, ops []operand) (weights.Layer, bool, error) {
	f := func(name string, def float64) float64 {
		if a, ok := n.Attrs[name]; ok {
			return float64(a.F)
		}
		return def
	}
	switch n.Op {
	case "Relu":
		return weights.Layer{Op: weights.OpReLU}, true, nil
	case "LeakyRelu":
		return weights.Layer{Op: weights.OpLeakyReLU, Slope: f("alpha", 0.01)}, true, nil
	case "Sigmoid":
		return weights.Layer{Op: weights.OpSigmoid}, true, nil
	case "Tanh":
		return weights.Layer{Op: weights.OpTanh}, true, nil
	case "Elu":
		return weights.Layer{Op: weights.OpELU, Alpha: f("alpha", 1)}, true, nil
	case "Softplus":
		return weights.Layer{Op: weights.OpSoftplus}, true, nil
	case "HardSigmoid":
		return weights.Layer{Op: weights.OpHardSigmoid, Alpha: f("alpha", 0.2), Beta: f("beta", 0.5)}, true, nil
	case "HardSwish":
		return weights.Layer{Op: weights.OpHardSwish}, true, nil
	case "Clip":
		l, err := clipLayer(n, ops)
		return l, err == nil, err
	}
	return weights.Layer{}, false, nil
}

// clipLayer is a Clip's layer: its bounds from its inputs (opsets 11 on) or attributes, an infinite one none.
func clipLayer(n *onnxfile.Node, ops []operand) (weights.Layer, error) {
	l := weights.Layer{Op: weights.OpClip}
	for i, bound := range []**float64{&l.Min, &l.Max} {
		name := []string{"min", "max"}[i]
		var v float64
		switch {
		case i+1 < len(ops) && ops[i+1].x != nil:
			return l, fmt.Errorf("its %s is an activation; the import reads a clip to constant bounds", name)
		case i+1 < len(ops) && ops[i+1].k != nil:
			s, err := scalar(ops[i+1].k, "its "+name)
			if err != nil && !math.IsInf(s, 0) {
				return l, err
			}
			v = s
		case n.Attrs[name].Type == 1:
			v = float64(n.Attrs[name].F)
		default:
			continue
		}
		if !math.IsInf(v, 0) && !math.IsNaN(v) {
			*bound = &v
		}
	}
	if l.Min != nil && l.Max != nil && *l.Min > *l.Max {
		return l, fmt.Errorf("a clip to [%v, %v], whose min is above its max", *l.Min, *l.Max)
	}
	if l.Min == nil && l.Max == nil {
		return weights.Layer{Op: weights.OpIdentity}, nil
	}
	return l, nil
}

// scalar is a constant of one float value; an infinite one is returned with an error.
func scalar(t *onnxfile.Tensor, what string) (float64, error) {
	if t.Len() != 1 || len(t.Float) != 1 {
		return 0, fmt.Errorf("%s (%q, shape %s) is not one float value", what, t.Name, dimsString(t.Dims))
	}
	v := float64(t.Float[0])
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return v, fmt.Errorf("%s (%q) is %v", what, t.Name, v)
	}
	return v, nil
}

// perChannel is a constant that an activation of shape s is added to, multiplied or divided by, one value per
// channel (a scalar repeated), or an error when ONNX would broadcast it otherwise: an image's is [C, 1, 1] or
// [1, C, 1, 1], a vector's [C] or [1, C], either's one value.
func perChannel(t *onnxfile.Tensor, s weights.Shape) ([]float64, error) {
	rank := 4
	if s.Flat {
		rank = 2
	}
	bad := fmt.Errorf("a constant of shape %s on %v; the import reads one value, or one per channel ([1, C, 1, 1] for an image, [1, C] for a vector)", dimsString(t.Dims), s)
	if len(t.Float) != t.Len() || t.Int != nil {
		return nil, fmt.Errorf("a constant (%q) that is not a float tensor", t.Name)
	}
	for i, d := range t.Dims {
		axis := rank - len(t.Dims) + i // ONNX aligns the last dimensions
		if d != 1 && (axis != 1 || d != int64(s.C)) {
			return nil, bad
		}
	}
	out := make([]float64, s.C)
	for o := range out {
		v := t.Float[0]
		if len(t.Float) > 1 {
			v = t.Float[o]
		}
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return nil, fmt.Errorf("a constant (%q) that holds NaN or infinite values", t.Name)
		}
		out[o] = float64(v)
	}
	return out, nil
}

// affine is y = (x + pre)·scale + post, per channel, in float64.
type affine struct{ pre, scale, post []float64 }

// newAffine is the identity on c channels.
func newAffine(c int) affine {
	f := affine{make([]float64, c), make([]float64, c), make([]float64, c)}
	for o := range f.scale {
		f.scale[o] = 1
	}
	return f
}

// affineOf reads x as an affine of one activation a by constants: Add, Sub, Mul or Div (of the activation by a
// constant) or an eval-mode BatchNormalization.
func (c *converter) affineOf(x *expr) (a *expr, f affine, ok bool, err error) {
	n := x.node
	if n.Op == "BatchNormalization" {
		f, err = c.batchNorm(n, x.in[0].x.shape)
		return x.in[0].x, f, err == nil, err
	}
	if n.Op != "Add" && n.Op != "Sub" && n.Op != "Mul" && n.Op != "Div" || (x.in[0].x != nil) == (x.in[1].x != nil) {
		return nil, f, false, nil
	}
	at, k := 0, x.in[1].k
	if x.in[0].x == nil {
		at, k = 1, x.in[0].k
	}
	a = x.in[at].x
	v, err := perChannel(k, a.shape)
	if err != nil {
		return nil, f, false, err
	}
	f = newAffine(a.shape.C)
	for o, kv := range v {
		switch {
		case n.Op == "Add":
			f.post[o] = kv
		case n.Op == "Sub" && at == 0:
			f.post[o] = -kv
		case n.Op == "Sub":
			f.scale[o], f.post[o] = -1, kv
		case n.Op == "Mul":
			f.scale[o] = kv
		case n.Op == "Div" && at == 0 && kv != 0:
			f.scale[o] = 1 / kv
		default: // a division by an activation, or by zero
			return nil, f, false, nil
		}
	}
	return a, f, true, nil
}

// batchNorm is an eval-mode batch normalisation of s as an affine: (x − μ)·γ/√(σ²+ε) + β per channel.
func (c *converter) batchNorm(n *onnxfile.Node, s weights.Shape) (affine, error) {
	var p [4][]float32
	for i, what := range []string{"its scale", "its bias", "its running mean", "its running variance"} {
		t, err := c.floats(n.Inputs[i+1], what)
		if err != nil {
			return affine{}, err
		}
		if len(t.Float) != s.C {
			return affine{}, fmt.Errorf("%s has %d values for %d channels", what, len(t.Float), s.C)
		}
		p[i] = t.Float
	}
	eps := 1e-5
	if a, ok := n.Attrs["epsilon"]; ok {
		eps = float64(a.F)
	}
	f := newAffine(s.C)
	for o := range s.C {
		if p[3][o] < 0 || float64(p[3][o])+eps <= 0 {
			return affine{}, fmt.Errorf("a running variance of %v with epsilon %v", p[3][o], eps)
		}
		f.pre[o] = -float64(p[2][o])
		f.scale[o] = float64(p[0][o]) / math.Sqrt(float64(p[3][o])+eps)
		f.post[o] = float64(p[1][o])
	}
	return f, nil
}

// affine makes x, an affine f of a: folded into the dense, convolution or batch-norm layer that gives a when x
// is its only reader (in float64: w·s, and (b + pre)·s + post, per output channel), else a batch-norm layer.
func (c *converter) affine(x, a *expr, f affine) (*expr, error) {
	k, err := c.materialize(a)
	if err != nil {
		return nil, err
	}
	if k >= 0 && a.made && a.layer == k && c.gives[k] == a && a.readers == 1 {
		switch l := c.net.Layers[k]; l.Op {
		case weights.OpDense, weights.OpConv, weights.OpConvTranspose, weights.OpBatchNorm:
			w := c.net.Tensors[c.tensors[l.Weights]]
			b := c.net.Tensors[c.tensors[l.Bias]].Values
			for o := range b {
				b[o] = float32((float64(b[o])+f.pre[o])*f.scale[o] + f.post[o])
				if f.scale[o] != 1 {
					scaleUnit(w, l, o, f.scale[o])
				}
			}
			x.made, x.layer = true, k
			c.gives[k] = x
			return x, nil
		}
	}
	w, b := make([]float32, a.shape.C), make([]float32, a.shape.C)
	for o := range w {
		w[o] = float32(f.scale[o])
		b[o] = float32(f.pre[o]*f.scale[o] + f.post[o])
	}
	return c.weighted(weights.Layer{Op: weights.OpBatchNorm}, input{layer: k, shape: a.shape}, w, []int{a.shape.C}, b, []int{a.shape.C}, x.node.Name)
}

// scaleUnit multiplies output unit or channel o's weights by f.
func scaleUnit(w weights.Named, l weights.Layer, o int, f float64) {
	v, sh := w.Values, w.Shape
	mul := func(from, to int) {
		for j := from; j < to; j++ {
			v[j] = float32(float64(v[j]) * f)
		}
	}
	switch l.Op {
	case weights.OpDense: // [in, out]
		for i := range sh[0] {
			mul(i*sh[1]+o, i*sh[1]+o+1)
		}
	case weights.OpConv: // [out, in/groups, kh, kw]
		per := sh[1] * sh[2] * sh[3]
		mul(o*per, (o+1)*per)
	case weights.OpConvTranspose: // [in, out/groups, kh, kw]: channel o is column o%(out/groups) of its group's inputs
		per, cols := sh[2]*sh[3], sh[1]
		ins := sh[0] / max(l.Groups, 1)
		group := o / cols
		for i := group * ins; i < (group+1)*ins; i++ {
			at := (i*cols + o%cols) * per
			mul(at, at+per)
		}
	case weights.OpBatchNorm: // [C]
		mul(o, o+1)
	}
}

// compounds are the activations an exporter writes as several elementwise ops, as functions of one value.
var compounds = []struct {
	layer weights.Layer
	f     func(float64) float64
}{
	{weights.Layer{Op: weights.OpGELU}, func(v float64) float64 { return 0.5 * v * (1 + math.Erf(v/math.Sqrt2)) }},
	{weights.Layer{Op: weights.OpGELU, Approximate: weights.ApproximateTanh}, func(v float64) float64 {
		return 0.5 * v * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(v+0.044715*v*v*v)))
	}},
	{weights.Layer{Op: weights.OpSiLU}, func(v float64) float64 { return v / (1 + math.Exp(-v)) }},
	{weights.Layer{Op: weights.OpHardSwish}, func(v float64) float64 { return v * math.Max(0, math.Min(1, v/6+0.5)) }},
}

// samples are where an expression is compared with the compounds: −8 to 8 by quarters, and a few beyond.
var samples = func() []float64 {
	s := []float64{-30, -12, -0.1, 0.1, 12, 30}
	for i := range 65 {
		s = append(s, -8+float64(i)/4)
	}
	return s
}()

// maxCompound bounds the expressions recognise tries: a compound is a handful of ops.
const maxCompound = 32

// recognise finds a value v that x depends on alone (every path from x to a layer passes through v), the
// nearest x first, of which x is a compound activation (GELU's 0.5 scales the product of x and 1 + erf, so the
// nearest such value, that product, is not the one).
func recognise(x *expr) (*expr, weights.Layer, bool) {
	switch x.node.Op {
	case "Add", "Sub", "Mul", "Div", "Pow", "Erf":
	default:
		return nil, weights.Layer{}, false
	}
	order := subexprs(x)
	if len(order) < 2 {
		return nil, weights.Layer{}, false
	}
	for _, v := range order[1:] {
		if k := compoundOf(x, v); k >= 0 {
			return v, compounds[k].layer, true
		}
	}
	return nil, weights.Layer{}, false
}

// compoundOf is the index of the compound x is of v, −1 when x depends on more than v (or on what cannot be
// computed one value at a time) or is none: each sample drops the compounds it does not match, to 10⁻⁶
// (relative beyond 1; float32 constants in the ops, √2, 0.044715 or 1/6, stay well within, and GELU's two
// forms, 10⁻⁴ apart, stay apart).
func compoundOf(x, v *expr) int {
	alive := make([]int, len(compounds))
	for k := range alive {
		alive[k] = k
	}
	for _, s := range samples {
		y, ok := eval(x, v, s, map[*expr]float64{})
		if !ok {
			return -1
		}
		alive = slices.DeleteFunc(alive, func(k int) bool {
			want := compounds[k].f(s)
			return !(math.Abs(y-want) <= 1e-6*(1+math.Abs(want)))
		})
		if len(alive) == 0 {
			return -1
		}
	}
	return alive[0]
}

// subexprs lists x and the values it is computed from, breadth first, through elementwise nodes (nil when
// there are more than maxCompound).
func subexprs(x *expr) []*expr {
	order := []*expr{x}
	seen := map[*expr]bool{x: true}
	for i := 0; i < len(order); i++ {
		e := order[i]
		if e.node == nil || e.pad != nil || !elementwise[e.node.Op] {
			continue
		}
		for _, o := range e.in {
			if o.x != nil && !seen[o.x] {
				if len(order) == maxCompound {
					return nil
				}
				seen[o.x] = true
				order = append(order, o.x)
			}
		}
	}
	return order
}

// eval computes e where v is s, in float64.
func eval(e, v *expr, s float64, memo map[*expr]float64) (float64, bool) {
	if e == v {
		return s, true
	}
	if y, ok := memo[e]; ok {
		return y, true
	}
	if e.node == nil || e.pad != nil || e.node.Op == "BatchNormalization" {
		return 0, false
	}
	args := make([]float64, len(e.in))
	for i, o := range e.in {
		switch {
		case o.x != nil:
			y, ok := eval(o.x, v, s, memo)
			if !ok {
				return 0, false
			}
			args[i] = y
		case o.k != nil:
			if o.k.Len() != 1 || len(o.k.Float) != 1 {
				return 0, false
			}
			args[i] = float64(o.k.Float[0])
		default:
			args[i] = math.NaN() // an input left out
		}
	}
	y, ok := evalOp(e.node, args)
	memo[e] = y
	return y, ok
}

// evalOp computes an elementwise op of its inputs' values.
func evalOp(n *onnxfile.Node, a []float64) (float64, bool) {
	attr := func(name string, def float64) float64 {
		if at, ok := n.Attrs[name]; ok {
			return float64(at.F)
		}
		return def
	}
	x := a[0]
	switch n.Op {
	case "Add":
		return x + a[1], true
	case "Sub":
		return x - a[1], true
	case "Mul":
		return x * a[1], true
	case "Div":
		return x / a[1], true
	case "Pow":
		return math.Pow(x, a[1]), true
	case "Erf":
		return math.Erf(x), true
	case "Tanh":
		return math.Tanh(x), true
	case "Sigmoid":
		return 1 / (1 + math.Exp(-x)), true
	case "Relu":
		return math.Max(x, 0), true
	case "LeakyRelu":
		if x < 0 {
			return x * attr("alpha", 0.01), true
		}
		return x, true
	case "Elu":
		if x < 0 {
			return attr("alpha", 1) * math.Expm1(x), true
		}
		return x, true
	case "Softplus":
		return math.Log1p(math.Exp(x)), true
	case "HardSigmoid":
		return math.Max(0, math.Min(1, attr("alpha", 0.2)*x+attr("beta", 0.5))), true
	case "HardSwish":
		return x * math.Max(0, math.Min(1, x/6+0.5)), true
	case "Clip":
		lo, hi := math.Inf(-1), math.Inf(1)
		if len(a) > 1 && !math.IsNaN(a[1]) {
			lo = a[1]
		} else if at, ok := n.Attrs["min"]; ok {
			lo = float64(at.F)
		}
		if len(a) > 2 && !math.IsNaN(a[2]) {
			hi = a[2]
		} else if at, ok := n.Attrs["max"]; ok {
			hi = float64(at.F)
		}
		return math.Max(lo, math.Min(hi, x)), true
	}
	return 0, false
}
