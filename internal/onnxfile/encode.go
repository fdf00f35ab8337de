//go:build !js

package onnxfile

import (
	"encoding/binary"
	"fmt"
	"math"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// Encode writes m as an ONNX file (tensors as raw little-endian data): what tests and fuzzers build graphs with,
// so that they need no exporter. Parse(Encode(m)) gives m back.
func Encode(m *Model) ([]byte, error) {
	root, err := newMessage("protos.ModelProto")
	if err != nil {
		return nil, err
	}
	root.set("ir_version", protoreflect.ValueOfInt64(m.IRVersion))
	root.set("producer_name", protoreflect.ValueOfString(m.Producer))
	for domain, v := range m.Opsets {
		o := root.add("opset_import")
		o.set("domain", protoreflect.ValueOfString(domain))
		o.set("version", protoreflect.ValueOfInt64(v))
	}
	g := root.child("graph")
	g.set("name", protoreflect.ValueOfString(m.Graph.Name))
	for _, t := range m.Graph.Initializers {
		writeTensor(g.add("initializer"), t)
	}
	for _, v := range m.Graph.Inputs {
		writeValue(g.add("input"), v)
	}
	for _, v := range m.Graph.Outputs {
		writeValue(g.add("output"), v)
	}
	for _, n := range m.Graph.Nodes {
		w := g.add("node")
		w.set("name", protoreflect.ValueOfString(n.Name))
		w.set("op_type", protoreflect.ValueOfString(n.Op))
		w.set("domain", protoreflect.ValueOfString(n.Domain))
		w.strs("input", n.Inputs)
		w.strs("output", n.Outputs)
		for name, a := range n.Attrs {
			at := w.add("attribute")
			at.set("name", protoreflect.ValueOfString(name))
			at.set("type", protoreflect.ValueOfEnum(protoreflect.EnumNumber(a.Type)))
			switch a.Type {
			case 1:
				at.set("f", protoreflect.ValueOfFloat32(a.F))
			case 2:
				at.set("i", protoreflect.ValueOfInt64(a.I))
			case 3:
				at.set("s", protoreflect.ValueOfBytes([]byte(a.S)))
			case 4:
				writeTensor(at.child("t"), a.T)
			case 6:
				l := at.m.Mutable(at.field("floats")).List()
				for _, f := range a.Floats {
					l.Append(protoreflect.ValueOfFloat32(f))
				}
			case 7:
				l := at.m.Mutable(at.field("ints")).List()
				for _, i := range a.Ints {
					l.Append(protoreflect.ValueOfInt64(i))
				}
			}
		}
	}
	return proto.Marshal(root.m.Interface())
}

func newMessage(name protoreflect.FullName) (writer, error) {
	mt, err := protoregistry.GlobalTypes.FindMessageByName(name)
	if err != nil {
		return writer{}, fmt.Errorf("ONNX's message types are not linked in: %w", err)
	}
	return writer{node{mt.New()}}, nil
}

// writer sets a message's fields by name.
type writer struct{ node }

func (w writer) set(name string, v protoreflect.Value) { w.m.Set(w.field(name), v) }
func (w writer) child(name string) writer              { return writer{node{w.m.Mutable(w.field(name)).Message()}} }

func (w writer) add(name string) writer {
	l := w.m.Mutable(w.field(name)).List()
	e := l.NewElement()
	l.Append(e)
	return writer{node{e.Message()}}
}

func (w writer) strs(name string, v []string) {
	l := w.m.Mutable(w.field(name)).List()
	for _, s := range v {
		l.Append(protoreflect.ValueOfString(s))
	}
}

func writeValue(w writer, v Value) {
	w.set("name", protoreflect.ValueOfString(v.Name))
	tt := w.child("type").child("tensor_type")
	tt.set("elem_type", protoreflect.ValueOfInt32(v.ElemType))
	if v.Dims == nil {
		return
	}
	sh := tt.child("shape")
	for _, d := range v.Dims {
		dim := sh.add("dim")
		if d >= 0 {
			dim.set("dim_value", protoreflect.ValueOfInt64(d))
		} else {
			dim.set("dim_param", protoreflect.ValueOfString("N"))
		}
	}
}

func writeTensor(w writer, t *Tensor) {
	w.set("name", protoreflect.ValueOfString(t.Name))
	w.set("data_type", protoreflect.ValueOfInt32(t.DataType))
	l := w.m.Mutable(w.field("dims")).List()
	for _, d := range t.Dims {
		l.Append(protoreflect.ValueOfInt64(d))
	}
	var raw []byte
	switch t.DataType {
	case Float:
		for _, v := range t.Float {
			raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(v))
		}
	case Double:
		for _, v := range t.Float {
			raw = binary.LittleEndian.AppendUint64(raw, math.Float64bits(float64(v)))
		}
	case Int32:
		for _, v := range t.Int {
			raw = binary.LittleEndian.AppendUint32(raw, uint32(int32(v)))
		}
	case Int64:
		for _, v := range t.Int {
			raw = binary.LittleEndian.AppendUint64(raw, uint64(v))
		}
	}
	w.set("raw_data", protoreflect.ValueOfBytes(raw))
}
