//go:build !js

package onnximport

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/deltaclue/deltaclue/internal/onnxfile"
	"github.com/deltaclue/deltaclue/weights"
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

// TestRefusals: what the import cannot run is refused in one sentence naming the node, its op and the reason,
// and saying what the import reads.
func TestRefusals(t *testing.T) {
	setOp := func(op string) func(m *onnxfile.Model) { return func(m *onnxfile.Model) { m.Graph.Nodes[1].Op = op } }
	// skip replaces the flatten's input with the output of node n, which reads the relu and the conv.
	skip := func(n onnxfile.Node) func(m *onnxfile.Model) {
		return func(m *onnxfile.Model) {
			n.Inputs, n.Outputs = append([]string{"r"}, n.Inputs...), []string{"s"}
			m.Graph.Nodes = append(m.Graph.Nodes[:2:2], n, onnxfile.Node{Name: "flat", Op: "Flatten", Inputs: []string{"s"}, Outputs: []string{"f"}}, m.Graph.Nodes[3])
		}
	}
	ints := func(v ...int64) onnxfile.Attr { return onnxfile.Attr{Type: 7, Ints: v} }
	for name, c := range map[string]struct {
		edit func(m *onnxfile.Model)
		opt  Options
		want string
	}{
		"an unsupported op": {setOp("Sin"), Options{}, "node relu (Sin): the import does not read this op; the import reads Gemm"},
		"an LSTM":           {setOp("LSTM"), Options{}, "node relu (LSTM): a recurrent layer, which the engine does not run; the import reads Gemm"},
		"a NonZero":         {setOp("NonZero"), Options{}, "node relu (NonZero): an op whose output's shape depends on the data, which the engine does not run; the import reads"},
		"a Loop":            {setOp("Loop"), Options{}, "node relu (Loop): control flow"},
		"attention's MatMul": {func(m *onnxfile.Model) {
			m.Graph.Nodes[3] = onnxfile.Node{Name: "scores", Op: "MatMul", Inputs: []string{"f", "f"}, Outputs: []string{"y"}}
		}, Options{}, "node scores (MatMul): a product of two activations (attention's scores, or its weights times the values); the import reads MatMul by constant weights"},
		"an erf alone":       {setOp("Erf"), Options{}, "node relu (Erf): an erf outside GELU; the import reads Erf within GELU"},
		"a softmax inside":   {setOp("Softmax"), Options{}, "node relu (Softmax): a Softmax inside the network; the import reads one only as its last op"},
		"a Sub of two":       {skip(onnxfile.Node{Name: "skip", Op: "Sub", Inputs: []string{"c"}}), Options{}, "node skip (Sub): a Sub of two activations"},
		"a Div by one":       {skip(onnxfile.Node{Name: "skip", Op: "Div", Inputs: []string{"c"}}), Options{}, "node skip (Div): a Div of two activations"},
		"a concat of widths": {skip(onnxfile.Node{Name: "skip", Op: "Concat", Inputs: []string{"c"}, Attrs: map[string]onnxfile.Attr{"axis": {Type: 2, I: 3}}}), Options{}, "node skip (Concat): a concatenation along axis 3"},
		"a mean over channels": {func(m *onnxfile.Model) {
			m.Graph.Nodes[1] = onnxfile.Node{Name: "mean", Op: "ReduceMean", Inputs: []string{"c"}, Outputs: []string{"r"}, Attrs: map[string]onnxfile.Attr{"axes": ints(1)}}
		}, Options{}, "node mean (ReduceMean): a reduction over axes [1]; the import reads one over the height and width"},
		"a positional constant": {func(m *onnxfile.Model) {
			m.Graph.Initializers["pos"] = &onnxfile.Tensor{Name: "pos", Dims: []int64{1, 2, 4, 4}, DataType: onnxfile.Float, Float: make([]float32, 32)}
			m.Graph.Nodes[1] = onnxfile.Node{Name: "pos", Op: "Add", Inputs: []string{"c", "pos"}, Outputs: []string{"r"}}
		}, Options{}, "node pos (Add): a constant of shape [1, 2, 4, 4] on 2×4×4; the import reads one value, or one per channel"},
		"a per-width constant": {func(m *onnxfile.Model) {
			m.Graph.Initializers["w4"] = &onnxfile.Tensor{Name: "w4", Dims: []int64{4}, DataType: onnxfile.Float, Float: make([]float32, 4)}
			m.Graph.Nodes[1] = onnxfile.Node{Name: "scale", Op: "Mul", Inputs: []string{"c", "w4"}, Outputs: []string{"r"}}
		}, Options{}, "node scale (Mul): a constant of shape [4] on 2×4×4"},
		"an image times a vector": {func(m *onnxfile.Model) {
			m.Graph.Nodes = append(m.Graph.Nodes[:2:2], onnxfile.Node{Name: "flat", Op: "Flatten", Inputs: []string{"r"}, Outputs: []string{"f"}},
				onnxfile.Node{Name: "gate", Op: "Mul", Inputs: []string{"r", "f"}, Outputs: []string{"g"}}, onnxfile.Node{Name: "flat2", Op: "Flatten", Inputs: []string{"g"}, Outputs: []string{"f2"}},
				onnxfile.Node{Name: "fc", Op: "Gemm", Inputs: []string{"f2", "fw", "fb"}, Outputs: []string{"y"}, Attrs: map[string]onnxfile.Attr{"transB": {Type: 2, I: 1}}})
		}, Options{}, "node gate (Mul): its inputs are 2×4×4 and 32 values; the import reads two activations of one shape, or an image and one value per channel of it"},
		"an old opset":     {func(m *onnxfile.Model) { m.Opsets[""] = 11 }, Options{}, "opset 11; the import reads opsets 13 to 18"},
		"a future opset":   {func(m *onnxfile.Model) { m.Opsets[""] = 21 }, Options{}, "opset 21"},
		"NaN weights":      {func(m *onnxfile.Model) { m.Graph.Initializers["fw"].Float[5] = float32(math.NaN()) }, Options{}, "node fc (Gemm): its weights (\"fw\") holds NaN"},
		"infinite weights": {func(m *onnxfile.Model) { m.Graph.Initializers["cw"].Float[0] = float32(math.Inf(1)) }, Options{}, "infinite"},
		"a 3-D input":      {func(m *onnxfile.Model) { m.Graph.Inputs[0].Dims = []int64{-1, 4, 4} }, Options{}, "N×C×H×W"},
		"an integer input": {func(m *onnxfile.Model) { m.Graph.Inputs[0].ElemType = onnxfile.Int64 }, Options{}, "not float32"},
		"two outputs":      {func(m *onnxfile.Model) { m.Graph.Outputs = append(m.Graph.Outputs, onnxfile.Value{Name: "z"}) }, Options{}, "2 outputs"},
		"too many groups":  {func(m *onnxfile.Model) { m.Graph.Nodes[0].Attrs["group"] = onnxfile.Attr{Type: 2, I: 2} }, Options{}, "node conv (Conv): group = 2 on 1×4×4"},
		"dilation 0":       {func(m *onnxfile.Model) { m.Graph.Nodes[0].Attrs["dilations"] = ints(0, 0) }, Options{}, "node conv (Conv): dilations [0 0]"},
		"uneven pads":      {func(m *onnxfile.Model) { m.Graph.Nodes[0].Attrs["pads"] = ints(1, 1, 0, 0) }, Options{}, "differ between the sides"},
		"a wrong width": {func(m *onnxfile.Model) {
			m.Graph.Initializers["fw"].Dims = []int64{3, 31}
			m.Graph.Initializers["fw"].Float = m.Graph.Initializers["fw"].Float[:93]
		}, Options{}, "31 inputs on 32 values"},
		"the input as output": {func(m *onnxfile.Model) {
			m.Graph.Nodes = []onnxfile.Node{{Name: "id", Op: "Identity", Inputs: []string{"x"}, Outputs: []string{"y"}}}
		}, Options{}, "the graph has no layers"},
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

// TestTooLarge: a network of more parameters than a description may hold (weights.MaxParameters) is refused
// at the layer that goes over, in a sentence: dense layers of 4096×4096 (one tensor, shared), the fourth over.
func TestTooLarge(t *testing.T) {
	const n = 4096
	w := &onnxfile.Tensor{Name: "w", Dims: []int64{n, n}, DataType: onnxfile.Float, Float: make([]float32, n*n)}
	m := &onnxfile.Model{IRVersion: 8, Opsets: map[string]int64{"": 17}, Graph: onnxfile.Graph{
		Inputs:       []onnxfile.Value{{Name: "h0", ElemType: onnxfile.Float, Dims: []int64{-1, n}}},
		Outputs:      []onnxfile.Value{{Name: "h5", ElemType: onnxfile.Float, Dims: []int64{-1, n}}},
		Initializers: map[string]*onnxfile.Tensor{"w": w}}}
	for i := range 5 {
		m.Graph.Nodes = append(m.Graph.Nodes, onnxfile.Node{Name: fmt.Sprintf("fc%d", i+1), Op: "MatMul",
			Inputs: []string{fmt.Sprintf("h%d", i), "w"}, Outputs: []string{fmt.Sprintf("h%d", i+1)}})
	}
	_, err := Convert(m, Options{Prefix: "p"})
	want := fmt.Sprintf("node fc4 (MatMul): the network would hold %d parameters with this layer's %d; a network holds at most %d (weights.MaxParameters", 4*(n*n+n), n*n+n, weights.MaxParameters)
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("%v, want %q", err, want)
	}
}

// FuzzConvert: whatever a file holds, parsing and converting it refuses or succeeds, never panics, and a
// network it gives resolves as a graph from its input to its output. The seeds are the chain of convNet, with
// a sigmoid, and three graphs: a skip connection, squeeze-and-excitation and a GELU of ops.
func FuzzConvert(f *testing.F) {
	for _, m := range []*onnxfile.Model{convNet(nil), convNet(func(m *onnxfile.Model) { m.Graph.Nodes[1].Op = "Sigmoid" }),
		skipNet(), seNet(), geluNet(false)} {
		b, err := onnxfile.Encode(m)
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
		g, err := weights.Network{Layers: n.Layers}.Graph("the network", n.In, nil)
		if err != nil {
			t.Fatalf("the network does not resolve: %v", err)
		}
		if g.Out != n.Out {
			t.Fatalf("the layers end in %v, the network says %v", g.Out, n.Out)
		}
	})
}
