//go:build !js

// Package onnxfile reads an ONNX model file into a plain graph: its operator sets, its inputs and outputs with
// their shapes, its initialisers as float32 or int64 tensors, and its nodes with their attributes, in order.
//
// It parses no protobuf itself: google.golang.org/protobuf parses the file with ONNX's message types as
// onnx-gomlx compiles and registers them (its package is linked in for that), and this package walks the
// parsed message by field name. It trusts nothing in the file: sizes, counts and data lengths are checked before
// anything is allocated from them, and every refusal is one sentence.
package onnxfile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	// ONNX's protobuf messages, registered under the package name "protos".
	_ "github.com/gomlx/onnx-gomlx/onnx/parser"
)

// MaxBytes is the largest ONNX file read: an image classifier and VAE the page can run are a few MB; a file
// beyond this is refused before it is parsed.
const MaxBytes = 256 << 20

// MaxTensorValues bounds one initialiser (64 M values, 256 MB as float32).
const MaxTensorValues = 64 << 20

// ONNX's tensor element types this package reads.
const (
	Float  = 1
	Int32  = 6
	Int64  = 7
	Double = 11
)

// Model is a parsed ONNX file.
type Model struct {
	IRVersion int64
	Producer  string           // producer name and version, "pytorch 1.13.1"
	Opsets    map[string]int64 // operator set version per domain ("" is ai.onnx's)
	Graph     Graph
}

// Opset is the version of the default operator set (ai.onnx), 0 when the file imports none.
func (m *Model) Opset() int64 {
	if v, ok := m.Opsets[""]; ok {
		return v
	}
	return m.Opsets["ai.onnx"]
}

// Graph is a model's main graph.
type Graph struct {
	Name string
	// Inputs are the graph's inputs that are not initialisers, Outputs its outputs.
	Inputs, Outputs []Value
	Initializers    map[string]*Tensor
	Nodes           []Node
}

// Value is a graph input or output: its name, element type, and dimensions (-1 for a symbolic or unknown one;
// nil when the file gives no shape).
type Value struct {
	Name     string
	ElemType int32
	Dims     []int64
}

// Tensor is an initialiser or a constant attribute: float types are read into Float, integer types into Int.
type Tensor struct {
	Name     string
	Dims     []int64
	DataType int32
	Float    []float32
	Int      []int64
}

// Len is the number of values its dimensions give.
func (t *Tensor) Len() int {
	n := 1
	for _, d := range t.Dims {
		n *= int(d)
	}
	return n
}

// Node is one operator application.
type Node struct {
	Name, Op, Domain string
	Inputs, Outputs  []string
	Attrs            map[string]Attr
}

// Attr is a node's attribute; Type is ONNX's AttributeType (1 FLOAT, 2 INT, 3 STRING, 4 TENSOR, 6 FLOATS, 7 INTS).
type Attr struct {
	Type   int32
	F      float32
	I      int64
	S      string
	T      *Tensor
	Floats []float32
	Ints   []int64
}

