//go:build !js

package onnximport

import (
	"fmt"

	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph" //nolint
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/onnx-gomlx/onnx/parser"

	"github.com/deltaclue/deltaclue/internal/onnxfile"
)

// Reference runs an ONNX file in an independent runtime, onnx-gomlx on gomlx's pure-Go backend, which reads the
// graph and executes its ops its own way: what the import checks its own conversion against.
type Reference struct {
	exec    *model.Exec
	in, out string
}

// referenceLacks are the ops the import reads that onnx-gomlx v0.5.2 does not run.
var referenceLacks = map[string]bool{"ConvTranspose": true, "LeakyRelu": true, "LogSoftmax": true, "Dropout": true, "Upsample": true,
	"HardSigmoid": true, "Elu": true, "Softplus": true, "GlobalMaxPool": true}

// ReferenceLacks says which of a model's ops the reference runtime does not run ("" when it runs them all).
func ReferenceLacks(m *onnxfile.Model) string {
	for _, n := range m.Graph.Nodes {
		if referenceLacks[n.Op] {
			return n.Op
		}
	}
	return ""
}

// NewReference parses the file at path for onnx-gomlx.
func NewReference(backend compute.Backend, path string) (ref *Reference, err error) {
	defer func() { // onnx-gomlx reports some failures by panicking
		if r := recover(); r != nil {
			ref, err = nil, fmt.Errorf("onnx-gomlx cannot run %s: %v", path, r)
		}
	}()
	m, err := parser.ParseFile(path)
	if err != nil {
		return nil, fmt.Errorf("onnx-gomlx cannot read %s: %w", path, err)
	}
	ins, _ := m.Inputs()
	outs, _ := m.Outputs()
	if len(ins) != 1 || len(outs) != 1 {
		return nil, fmt.Errorf("%s: %d inputs and %d outputs", path, len(ins), len(outs))
	}
	store := model.NewStore()
	if err := m.VariablesToScope(store.RootScope()); err != nil {
		return nil, fmt.Errorf("onnx-gomlx cannot read %s's weights: %w", path, err)
	}
	r := &Reference{in: ins[0], out: outs[0]}
	r.exec, err = model.NewExec(backend, store, func(scope *model.Scope, x *Node) *Node {
		return m.CallGraph(scope, x.Graph(), map[string]*Node{r.in: x}, r.out)[0]
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// Run computes the graph's output for the inputs x of shape dims (batch first), flat.
func (r *Reference) Run(x []float32, dims ...int) (out []float32, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("onnx-gomlx: %v", p)
		}
	}()
	res, err := r.exec.Call(tensors.FromFlatDataAndDimensions(x, dims...))
	if err != nil {
		return nil, err
	}
	return tensors.MustCopyFlatData[float32](res[0]), nil
}
