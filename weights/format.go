// Package weights defines the file format of the project's trained models, loads it with every check a
// corrupt or foreign file deserves, and ships the trained VAE and BNN (see shipped.go and README.md).
//
// A weights file is:
//
//	offset  size  field
//	0       8     magic "DCWEIGHT"
//	8       4     format version (uint32, little-endian): 1 or 2
//	12      4     manifest length M (uint32, little-endian), at most MaxManifest
//	16      M     manifest: UTF-8 JSON (type Manifest): the architecture, every tensor's name, shape, dtype and
//	              offset, the SHA-256 of the payload, the dataset split, the training config and the metrics
//	16+M    …     payload: the tensors' stored bytes, back to back in manifest order; its SHA-256 is over
//	              these stored bytes
//
// A tensor's values are row-major. Version 1 stores every tensor as float32 (4 bytes a value, little-endian).
// Version 2 adds two compact dtypes (see dtype.go), and a manifest may record where a compact file came from
// (Manifest.Compaction):
//
//	float16  2 bytes a value: little-endian IEEE binary16, rounded to nearest-even from the float32 export
//	int8     n bytes of values q in −127…127 (two's complement), then k float32 scales (little-endian), one per
//	         index of the tensor's scale_axis (k = shape[scale_axis]); value e decodes to
//	         float32(q[e]) * scale[(e / stride) % k] in float32, stride the product of the dims after the axis.
//	         For a dense layer's weights, stored [in, out], scale_axis 1 gives each output unit its own scale
//	         (scale_j = max_i |W[i,j]| / 127).
//
// Decode turns every tensor into float32, the same bits natively and in WASM. Encode writes version 1 when
// every tensor is float32 and the manifest has no compaction record (so the float32 export of `make train` stays
// byte for byte what it was), and version 2 otherwise.
//
// The loader is pure Go with no dependencies, so the same bytes load natively and in WASM.
package weights

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/deltaclue/deltaclue/internal/digest"
	"math"
	"slices"
)

// Magic opens every weights file.
const Magic = "DCWEIGHT"

// Version is the newest format version this package reads and writes; it also reads version 1.
const Version = 2

// MaxManifest bounds the manifest's length, so that a corrupt header cannot make the loader allocate much.
const MaxManifest = 1 << 20

// Tensor describes one tensor of the payload.
type Tensor struct {
	Name  string `json:"name"`
	Shape []int  `json:"shape"`
	DType string `json:"dtype"` // Float32, Float16 or Int8 (version 1: Float32 only)
	// ScaleAxis is the axis with one float32 scale per index, for an int8 tensor (and absent otherwise).
	ScaleAxis *int `json:"scale_axis,omitempty"`
	Offset    int  `json:"offset"` // in bytes from the start of the payload
}

// Manifest is the JSON header of a weights file.
type Manifest struct {
	Model        string         `json:"model"` // "vae" or "bnn"
	Architecture Architecture   `json:"architecture"`
	Tensors      []Tensor       `json:"tensors"`
	PayloadBytes int            `json:"payload_bytes"`
	PayloadSHA   string         `json:"payload_sha256"`
	Dataset      Dataset        `json:"dataset"`
	Training     map[string]any `json:"training,omitempty"`
	Metrics      map[string]any `json:"metrics,omitempty"`
	Compaction   *Compaction    `json:"compaction,omitempty"` // version 2: made from a float32 file by cmd/compact
}

// Compaction records how a compact file was made from the float32 export of `make train`.
type Compaction struct {
	Tool   string `json:"tool"`                  // "cmd/compact"
	Source string `json:"source_payload_sha256"` // the payload SHA-256 of the float32 file it was made from
	// Omitted names the source's tensors this file leaves out, and Into the file that holds them instead.
	Omitted []string `json:"omitted,omitempty"`
	Into    string   `json:"into,omitempty"`
	// Float32Metrics are the source's metrics (the float32 model's), for comparison with Metrics.
	Float32Metrics map[string]any `json:"float32_metrics,omitempty"`
}

// Architecture says how the tensors make a model.
type Architecture struct {
	// Layers are the widths of an MLP's layers, input first: [784, 256, 128, 10] for the BNN. For the VAE they
	// are the encoder's (input to last hidden layer); the decoder mirrors them, from Latent up to the image.
	Layers     []int  `json:"layers"`
	Latent     int    `json:"latent,omitempty"`     // VAE: latent dimension
	Decoder    []int  `json:"decoder,omitempty"`    // VAE: decoder widths, latent first: [16, 256, 512, 784]
	Activation string `json:"activation"`           // hidden activation: "relu"
	Output     string `json:"output"`               // "softmax" (BNN) or "sigmoid" (the VAE's Bernoulli mean)
	Likelihood string `json:"likelihood,omitempty"` // VAE: "bernoulli"
	// MC dropout (BNN): each hidden activation is dropped with probability Dropout; inference averages over
	// MCSamples fixed masks of the shape MaskWidths, drawn from MaskSeed (by package engine/mcmask).
	Dropout   float64 `json:"dropout,omitempty"`
	MCSamples int     `json:"mc_samples,omitempty"`
	MaskSeed  uint64  `json:"mask_seed,omitempty"`
}

