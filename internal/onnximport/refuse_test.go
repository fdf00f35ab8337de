//go:build !js

package onnximport

import (
	"math"
	"strings"
	"testing"

	"github.com/deltaclue/deltaclue/internal/onnxfile"
)

// convNet is a small graph built without an exporter: Conv 1→2 (3×3, pad 1) on [N, 1, 4, 4], Relu, Flatten,
// Gemm to 3; edit changes it before it is returned.
func convNet(edit func(m *onnxfile.Model)) *onnxfile.Model {
	f := func(n int, v float32) []float32 {
		out := make([]float32, n)
		for i := range out {
			out[i] = v * float32(i%7-3)
		}
		return out
	}
	m := &onnxfile.Model{IRVersion: 8, Opsets: map[string]int64{"": 17}, Graph: onnxfile.Graph{
		Inputs:  []onnxfile.Value{{Name: "x", ElemType: onnxfile.Float, Dims: []int64{-1, 1, 4, 4}}},
		Outputs: []onnxfile.Value{{Name: "y", ElemType: onnxfile.Float, Dims: []int64{-1, 3}}},
		Initializers: map[string]*onnxfile.Tensor{
			"cw": {Name: "cw", Dims: []int64{2, 1, 3, 3}, DataType: onnxfile.Float, Float: f(18, 0.1)},
			"cb": {Name: "cb", Dims: []int64{2}, DataType: onnxfile.Float, Float: f(2, 0.1)},
			"fw": {Name: "fw", Dims: []int64{3, 32}, DataType: onnxfile.Float, Float: f(96, 0.05)},
			"fb": {Name: "fb", Dims: []int64{3}, DataType: onnxfile.Float, Float: f(3, 0.1)},
		},
		Nodes: []onnxfile.Node{
			{Name: "conv", Op: "Conv", Inputs: []string{"x", "cw", "cb"}, Outputs: []string{"c"}, Attrs: map[string]onnxfile.Attr{"pads": {Type: 7, Ints: []int64{1, 1, 1, 1}}}},
			{Name: "relu", Op: "Relu", Inputs: []string{"c"}, Outputs: []string{"r"}},
			{Name: "flat", Op: "Flatten", Inputs: []string{"r"}, Outputs: []string{"f"}},
			{Name: "fc", Op: "Gemm", Inputs: []string{"f", "fw", "fb"}, Outputs: []string{"y"}, Attrs: map[string]onnxfile.Attr{"transB": {Type: 2, I: 1}}},
		}}}
	if edit != nil {
		edit(m)
	}
	return m
}

// TestConvNet: the hand-built graph converts to the layers it holds.
func TestConvNet(t *testing.T) {
	n, err := Convert(convNet(nil), Options{Prefix: "p"})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(layerOps(n), " "); got != "conv2d relu flatten dense" {
		t.Errorf("layers %s", got)
	}
	if n.In.String() != "1×4×4" || n.Out.String() != "3 values" {
		t.Errorf("shapes %v → %v", n.In, n.Out)
	}
	// Gemm's transB weights [out, in] become the dense layer's [in, out].
	w := n.Tensors[2]
	if w.Name != "p/3/weights" || w.Shape[0] != 32 || w.Shape[1] != 3 || w.Values[1] != 0.05*float32(32%7-3) {
		t.Errorf("the dense weights: %s %v, [0][1] = %v", w.Name, w.Shape, w.Values[1])
	}
}