// ReadFile reads and parses an ONNX file.
func ReadFile(path string) (*Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	m, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// Parse parses an ONNX model from its bytes.
func Parse(b []byte) (m *Model, err error) {
	if len(b) > MaxBytes {
		return nil, fmt.Errorf("the file is over %d MB: not an image model this tool can serve", MaxBytes>>20)
	}
	if len(b) == 0 {
		return nil, errors.New("the file is empty")
	}
	mt, err := protoregistry.GlobalTypes.FindMessageByName("protos.ModelProto")
	if err != nil {
		return nil, fmt.Errorf("ONNX's message types are not linked in: %w", err)
	}
	msg := mt.New().Interface()
	if err := (proto.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(b, msg); err != nil {
		return nil, fmt.Errorf("not an ONNX model (its protobuf does not parse: %v); is the file truncated?", err)
	}
	// The walk below reads fields by name and converts what it finds; a message of another shape than
	// ONNX's is reported, not a panic.
	defer func() {
		if r := recover(); r != nil {
			m, err = nil, fmt.Errorf("not an ONNX model: %v", r)
		}
	}()
	root := node{msg.ProtoReflect()}
	m = &Model{IRVersion: root.int("ir_version"), Opsets: map[string]int64{}}
	m.Producer = root.str("producer_name")
	if v := root.str("producer_version"); v != "" {
		m.Producer += " " + v
	}
	for _, o := range root.list("opset_import") {
		m.Opsets[o.str("domain")] = o.int("version")
	}
	if !root.has("graph") {
		return nil, errors.New("not an ONNX model: it has no graph (is it an ONNX file at all, or truncated?)")
	}
	g := root.msg("graph")
	m.Graph.Name = g.str("name")
	m.Graph.Initializers = map[string]*Tensor{}
	for _, t := range g.list("initializer") {
		tensor, err := readTensor(t)
		if err != nil {
			return nil, err
		}
		if _, dup := m.Graph.Initializers[tensor.Name]; dup {
			return nil, fmt.Errorf("two initialisers are named %q", tensor.Name)
		}
		m.Graph.Initializers[tensor.Name] = tensor
	}
	if len(g.list("sparse_initializer")) > 0 {
		return nil, errors.New("the graph has sparse initialisers, which the import does not read")
	}
	for _, v := range g.list("input") {
		val := readValue(v)
		if _, isWeight := m.Graph.Initializers[val.Name]; !isWeight {
			m.Graph.Inputs = append(m.Graph.Inputs, val)
		}
	}
	for _, v := range g.list("output") {
		m.Graph.Outputs = append(m.Graph.Outputs, readValue(v))
	}
	for _, n := range g.list("node") {
		nd := Node{Name: n.str("name"), Op: n.str("op_type"), Domain: n.str("domain"), Inputs: n.strs("input"),
			Outputs: n.strs("output"), Attrs: map[string]Attr{}}
		for _, a := range n.list("attribute") {
			at, err := readAttr(a)
			if err != nil {
				return nil, fmt.Errorf("node %q (%s): attribute %q: %w", nd.Name, nd.Op, a.str("name"), err)
			}
			nd.Attrs[a.str("name")] = at
		}
		m.Graph.Nodes = append(m.Graph.Nodes, nd)
	}
	return m, nil
}

func readValue(v node) Value {
	val := Value{Name: v.str("name")}
	if !v.has("type") {
		return val
	}
	t := v.msg("type")
	if !t.has("tensor_type") {
		return val
	}
	tt := t.msg("tensor_type")
	val.ElemType = int32(tt.int("elem_type"))
	if !tt.has("shape") {
		return val
	}
	val.Dims = []int64{}
	for _, d := range tt.msg("shape").list("dim") {
		if d.has("dim_value") {
			val.Dims = append(val.Dims, d.int("dim_value"))
		} else {
			val.Dims = append(val.Dims, -1)
		}
	}
	return val
}

func readAttr(a node) (Attr, error) {
	at := Attr{Type: int32(a.enum("type"))}
	switch at.Type {
	case 1:
		at.F = float32(a.float("f"))
	case 2:
		at.I = a.int("i")
	case 3:
		at.S = string(a.bytes("s"))
	case 4:
		t, err := readTensor(a.msg("t"))
		if err != nil {
			return at, err
		}
		at.T = t
	case 6:
		l := a.get("floats").List()
		for i := range l.Len() {
			at.Floats = append(at.Floats, float32(l.Get(i).Float()))
		}
	case 7:
		l := a.get("ints").List()
		for i := range l.Len() {
			at.Ints = append(at.Ints, l.Get(i).Int())
		}
	}
	return at, nil
}

// readTensor reads a TensorProto's values, checking that the data hold exactly what the dimensions say.
func readTensor(t node) (*Tensor, error) {
	tensor := &Tensor{Name: t.str("name"), DataType: int32(t.int("data_type"))}
	l := t.get("dims").List()
	n := int64(1)
	for i := range l.Len() {
		d := l.Get(i).Int()
		if d < 0 || d > MaxTensorValues || n*max(d, 1) > MaxTensorValues {
			return nil, fmt.Errorf("tensor %q: dimensions beyond %d values", tensor.Name, MaxTensorValues)
		}
		n *= d
		tensor.Dims = append(tensor.Dims, d)
	}
	if t.enum("data_location") == 1 || len(t.list("external_data")) > 0 {
		return nil, fmt.Errorf("tensor %q is stored in an external data file: export the model into one file (torch.onnx.export does for models under 2 GB)", tensor.Name)
	}
	raw := t.bytes("raw_data")
	size := map[int32]int{Float: 4, Int32: 4, Int64: 8, Double: 8}[tensor.DataType]
	if size == 0 {
		return nil, fmt.Errorf("tensor %q has element type %d; the import reads float32, float64, int32 and int64 tensors", tensor.Name, tensor.DataType)
	}
	if len(raw) > 0 {
		if int64(len(raw)) != n*int64(size) {
			return nil, fmt.Errorf("tensor %q: %d bytes of data for %d values of %d bytes (dimensions %v): the file is damaged", tensor.Name, len(raw), n, size, tensor.Dims)
		}
		switch tensor.DataType {
		case Float:
			tensor.Float = make([]float32, n)
			for i := range tensor.Float {
				tensor.Float[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
			}
		case Double:
			tensor.Float = make([]float32, n)
			for i := range tensor.Float {
				tensor.Float[i] = float32(math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:])))
			}
		case Int32:
			tensor.Int = make([]int64, n)
			for i := range tensor.Int {
				tensor.Int[i] = int64(int32(binary.LittleEndian.Uint32(raw[4*i:])))
			}
		case Int64:
			tensor.Int = make([]int64, n)
			for i := range tensor.Int {
				tensor.Int[i] = int64(binary.LittleEndian.Uint64(raw[8*i:]))
			}
		}
		return tensor, nil
	}
	var got int
	switch tensor.DataType {
	case Float, Double:
		field := map[int32]string{Float: "float_data", Double: "double_data"}[tensor.DataType]
		l := t.get(field).List()
		got = l.Len()
		if int64(got) == n {
			tensor.Float = make([]float32, n)
			for i := range tensor.Float {
				tensor.Float[i] = float32(l.Get(i).Float())
			}
		}
	case Int32, Int64:
		field := map[int32]string{Int32: "int32_data", Int64: "int64_data"}[tensor.DataType]
		l := t.get(field).List()
		got = l.Len()
		if int64(got) == n {
			tensor.Int = make([]int64, n)
			for i := range tensor.Int {
				tensor.Int[i] = l.Get(i).Int()
			}
		}
	}
	if int64(got) != n {
		return nil, fmt.Errorf("tensor %q: %d values for dimensions %v (%d): the file is damaged", tensor.Name, got, tensor.Dims, n)
	}
	return tensor, nil
}

