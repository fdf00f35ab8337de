//go:build !js

package onnximport

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/deltaclue/deltaclue/engine"
	"github.com/deltaclue/deltaclue/internal/onnxfile"
	"github.com/deltaclue/deltaclue/weights"
)

// Graphs built without an exporter, each small enough to say exactly what it converts to.

func floats(name string, dims []int64, v ...float32) *onnxfile.Tensor {
	n := 1
	for _, d := range dims {
		n *= int(d)
	}
	out := make([]float32, n)
	for i := range out {
		out[i] = 0.1 * float32(i%5-2)
		if len(v) > 0 {
			out[i] = v[i%len(v)]
		}
	}
	return &onnxfile.Tensor{Name: name, Dims: dims, DataType: onnxfile.Float, Float: out}
}

func node(name, op string, in []string, out string, attrs ...any) onnxfile.Node {
	n := onnxfile.Node{Name: name, Op: op, Inputs: in, Outputs: []string{out}, Attrs: map[string]onnxfile.Attr{}}
	for i := 0; i+1 < len(attrs); i += 2 {
		switch v := attrs[i+1].(type) {
		case int64:
			n.Attrs[attrs[i].(string)] = onnxfile.Attr{Type: 2, I: v}
		case []int64:
			n.Attrs[attrs[i].(string)] = onnxfile.Attr{Type: 7, Ints: v}
		}
	}
	return n
}

// skipNet is convNet with a skip connection: the conv's output added to its relu's.
func skipNet() *onnxfile.Model {
	return convNet(func(m *onnxfile.Model) {
		m.Graph.Nodes = append(m.Graph.Nodes[:2:2], node("skip", "Add", []string{"r", "c"}, "s"),
			node("flat", "Flatten", []string{"s"}, "f"), m.Graph.Nodes[3])
	})
}

// seNet is squeeze-and-excitation on convNet's conv: the relu's global average (2×1×1), a 1×1 conv, a
// sigmoid, the relu multiplied by it per channel.
func seNet() *onnxfile.Model {
	return convNet(func(m *onnxfile.Model) {
		m.Graph.Initializers["qw"] = floats("qw", []int64{2, 2, 1, 1})
		m.Graph.Nodes = append(m.Graph.Nodes[:2:2], node("pool", "GlobalAveragePool", []string{"r"}, "p"),
			node("excite", "Conv", []string{"p", "qw"}, "q"), node("gate", "Sigmoid", []string{"q"}, "s"),
			node("scale", "Mul", []string{"r", "s"}, "g"), node("flat", "Flatten", []string{"g"}, "f"), m.Graph.Nodes[3])
	})
}

// geluNet is an MLP on 4 values: MatMul and Add (a dense layer), GELU as torch 1.13 writes nn.GELU
// (h·(1 + erf(h/√2))·0.5), or reordered as (0.5·((h·(1/√2)).erf() + 1))·h, then a Gemm to 3.
func geluNet(reordered bool) *onnxfile.Model {
	m := &onnxfile.Model{IRVersion: 8, Opsets: map[string]int64{"": 17}, Graph: onnxfile.Graph{
		Inputs:  []onnxfile.Value{{Name: "x", ElemType: onnxfile.Float, Dims: []int64{-1, 4}}},
		Outputs: []onnxfile.Value{{Name: "y", ElemType: onnxfile.Float, Dims: []int64{-1, 3}}},
		Initializers: map[string]*onnxfile.Tensor{"w": floats("w", []int64{4, 4}), "b": floats("b", []int64{4}),
			"fw": floats("fw", []int64{3, 4}), "fb": floats("fb", []int64{3}), "sqrt2": floats("sqrt2", nil, math.Sqrt2),
			"rsqrt2": floats("rsqrt2", nil, 1/math.Sqrt2), "one": floats("one", nil, 1), "half": floats("half", nil, 0.5)}}}
	m.Graph.Nodes = []onnxfile.Node{node("mm", "MatMul", []string{"x", "w"}, "m"), node("bias", "Add", []string{"m", "b"}, "h")}
	if reordered {
		m.Graph.Nodes = append(m.Graph.Nodes, node("scale", "Mul", []string{"h", "rsqrt2"}, "d"), node("erf", "Erf", []string{"d"}, "e"),
			node("plus", "Add", []string{"e", "one"}, "a"), node("half", "Mul", []string{"half", "a"}, "p"), node("times", "Mul", []string{"p", "h"}, "g"))
	} else {
		m.Graph.Nodes = append(m.Graph.Nodes, node("div", "Div", []string{"h", "sqrt2"}, "d"), node("erf", "Erf", []string{"d"}, "e"),
			node("plus", "Add", []string{"e", "one"}, "a"), node("times", "Mul", []string{"h", "a"}, "p"), node("half", "Mul", []string{"p", "half"}, "g"))
	}
	m.Graph.Nodes = append(m.Graph.Nodes, node("fc", "Gemm", []string{"g", "fw", "fb"}, "y", "transB", int64(1)))
	return m
}