// TestRefusals: what the import cannot run is refused in one sentence naming the op, the node and the reason.
func TestRefusals(t *testing.T) {
	for name, c := range map[string]struct {
		edit func(m *onnxfile.Model)
		opt  Options
		want string
	}{
		"an unsupported op": {func(m *onnxfile.Model) { m.Graph.Nodes[1].Op = "Erf" }, Options{},
			"node relu (Erf): the import does not read this op; it reads Gemm"},
		"an old opset":     {func(m *onnxfile.Model) { m.Opsets[""] = 11 }, Options{}, "opset 11; the import reads opsets 13 to 18"},
		"a future opset":   {func(m *onnxfile.Model) { m.Opsets[""] = 21 }, Options{}, "opset 21"},
		"NaN weights":      {func(m *onnxfile.Model) { m.Graph.Initializers["fw"].Float[5] = float32(math.NaN()) }, Options{}, "node fc (Gemm): its weights (\"fw\") holds NaN"},
		"infinite weights": {func(m *onnxfile.Model) { m.Graph.Initializers["cw"].Float[0] = float32(math.Inf(1)) }, Options{}, "infinite"},
		"a 3-D input":      {func(m *onnxfile.Model) { m.Graph.Inputs[0].Dims = []int64{-1, 4, 4} }, Options{}, "N×C×H×W"},
		"an integer input": {func(m *onnxfile.Model) { m.Graph.Inputs[0].ElemType = onnxfile.Int64 }, Options{}, "not float32"},
		"two outputs":      {func(m *onnxfile.Model) { m.Graph.Outputs = append(m.Graph.Outputs, onnxfile.Value{Name: "z"}) }, Options{}, "2 outputs"},
		"a grouped conv":   {func(m *onnxfile.Model) { m.Graph.Nodes[0].Attrs["group"] = onnxfile.Attr{Type: 2, I: 2} }, Options{}, "grouped convolution"},
		"uneven pads": {func(m *onnxfile.Model) {
			m.Graph.Nodes[0].Attrs["pads"] = onnxfile.Attr{Type: 7, Ints: []int64{1, 1, 0, 0}}
		}, Options{}, "differ between the sides"},
		"a dilated conv": {func(m *onnxfile.Model) {
			m.Graph.Nodes[0].Attrs["dilations"] = onnxfile.Attr{Type: 7, Ints: []int64{2, 2}}
		}, Options{}, "dilation 1"},
		"a wrong width": {func(m *onnxfile.Model) {
			m.Graph.Initializers["fw"].Dims = []int64{3, 31}
			m.Graph.Initializers["fw"].Float = m.Graph.Initializers["fw"].Float[:93]
		}, Options{}, "31 inputs on 32 values"},
		"a skip connection": {func(m *onnxfile.Model) {
			m.Graph.Nodes = append(m.Graph.Nodes[:2:2], onnxfile.Node{Name: "skip", Op: "Add", Inputs: []string{"r", "c"}, Outputs: []string{"s"}}, onnxfile.Node{Name: "flat", Op: "Flatten", Inputs: []string{"s"}, Outputs: []string{"f"}}, m.Graph.Nodes[3])
		}, Options{}, "chain of layers"},
		"a foreign domain":  {func(m *onnxfile.Model) { m.Graph.Nodes[1].Domain = "com.microsoft" }, Options{}, "domain \"com.microsoft\""},
		"a dropout nowhere": {nil, Options{Dropout: map[string]float64{"fc2": 0.5}}, "-dropout names node \"fc2\""},
		"a dropout of 1":    {nil, Options{Dropout: map[string]float64{"fc": 1}}, "rate 1"},
	} {
		_, err := Convert(convNet(c.edit), c.opt)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", name, err, c.want)
		}
	}
}

// FuzzConvert: whatever a file holds, parsing and converting it refuses or succeeds, never panics, and a
// network it gives chains from its input to its output.
func FuzzConvert(f *testing.F) {
	for _, edit := range []func(m *onnxfile.Model){nil, func(m *onnxfile.Model) { m.Graph.Nodes[1].Op = "Sigmoid" }} {
		b, err := onnxfile.Encode(convNet(edit))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := onnxfile.Parse(b)
		if err != nil {
			return
		}
		n, err := Convert(m, Options{Prefix: "p"})
		if err != nil {
			return
		}
		s := n.In
		for i, l := range n.Layers {
			if s, err = l.OutShape(s); err != nil {
				t.Fatalf("layer %d (%s) does not chain: %v", i, l.Op, err)
			}
		}
		if s != n.Out {
			t.Fatalf("the layers end in %v, the network says %v", s, n.Out)
		}
	})
}