// MaskWidths returns the shape of one of the BNN's MC-dropout masks: the widths of its hidden layers (Layers
// without the input and the output), one mask per hidden layer. It returns nil if Layers has no hidden layer.
func (a Architecture) MaskWidths() []int {
	if len(a.Layers) < 3 {
		return nil
	}
	return slices.Clone(a.Layers[1 : len(a.Layers)-1])
}

// Dataset identifies the data a model was trained on.
type Dataset struct {
	Source     string `json:"source"`
	SplitSHA   string `json:"split_sha256"`
	Train      int    `json:"train"`
	Validation int    `json:"validation"`
	Test       int    `json:"test"`
}

// File is a decoded weights file.
type File struct {
	Name     string // where it came from, for messages
	Manifest Manifest
	tensors  map[string][]float32
}

// ErrFormat is wrapped by every error Decode returns for malformed input.
var ErrFormat = errors.New("malformed weights file")

// Decode parses and checks a weights file: magic, version, manifest, tensor shapes and offsets, payload length
// and SHA-256, and that no value is NaN or infinite. name is used in error messages.
func Decode(name string, data []byte) (*File, error) { return decode(name, data, false) }

// decode is Decode; hashed says that data's bytes are known good (their SHA-256 was matched against a known
// good file's or bundle's), so the payload's own hash is not worked out again.
func decode(name string, data []byte, hashed bool) (*File, error) {
	fail := func(format string, args ...any) (*File, error) {
		return nil, fmt.Errorf("%s: %w: %s", name, ErrFormat, fmt.Sprintf(format, args...))
	}
	if len(data) < 16 {
		return fail("%d bytes, shorter than the 16-byte header (truncated?)", len(data))
	}
	if string(data[:8]) != Magic {
		return fail("magic %q, want %q (not a deltaclue weights file)", data[:8], Magic)
	}
	version := binary.LittleEndian.Uint32(data[8:12])
	if version != 1 && version != Version {
		return fail("format version %d, this build reads versions 1 and %d", version, Version)
	}
	m := binary.LittleEndian.Uint32(data[12:16])
	if m > MaxManifest {
		return fail("manifest length %d exceeds %d", m, MaxManifest)
	}
	if int(m) > len(data)-16 {
		return fail("manifest length %d but only %d bytes follow the header (truncated?)", m, len(data)-16)
	}
	f := &File{Name: name, tensors: map[string][]float32{}}
	dec := json.NewDecoder(bytes.NewReader(data[16 : 16+m]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f.Manifest); err != nil {
		return fail("manifest: %v", err)
	}
	payload := data[16+m:]
	man := &f.Manifest
	if man.PayloadBytes != len(payload) {
		return fail("payload is %d bytes, the manifest says %d (truncated?)", len(payload), man.PayloadBytes)
	}
	if !hashed {
		if got := hex.EncodeToString(chunkedSHA256(payload)); got != man.PayloadSHA {
			return fail("payload SHA-256 %s, the manifest says %s (corrupt)", got, man.PayloadSHA)
		}
	}
	if version == 1 && man.Compaction != nil {
		return fail("a version-1 file has a compaction record")
	}
	next := 0
	for _, t := range man.Tensors {
		switch {
		case version == 1 && t.DType != Float32:
			return fail("tensor %q has dtype %q, want float32 (format version 1)", t.Name, t.DType)
		case t.DType != Float32 && t.DType != Float16 && t.DType != Int8:
			return fail("tensor %q has dtype %q, want float32, float16 or int8", t.Name, t.DType)
		case t.DType == Int8 && t.ScaleAxis == nil:
			return fail("int8 tensor %q has no scale_axis", t.Name)
		case t.DType != Int8 && t.ScaleAxis != nil:
			return fail("tensor %q of dtype %s has a scale_axis: only int8 tensors have one", t.Name, t.DType)
		}
		if _, dup := f.tensors[t.Name]; dup || t.Name == "" {
			return fail("tensor name %q is empty or repeated", t.Name)
		}
		n := 1
		for _, d := range t.Shape {
			if d <= 0 || d > 1<<24 || n > math.MaxInt32/d {
				return fail("tensor %q has shape %v", t.Name, t.Shape)
			}
			n *= d
		}
		var stride, scales int
		if t.DType == Int8 {
			if a := *t.ScaleAxis; a < 0 || a >= len(t.Shape) {
				return fail("tensor %q of shape %v has scale_axis %d", t.Name, t.Shape, a)
			}
			stride, scales = scaleIndex(t.Shape, *t.ScaleAxis)
		}
		size := storedBytes(t.DType, n, scales)
		if t.Offset != next || t.Offset > len(payload) || size > len(payload)-t.Offset {
			return fail("tensor %q at offset %d with %d %s values (%d bytes) does not follow the previous tensor (at %d) inside the %d-byte payload",
				t.Name, t.Offset, n, t.DType, size, next, len(payload))
		}
		stored := payload[t.Offset : t.Offset+size]
		vals := make([]float32, n)
		var scale []float32 // an int8 tensor's scales
		switch t.DType {
		case Float32:
			for i := range vals {
				vals[i] = math.Float32frombits(binary.LittleEndian.Uint32(stored[4*i:]))
			}
		case Float16:
			for i := range vals {
				v, ok := Float16Value(binary.LittleEndian.Uint16(stored[2*i:]))
				if !ok {
					return fail("tensor %q value %d is a float16 infinity or NaN", t.Name, i)
				}
				vals[i] = v
			}
		case Int8:
			scale = make([]float32, scales)
			for k := range scale {
				s := math.Float32frombits(binary.LittleEndian.Uint32(stored[n+4*k:]))
				if s != s || math.IsInf(float64(s), 0) || s < 0 {
					return fail("tensor %q scale %d is %v: scales are finite and ≥ 0", t.Name, k, s)
				}
				scale[k] = s
			}
			if i := dequantize(vals, stored[:n], scale, stride); i >= 0 {
				return fail("tensor %q value %d is int8 −128, outside the symmetric range −127…127", t.Name, i)
			}
		}
		// A float16 value was checked as it was read, and an int8 tensor's values need no check when its scales
		// keep them all finite (int8Finite): the shipped models' decoding skips a pass over every value.
		if t.DType == Float32 || (t.DType == Int8 && !int8Finite(scale)) {
			if i := firstNonFinite(vals); i >= 0 {
				return fail("tensor %q value %d is %v", t.Name, i, vals[i])
			}
		}
		f.tensors[t.Name] = vals
		next = t.Offset + size
	}
	if next != len(payload) {
		return fail("%d payload bytes belong to no tensor", len(payload)-next)
	}
	return f, nil
}

// Tensor returns the named tensor's values, checking that it has the given shape.
func (f *File) Tensor(name string, shape ...int) ([]float32, error) {
	v, ok := f.tensors[name]
	if !ok {
		return nil, fmt.Errorf("%s: no tensor %q", f.Name, name)
	}
	for _, t := range f.Manifest.Tensors {
		if t.Name == name && !equalInts(t.Shape, shape) {
			return nil, fmt.Errorf("%s: tensor %q has shape %v, want %v", f.Name, name, t.Shape, shape)
		}
	}
	return v, nil
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Named is a tensor to encode.
type Named struct {
	Name   string
	Shape  []int
	Values []float32
	// DType is how to store it: Float32 (or ""), Float16 or Int8 with one scale per index of ScaleAxis.
	DType     string
	ScaleAxis int
}

// Encode writes a weights file, storing each tensor in its DType (converting the float32 values
// deterministically: see Float16Bits and QuantizeInt8). It fills in man.Tensors, PayloadBytes and PayloadSHA
// from the tensors, and writes format version 1 when every tensor is float32 and man has no Compaction.
func Encode(man Manifest, tensors []Named) ([]byte, error) {
	var payload bytes.Buffer
	man.Tensors = nil
	version := uint32(1)
	if man.Compaction != nil {
		version = Version
	}
	for _, t := range tensors {
		n := 1
		for _, d := range t.Shape {
			n *= d
		}
		if n != len(t.Values) {
			return nil, fmt.Errorf("tensor %q has %d values for shape %v", t.Name, len(t.Values), t.Shape)
		}
		desc := Tensor{Name: t.Name, Shape: t.Shape, DType: t.DType, Offset: payload.Len()}
		switch t.DType {
		case Float32, "":
			desc.DType = Float32
			binary.Write(&payload, binary.LittleEndian, t.Values)
		case Float16:
			for i, v := range t.Values {
				h, ok := Float16Bits(v)
				if !ok {
					return nil, fmt.Errorf("tensor %q value %d, %v, has no float16", t.Name, i, v)
				}
				binary.Write(&payload, binary.LittleEndian, h)
			}
		case Int8:
			q, scales, err := QuantizeInt8(t.Values, t.Shape, t.ScaleAxis)
			if err != nil {
				return nil, fmt.Errorf("tensor %q: %v", t.Name, err)
			}
			axis := t.ScaleAxis
			desc.ScaleAxis = &axis
			binary.Write(&payload, binary.LittleEndian, q)
			binary.Write(&payload, binary.LittleEndian, scales)
		default:
			return nil, fmt.Errorf("tensor %q has dtype %q", t.Name, t.DType)
		}
		if desc.DType != Float32 {
			version = Version
		}
		man.Tensors = append(man.Tensors, desc)
	}
	man.PayloadBytes = payload.Len()
	sum := digest.Sum256(payload.Bytes())
	man.PayloadSHA = hex.EncodeToString(sum[:])
	js, err := json.MarshalIndent(man, "", " ")
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	out.WriteString(Magic)
	binary.Write(&out, binary.LittleEndian, version)
	binary.Write(&out, binary.LittleEndian, uint32(len(js)))
	out.Write(js)
	out.Write(payload.Bytes())
	return out.Bytes(), nil
}

// Named returns the file's tensors in manifest order with their decoded float32 values (shared with the
// file: do not modify them), each marked float32: what Encode needs to store the same model in another form.
func (f *File) Named() []Named {
	out := make([]Named, len(f.Manifest.Tensors))
	for i, t := range f.Manifest.Tensors {
		out[i] = Named{Name: t.Name, Shape: t.Shape, Values: f.tensors[t.Name], DType: Float32}
	}
	return out
}

// A search worker decodes the models as it starts, in WebAssembly, before the browser has optimised its code:
// the browser optimises a function for its next call, never during a long one. So the long loops over the
// payload below run as many calls of a few thousand values each, which are optimised after the first few
// (measured under Node: the shipped bundle's decoding took about 10× longer as single loops).
const chunk = 4096

// chunkedSHA256 is the SHA-256 of b, written to the hash a chunk at a time.
func chunkedSHA256(b []byte) []byte {
	h := digest.New()
	for len(b) > 0 {
		n := min(len(b), 16*chunk)
		h.Write(b[:n])
		b = b[n:]
	}
	return h.Sum(nil)
}

// dequantize sets vals[i] = q[i]·scale[k] where value i has scale i/stride mod len(scale), and returns the
// index of the first −128 (outside the symmetric range), or −1.
func dequantize(vals []float32, q []byte, scale []float32, stride int) int {
	if w := len(scale); stride == 1 && w > 0 && len(vals)%w == 0 {
		// One scale per column (the scale axis is the last): a row at a time, with nothing to count.
		for start := 0; start < len(vals); start += w {
			if i := dequantizeRow(vals[start:start+w], q[start:start+w], scale); i >= 0 {
				return start + i
			}
		}
		return -1
	}
	k, run := 0, 0
	for start := 0; start < len(vals); start += chunk {
		end := min(start+chunk, len(vals))
		var bad int
		if k, run, bad = dequantizeChunk(vals[start:end], q[start:end], scale, stride, k, run); bad >= 0 {
			return start + bad
		}
	}
	return -1
}

// dequantizeChunk dequantizes one chunk, walking the runs of stride values that share a scale instead of
// dividing twice per value, and returns where the walk stands.
//
//go:noinline
func dequantizeChunk(vals []float32, q []byte, scale []float32, stride, k, run int) (int, int, int) {
	for i := range vals {
		v := int8(q[i])
		if v == -128 {
			return k, run, i
		}
		vals[i] = float32(v) * scale[k]
		if run++; run == stride {
			run = 0
			if k++; k == len(scale) {
				k = 0
			}
		}
	}
	return k, run, -1
}

// int8Finite says whether every value an int8 tensor with these scales can hold is finite: |q| ≤ 127 and
// rounding is monotonic, so |float32(q)·s| ≤ 127·s, and no value need be checked when every 127·s is finite.
func int8Finite(scale []float32) bool {
	for _, s := range scale {
		if math.IsInf(float64(127*s), 0) {
			return false
		}
	}
	return true
}

// dequantizeRow sets vals[j] = q[j]·scale[j] and returns the index of the first −128, or −1.
//
//go:noinline
func dequantizeRow(vals []float32, q []byte, scale []float32) int {
	q, scale = q[:len(vals)], scale[:len(vals)]
	for j, b := range q {
		v := int8(b)
		if v == -128 {
			return j
		}
		vals[j] = float32(v) * scale[j]
	}
	return -1
}

// firstNonFinite returns the index of the first NaN or infinity in vals, or −1.
func firstNonFinite(vals []float32) int {
	for start := 0; start < len(vals); start += chunk {
		if i := nonFiniteIn(vals[start:min(start+chunk, len(vals))]); i >= 0 {
			return start + i
		}
	}
	return -1
}

//go:noinline
func nonFiniteIn(vals []float32) int {
	for i, v := range vals {
		if v != v || math.IsInf(float64(v), 0) {
			return i
		}
	}
	return -1
}
