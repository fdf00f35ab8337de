//go:build !js

package ortnode

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltaclue/deltaclue/internal/onnxfile"
)

// runtime finds the package in the repository's build/onnxruntime (make onnxruntime), or skips loudly; under
// CI=true a missing runtime fails the test.
func runtime(t *testing.T) *Runtime {
	t.Helper()
	r, err := Find(filepath.Join("..", "..", DefaultDir))
	if err != nil {
		msg := "SKIPPED: " + err.Error() + ": the import's second checker is not tested"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return r
}

func floatTensor(name string, dims []int64, v []float32) *onnxfile.Tensor {
	return &onnxfile.Tensor{Name: name, Dims: dims, DataType: onnxfile.Float, Float: v}
}

// TestRunsATransposedConvolution: a ConvTranspose (which onnx-gomlx v0.5.2 does not run) of stride 2 spreads
// each input value over its 2×2 block, times the kernel, plus the bias, for a batch of two.
func TestRunsATransposedConvolution(t *testing.T) {
	r := runtime(t)
	m := &onnxfile.Model{IRVersion: 8, Producer: "test", Opsets: map[string]int64{"": 17}, Graph: onnxfile.Graph{
		Name:    "g",
		Inputs:  []onnxfile.Value{{Name: "x", ElemType: onnxfile.Float, Dims: []int64{-1, 1, 2, 2}}},
		Outputs: []onnxfile.Value{{Name: "y", ElemType: onnxfile.Float}},
		Initializers: map[string]*onnxfile.Tensor{
			"w": floatTensor("w", []int64{1, 1, 2, 2}, []float32{1, 2, 3, 4}),
			"b": floatTensor("b", []int64{1}, []float32{0.5}),
		},
		Nodes: []onnxfile.Node{{Name: "up", Op: "ConvTranspose", Inputs: []string{"x", "w", "b"}, Outputs: []string{"y"},
			Attrs: map[string]onnxfile.Attr{"strides": {Type: 7, Ints: []int64{2, 2}}, "kernel_shape": {Type: 7, Ints: []int64{2, 2}}}}},
	}}
	b, err := onnxfile.Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "up.onnx")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	x := []float32{1, 0, 0, 2, 0, 0, 0, -1}
	y, dims, err := r.Run(context.Background(), path, x, 2, 1, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(dims) != 4 || dims[0] != 2 || dims[2] != 4 || dims[3] != 4 {
		t.Fatalf("dims %v, want [2 1 4 4]", dims)
	}
	for n := 0; n < 2; n++ {
		for i := 0; i < 4; i++ {
			for j := 0; j < 4; j++ {
				want := x[n*4+(i/2)*2+j/2]*[]float32{1, 2, 3, 4}[(i%2)*2+j%2] + 0.5
				if got := y[n*16+i*4+j]; got != want {
					t.Fatalf("image %d (%d,%d): %v, want %v", n, i, j, got, want)
				}
			}
		}
	}
}

// TestRefusesInOneLine: a file that is not ONNX, and an input of the wrong size, are refused with one line.
func TestRefusesInOneLine(t *testing.T) {
	r := runtime(t)
	bad := filepath.Join(t.TempDir(), "bad.onnx")
	os.WriteFile(bad, []byte("not a model"), 0o644)
	_, _, err := r.Run(context.Background(), bad, []float32{1, 2}, 1, 2)
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "bad.onnx") {
		t.Errorf("a file that is not ONNX: %v", err)
	}
	if _, _, err := r.Run(context.Background(), bad, []float32{1, 2}, 1, 3); err == nil || !strings.Contains(err.Error(), "2 values for dims [1 3]") {
		t.Errorf("the wrong number of values: %v", err)
	}
}
