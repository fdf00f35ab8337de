package weights

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

func sample(t testing.TB) []byte {
	man := Manifest{Model: "bnn", Architecture: Architecture{Layers: []int{3, 2}, Activation: "relu", Output: "softmax",
		Dropout: 0.25, MCSamples: 4, MaskSeed: 9}}
	b, err := Encode(man, []Named{
		{Name: "bnn/0/weights", Shape: []int{3, 2}, Values: []float32{1, 2, 3, 4, 5, 6}},
		{Name: "bnn/0/biases", Shape: []int{2}, Values: []float32{-1, 0.5}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRoundTrip(t *testing.T) {
	f, err := Decode("sample", sample(t))
	if err != nil {
		t.Fatal(err)
	}
	layers, err := f.MLP("bnn", []int{3, 2})
	if err != nil {
		t.Fatal(err)
	}
	if layers[0].W[5] != 6 || layers[0].B[0] != -1 || f.Manifest.Architecture.MaskSeed != 9 {
		t.Fatalf("round trip changed values: %+v", layers[0])
	}
	if _, err := f.Tensor("bnn/0/weights", 2, 3); err == nil || !strings.Contains(err.Error(), "shape") {
		t.Errorf("wrong shape accepted: %v", err)
	}
	if _, err := f.Tensor("nope"); err == nil {
		t.Error("missing tensor accepted")
	}
}

func TestDecodeRejectsMalformed(t *testing.T) {
	good := sample(t)
	m := int(binary.LittleEndian.Uint32(good[12:16]))
	edit := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	replaceInManifest := func(old, new string) []byte {
		return edit(func(b []byte) []byte {
			js := strings.Replace(string(b[16:16+m]), old, new, 1)
			out := append(append(append([]byte(nil), b[:16]...), js...), b[16+m:]...)
			binary.LittleEndian.PutUint32(out[12:16], uint32(len(js)))
			return out
		})
	}
	cases := map[string]struct {
		data []byte
		want string
	}{
		"short":            {good[:10], "shorter than"},
		"magic":            {edit(func(b []byte) []byte { b[0] = 'X'; return b }), "magic"},
		"version":          {edit(func(b []byte) []byte { b[8] = 3; return b }), "version 3"},
		"version 0":        {edit(func(b []byte) []byte { b[8] = 0; return b }), "version 0"},
		"manifest too big": {edit(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[12:], 1<<30); return b }), "exceeds"},
		"manifest cut":     {good[:16+m/2], "manifest length"},
		"bad json":         {edit(func(b []byte) []byte { b[16] = '['; return b }), "manifest"},
		"unknown field":    {replaceInManifest(`"model"`, `"modle"`), "unknown field"},
		"payload cut":      {good[:len(good)-4], "truncated"},
		"flipped bit":      {edit(func(b []byte) []byte { b[len(b)-1] ^= 1; return b }), "SHA-256"},
		"dtype":            {replaceInManifest(`"float32"`, `"float64"`), "dtype"},
		"bad shape":        {replaceInManifest(`"shape": [`, `"shape": [-1,`), "shape"},
		"bad offset":       {replaceInManifest(`"offset": 24`, `"offset": 20`), "offset"},
	}
	for name, c := range cases {
		_, err := Decode("f.dcw", c.data)
		if err == nil || !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "f.dcw: ") {
			t.Errorf("%s: got %v, want an ErrFormat naming the file and mentioning %q", name, err, c.want)
		}
	}
}

func TestDecodeRejectsNaN(t *testing.T) {
	b, err := Encode(Manifest{Model: "bnn"}, []Named{{Name: "x", Shape: []int{2}, Values: []float32{1, float32(math.NaN())}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Decode("nan.dcw", b); err == nil || !strings.Contains(err.Error(), "NaN") {
		t.Fatalf("NaN accepted: %v", err)
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(sample(f))
	f.Add([]byte(Magic + "\x01\x00\x00\x00\x02\x00\x00\x00{}"))
	f.Add([]byte(Magic + "\x02\x00\x00\x00\x02\x00\x00\x00{}"))
	f.Add(sampleV2(f))
	for _, dtype := range []string{Float16, Int8} {
		b, err := Encode(Manifest{Model: "anchors"}, []Named{{Name: "class/0", Shape: []int{2, 3}, Values: []float32{0, -1, 2.5, 1e-6, 0, 3}, DType: dtype, ScaleAxis: 1}})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Decode("fuzz", data)
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error does not wrap ErrFormat: %v", err)
			}
			return
		}
		for _, tn := range file.Manifest.Tensors {
			v, err := file.Tensor(tn.Name, tn.Shape...)
			if err != nil {
				t.Fatal(err)
			}
			n := 1
			for _, d := range tn.Shape {
				n *= d
			}
			if len(v) != n {
				t.Fatalf("tensor %q: %d values for shape %v", tn.Name, len(v), tn.Shape)
			}
		}
	})
}

func TestMaskWidths(t *testing.T) {
	a := Architecture{Layers: []int{784, 256, 128, 10}}
	w := a.MaskWidths()
	if !slices.Equal(w, []int{256, 128}) {
		t.Fatalf("MaskWidths of %v = %v, want [256 128]", a.Layers, w)
	}
	w[0] = 1
	if a.Layers[1] != 256 {
		t.Fatal("MaskWidths shares its slice with the architecture")
	}
	for _, layers := range [][]int{nil, {784}, {784, 10}} {
		if w := (Architecture{Layers: layers}).MaskWidths(); len(w) != 0 {
			t.Errorf("MaskWidths of %v = %v, want none", layers, w)
		}
	}
}