// node is a parsed message read by field name.
type node struct{ m protoreflect.Message }

func (n node) field(name string) protoreflect.FieldDescriptor {
	fd := n.m.Descriptor().Fields().ByName(protoreflect.Name(name))
	if fd == nil {
		panic(fmt.Sprintf("a %s has no field %q", n.m.Descriptor().FullName(), name))
	}
	return fd
}

func (n node) get(name string) protoreflect.Value { return n.m.Get(n.field(name)) }
func (n node) has(name string) bool               { return n.m.Has(n.field(name)) }
func (n node) str(name string) string             { return n.get(name).String() }
func (n node) int(name string) int64              { return n.get(name).Int() }
func (n node) float(name string) float64          { return n.get(name).Float() }
func (n node) bytes(name string) []byte           { return n.get(name).Bytes() }
func (n node) enum(name string) int64             { return int64(n.get(name).Enum()) }
func (n node) msg(name string) node               { return node{n.get(name).Message()} }

func (n node) list(name string) []node {
	l := n.get(name).List()
	out := make([]node, l.Len())
	for i := range out {
		out[i] = node{l.Get(i).Message()}
	}
	return out
}

func (n node) strs(name string) []string {
	l := n.get(name).List()
	out := make([]string, l.Len())
	for i := range out {
		out[i] = l.Get(i).String()
	}
	return out
}