func mustConvert(t *testing.T, m *onnxfile.Model, opt Options) *Network {
	t.Helper()
	n, err := Convert(m, opt)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (weights.Network{Layers: n.Layers}).Graph("the network", n.In, nil); err != nil {
		t.Fatal(err)
	}
	return n
}

// wiring is each layer's op, with what it reads when that is not the layer before alone.
func wiring(n *Network) string {
	var s []string
	for _, l := range n.Layers {
		w := l.Op
		if l.Name != "" {
			w = l.Name + "=" + w
		}
		if len(l.Inputs) > 0 {
			w += "(" + strings.Join(l.Inputs, ",") + ")"
		}
		s = append(s, w)
	}
	return strings.Join(s, " ")
}

// TestGraphWiring: the layers read what the nodes read; only a layer read out of order, or by a merge, is
// named (by its node), and MC dropout placed before a node masks that node's input edge alone.
func TestGraphWiring(t *testing.T) {
	for name, c := range map[string]struct {
		m    *onnxfile.Model
		opt  Options
		want string
	}{
		"a chain":                {convNet(nil), Options{}, "conv2d relu flatten dense"},
		"a skip connection":      {skipNet(), Options{}, "conv=conv2d relu=relu add(relu,conv) flatten dense"},
		"dropout before the add": {skipNet(), Options{Dropout: map[string]float64{"skip": 0.3}}, "conv=conv2d relu layer2=dropout layer3=dropout(conv) add(layer2,layer3) flatten dense"},
		// The relu reads the conv's output through a dropout; the skip reads it unmasked.
		"dropout on one edge":    {skipNet(), Options{Dropout: map[string]float64{"relu": 0.3}}, "conv=conv2d dropout relu=relu add(relu,conv) flatten dense"},
		"squeeze-and-excitation": {seNet(), Options{}, "conv2d relu=relu avg-pool conv2d gate=sigmoid mul(relu,gate) flatten dense"},
		"GELU of ops":            {geluNet(false), Options{}, "dense gelu dense"},
		"GELU reordered":         {geluNet(true), Options{}, "dense gelu dense"},
		"the input read twice": {convNet(func(m *onnxfile.Model) {
			conv2 := m.Graph.Nodes[0]
			conv2.Name, conv2.Outputs = "conv2", []string{"c2"}
			m.Graph.Nodes = append(m.Graph.Nodes[:1:1], conv2, node("sum", "Add", []string{"c", "c2"}, "s"), node("relu", "Relu", []string{"s"}, "r"), m.Graph.Nodes[2], m.Graph.Nodes[3])
		}), Options{}, "conv=conv2d conv2=conv2d(input) add(conv,conv2) relu flatten dense"},
	} {
		if got := wiring(mustConvert(t, c.m, c.opt)); got != c.want {
			t.Errorf("%s: %s, want %s", name, got, c.want)
		}
	}
}

// TestGELUNearMisses: an expression of Erf that is not GELU (a scale of 0.6 for 0.5) is refused at its Erf,
// and the MatMul's Add is the dense layer's bias.
func TestGELUNearMisses(t *testing.T) {
	m := geluNet(false)
	m.Graph.Initializers["half"].Float[0] = 0.6
	if _, err := Convert(m, Options{}); err == nil || !strings.Contains(err.Error(), "node erf (Erf): an erf outside GELU") {
		t.Errorf("0.6·x·(1 + erf(x/√2)): %v", err)
	}
	n := mustConvert(t, geluNet(false), Options{Prefix: "p"})
	if b := n.Tensors[1]; b.Name != "p/0/biases" || !slices.Equal(b.Values, geluNet(false).Graph.Initializers["b"].Float) {
		t.Errorf("the dense layer's bias: %s %v", b.Name, b.Values)
	}
}

