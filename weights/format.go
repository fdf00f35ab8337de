// Package weights defines the file format of the project's trained models, loads it with every check a
// corrupt or foreign file deserves, and ships the trained VAE and BNN (see shipped.go and README.md).
//
// A weights file is:
//
//	offset  size  field
//	0       8     magic "DCWEIGHT"
//	8       4     format version (uint32, little-endian), currently 1
//	12      4     manifest length M (uint32, little-endian), at most MaxManifest
//	16      M     manifest: UTF-8 JSON (type Manifest): the architecture, every tensor's name, shape, dtype and
//	              offset, the SHA-256 of the payload, the dataset split, the training config and the metrics
//	16+M    …     payload: the tensors' float32 values, little-endian, back to back in manifest order
//
// The loader is pure Go with no dependencies, so the same bytes load natively and in WASM.
package weights

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
)

// Magic opens every weights file.
const Magic = "DCWEIGHT"

// Version is the format version this package reads and writes.
const Version = 1

// MaxManifest bounds the manifest's length, so that a corrupt header cannot make the loader allocate much.
const MaxManifest = 1 << 20

// Tensor describes one tensor of the payload.
type Tensor struct {
	Name   string `json:"name"`
	Shape  []int  `json:"shape"`
	DType  string `json:"dtype"`  // always "float32"
	Offset int    `json:"offset"` // in bytes from the start of the payload
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
	// MCSamples fixed masks drawn from MaskSeed (see MCMasks).
	Dropout   float64 `json:"dropout,omitempty"`
	MCSamples int     `json:"mc_samples,omitempty"`
	MaskSeed  uint64  `json:"mask_seed,omitempty"`
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
func Decode(name string, data []byte) (*File, error) {
	fail := func(format string, args ...any) (*File, error) {
		return nil, fmt.Errorf("%s: %w: %s", name, ErrFormat, fmt.Sprintf(format, args...))
	}
	if len(data) < 16 {
		return fail("%d bytes, shorter than the 16-byte header (truncated?)", len(data))
	}
	if string(data[:8]) != Magic {
		return fail("magic %q, want %q (not a deltaclue weights file)", data[:8], Magic)
	}
	if v := binary.LittleEndian.Uint32(data[8:12]); v != Version {
		return fail("format version %d, this build reads version %d", v, Version)
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
	sum := sha256.Sum256(payload)
	if got := hex.EncodeToString(sum[:]); got != man.PayloadSHA {
		return fail("payload SHA-256 %s, the manifest says %s (corrupt)", got, man.PayloadSHA)
	}
	next := 0
	for _, t := range man.Tensors {
		if t.DType != "float32" {
			return fail("tensor %q has dtype %q, want float32", t.Name, t.DType)
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
		if t.Offset != next || t.Offset+4*n > len(payload) {
			return fail("tensor %q at offset %d with %d values does not follow the previous tensor (at %d) inside the %d-byte payload",
				t.Name, t.Offset, n, next, len(payload))
		}
		vals := make([]float32, n)
		for i := range vals {
			v := math.Float32frombits(binary.LittleEndian.Uint32(payload[t.Offset+4*i:]))
			if v != v || math.IsInf(float64(v), 0) {
				return fail("tensor %q value %d is %v", t.Name, i, v)
			}
			vals[i] = v
		}
		f.tensors[t.Name] = vals
		next = t.Offset + 4*n
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
}

// Encode writes a weights file. It fills in man.Tensors, PayloadBytes and PayloadSHA from the tensors.
func Encode(man Manifest, tensors []Named) ([]byte, error) {
	var payload bytes.Buffer
	man.Tensors = nil
	for _, t := range tensors {
		n := 1
		for _, d := range t.Shape {
			n *= d
		}
		if n != len(t.Values) {
			return nil, fmt.Errorf("weights: tensor %q has %d values for shape %v", t.Name, len(t.Values), t.Shape)
		}
		man.Tensors = append(man.Tensors, Tensor{Name: t.Name, Shape: t.Shape, DType: "float32", Offset: payload.Len()})
		binary.Write(&payload, binary.LittleEndian, t.Values)
	}
	man.PayloadBytes = payload.Len()
	sum := sha256.Sum256(payload.Bytes())
	man.PayloadSHA = hex.EncodeToString(sum[:])
	js, err := json.MarshalIndent(man, "", " ")
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	out.WriteString(Magic)
	binary.Write(&out, binary.LittleEndian, uint32(Version))
	binary.Write(&out, binary.LittleEndian, uint32(len(js)))
	out.Write(js)
	out.Write(payload.Bytes())
	return out.Bytes(), nil
}
