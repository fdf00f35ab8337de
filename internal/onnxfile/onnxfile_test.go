//go:build !js

package onnxfile

import (
	"reflect"
	"strings"
	"testing"
)

// tiny is a model of one Gemm and one Relu on a [N, 3] input.
func tiny() *Model {
	return &Model{IRVersion: 8, Producer: "test", Opsets: map[string]int64{"": 17},
		Graph: Graph{Name: "g",
			Inputs:  []Value{{Name: "x", ElemType: Float, Dims: []int64{-1, 3}}},
			Outputs: []Value{{Name: "y", ElemType: Float, Dims: []int64{-1, 2}}},
			Initializers: map[string]*Tensor{
				"w": {Name: "w", Dims: []int64{2, 3}, DataType: Float, Float: []float32{1, 2, 3, 4, 5, 6}},
				"b": {Name: "b", Dims: []int64{2}, DataType: Float, Float: []float32{0.5, -0.5}},
			},
			Nodes: []Node{
				{Name: "fc", Op: "Gemm", Inputs: []string{"x", "w", "b"}, Outputs: []string{"h"}, Attrs: map[string]Attr{"transB": {Type: 2, I: 1}}},
				{Name: "act", Op: "Relu", Inputs: []string{"h"}, Outputs: []string{"y"}, Attrs: map[string]Attr{}},
			}}}
}

// TestRoundTrip: Parse reads back what Encode wrote, field for field.
func TestRoundTrip(t *testing.T) {
	want := tiny()
	want.Graph.Nodes[0].Attrs["pads"] = Attr{Type: 7, Ints: []int64{1, 1, 1, 1}}
	want.Graph.Nodes[0].Attrs["alpha"] = Attr{Type: 1, F: 1}
	want.Graph.Nodes[0].Attrs["mode"] = Attr{Type: 3, S: "nearest"}
	want.Graph.Nodes[0].Attrs["value"] = Attr{Type: 4, T: &Tensor{Dims: []int64{2}, DataType: Int64, Int: []int64{-1, 7}}}
	want.Graph.Nodes[0].Attrs["scales"] = Attr{Type: 6, Floats: []float32{1, 2}}
	b, err := Encode(want)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Parse(Encode(m)) =\n%+v\nwant\n%+v", got, want)
	}
	if got.Opset() != 17 {
		t.Errorf("Opset = %d", got.Opset())
	}
}

// TestRefusals: damaged, truncated, lying or foreign files are refused in a sentence, never a panic.
func TestRefusals(t *testing.T) {
	good, err := Encode(tiny())
	if err != nil {
		t.Fatal(err)
	}
	lying := tiny()
	lying.Graph.Initializers["w"].Dims = []int64{3, 3} // 9 values said, 6 stored
	lyingBytes, _ := Encode(lying)
	huge := tiny()
	huge.Graph.Initializers["w"].Dims = []int64{1 << 20, 1 << 20}
	hugeBytes, _ := Encode(huge)
	for name, c := range map[string]struct {
		b    []byte
		want string
	}{
		"empty":             {nil, "empty"},
		"truncated":         {good[:len(good)-7], "truncated"},
		"not protobuf":      {[]byte("\x89PNG\r\n\x1a\n this is an image"), "not an ONNX model"},
		"data and dims lie": {lyingBytes, "the file is damaged"},
		"absurd dimensions": {hugeBytes, "dimensions beyond"},
		"over the size":     {make([]byte, MaxBytes+1), "over 256 MB"},
		"a graphless proto": {[]byte{0x08, 0x07}, "it has no graph"},
	} {
		_, err := Parse(c.b)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", name, err, c.want)
		}
	}
}

// FuzzParse: no input makes Parse panic, allocate without bound or accept a tensor whose data lie.
func FuzzParse(f *testing.F) {
	good, err := Encode(tiny())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add([]byte{0x08, 0x07, 0x3a, 0x00})
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Parse(b)
		if err != nil {
			return
		}
		for name, tensor := range m.Graph.Initializers {
			if n := tensor.Len(); n != len(tensor.Float)+len(tensor.Int) {
				t.Fatalf("tensor %q: %d values for dimensions %v", name, len(tensor.Float)+len(tensor.Int), tensor.Dims)
			}
		}
	})
}