// TestAffines: a BatchNormalization, a Mul or a Div by a constant folds into the dense or convolution layer
// before it when it is that layer's only reader, else becomes a batch-norm layer; an Add of one value per
// channel after a relu is a batch-norm layer of scale 1.
func TestAffines(t *testing.T) {
	bnInputs := func(m *onnxfile.Model) {
		m.Graph.Initializers["g"] = floats("g", []int64{2}, 1.5, 0.5)
		m.Graph.Initializers["be"] = floats("be", []int64{2}, 0.1, -0.2)
		m.Graph.Initializers["mu"] = floats("mu", []int64{2}, 0.3, -0.1)
		m.Graph.Initializers["var"] = floats("var", []int64{2}, 4, 0.25)
	}
	plain := mustConvert(t, convNet(nil), Options{Prefix: "p"})
	// conv → BN → relu: folded, channel o's weights times γ/√(σ²+ε) and its bias (b − μ)·γ/√(σ²+ε) + β.
	folded := mustConvert(t, convNet(func(m *onnxfile.Model) {
		bnInputs(m)
		m.Graph.Nodes = append(m.Graph.Nodes[:1:1], node("bn", "BatchNormalization", []string{"c", "g", "be", "mu", "var"}, "n"),
			node("relu", "Relu", []string{"n"}, "r"), m.Graph.Nodes[2], m.Graph.Nodes[3])
	}), Options{Prefix: "p"})
	if got := wiring(folded); got != "conv2d relu flatten dense" {
		t.Errorf("a foldable BN: %s", got)
	}
	for o, g := range []float64{1.5, 0.5} {
		v := []float64{4, 0.25}[o]
		f := g / math.Sqrt(v+1e-5)
		w, w0 := folded.Tensors[0].Values[o*9+4], plain.Tensors[0].Values[o*9+4]
		b, b0 := folded.Tensors[1].Values[o], plain.Tensors[1].Values[o]
		wantB := (float64(b0)-[]float64{0.3, -0.1}[o])*f + []float64{0.1, -0.2}[o]
		if math.Abs(float64(w)-float64(w0)*f) > 1e-6 || math.Abs(float64(b)-wantB) > 1e-6 {
			t.Errorf("channel %d: weight %v (was %v), bias %v, want ×%v and %v", o, w, w0, b, f, wantB)
		}
	}
	// The conv's output is read by the skip too: the BN is a layer of its own.
	shared := mustConvert(t, convNet(func(m *onnxfile.Model) {
		bnInputs(m)
		m.Graph.Nodes = append(m.Graph.Nodes[:1:1], node("bn", "BatchNormalization", []string{"c", "g", "be", "mu", "var"}, "n"),
			node("relu", "Relu", []string{"n"}, "r"), node("skip", "Add", []string{"r", "c"}, "s"), node("flat", "Flatten", []string{"s"}, "f"), m.Graph.Nodes[3])
	}), Options{Prefix: "p"})
	if got := wiring(shared); got != "conv=conv2d batch-norm relu=relu add(relu,conv) flatten dense" {
		t.Errorf("a BN of a conv the skip reads: %s", got)
	}
	if w, b := shared.Tensors[2], shared.Tensors[3]; w.Name != "p/1/weights" || !slices.Equal(w.Shape, []int{2}) ||
		math.Abs(float64(w.Values[1])-0.5/math.Sqrt(0.25+1e-5)) > 1e-6 || math.Abs(float64(b.Values[1])-(0.1*0.5/math.Sqrt(0.25+1e-5)-0.2)) > 1e-6 {
		t.Errorf("the batch-norm layer's scale %v and shift %v", w.Values, b.Values)
	}
	// The classifier's logits halved (Div by 2) and doubled (Mul by 2): folded into the dense layer, as before.
	scaled := mustConvert(t, convNet(func(m *onnxfile.Model) {
		m.Graph.Initializers["two"] = floats("two", nil, 2)
		m.Graph.Nodes[3].Outputs = []string{"z"}
		m.Graph.Nodes = append(m.Graph.Nodes, node("half", "Div", []string{"z", "two"}, "h"), node("double", "Mul", []string{"two", "h"}, "y"))
	}), Options{Prefix: "p"})
	if wiring(scaled) != "conv2d relu flatten dense" || !slices.Equal(scaled.Tensors[2].Values, plain.Tensors[2].Values) {
		t.Errorf("a dense layer halved and doubled: %s", wiring(scaled))
	}
	// One value per channel added after the relu: a batch-norm layer of scale 1.
	shifted := mustConvert(t, convNet(func(m *onnxfile.Model) {
		m.Graph.Initializers["shift"] = floats("shift", []int64{1, 2, 1, 1}, 0.25, -0.5)
		m.Graph.Nodes = append(m.Graph.Nodes[:2:2], node("shift", "Add", []string{"shift", "r"}, "a"), node("flat", "Flatten", []string{"a"}, "f"), m.Graph.Nodes[3])
	}), Options{Prefix: "p"})
	if w, b := shifted.Tensors[2].Values, shifted.Tensors[3].Values; wiring(shifted) != "conv2d relu batch-norm flatten dense" ||
		!slices.Equal(w, []float32{1, 1}) || !slices.Equal(b, []float32{0.25, -0.5}) {
		t.Errorf("a shift per channel: %s, scale %v, shift %v", wiring(shifted), w, b)
	}
}

// TestReduceMean: x.mean((2, 3)) is global average pooling, its axes an attribute up to opset 17 and an input
// from opset 18; keepdims=0 adds the flatten its [N, C] output is.
func TestReduceMean(t *testing.T) {
	for _, opset := range []int64{13, 18} {
		for _, keep := range []int64{0, 1} {
			m := convNet(func(m *onnxfile.Model) {
				m.Opsets[""] = opset
				mean := node("mean", "ReduceMean", []string{"r"}, "p", "keepdims", keep)
				if opset < 18 {
					mean.Attrs["axes"] = onnxfile.Attr{Type: 7, Ints: []int64{-1, 2}}
				} else {
					m.Graph.Initializers["axes"] = &onnxfile.Tensor{Name: "axes", Dims: []int64{2}, DataType: onnxfile.Int64, Int: []int64{2, 3}}
					mean.Inputs = append(mean.Inputs, "axes")
				}
				m.Graph.Initializers["fw"] = floats("fw", []int64{3, 2})
				m.Graph.Nodes = append(m.Graph.Nodes[:2:2], mean, node("flat", "Flatten", []string{"p"}, "f"), m.Graph.Nodes[3])
			})
			n := mustConvert(t, m, Options{})
			if got := wiring(n); got != "conv2d relu avg-pool flatten dense" || n.Layers[2].Kernel != [2]int{4, 4} {
				t.Errorf("opset %d, keepdims %d: %s", opset, keep, got)
			}
		}
	}
}

// TestEvalModeOfGraphs: the eval-mode network of a graph whose dropout a merge reads by name (MC dropout on
// both inputs of the skip connection's Add) loads, and gives the probabilities of the same network with its
// dropout placed elsewhere: its dropout layers are identities, not gone.
func TestEvalModeOfGraphs(t *testing.T) {
	needEngineGraphs(t)
	probs := func(dropout string) []float32 {
		net := mustConvert(t, skipNet(), Options{Prefix: "bnn", Dropout: map[string]float64{dropout: 0.3}})
		vae, vt := tinyVAE(net.In)
		d, files, err := Describe(Parts{Classifier: []*Network{net}, VAE: vae, VAETensors: vt}, Info{Name: "skip", Classes: []string{"a", "b", "c"}, Samples: 4, MaskSeed: 1})
		if err != nil {
			t.Fatal(err)
		}
		_, bnn, err := engine.Load(EvalMode(d), files)
		if err != nil {
			t.Fatalf("dropout before %s: %v", dropout, err)
		}
		x := make([]float32, 2*16)
		for i := range x {
			x[i] = float32(i%7) / 7
		}
		var p []float32
		for _, u := range bnn.Classify(x) {
			p = append(p, u.Probs...)
		}
		return p
	}
	if a, b := probs("skip"), probs("fc"); !slices.Equal(a, b) {
		t.Errorf("eval mode with dropout before the add %v, before the dense layer %v", a, b)
	}
}
