package weights

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
)

// sampleV2 is a small version-2 file: an int8 weight with a scale per output unit, a float32 bias and a
// float16 tensor.
func sampleV2(t testing.TB) []byte {
	man := Manifest{Model: "bnn", Architecture: Architecture{Layers: []int{3, 2}, Activation: "relu", Output: "softmax",
		Dropout: 0.25, MCSamples: 4, MaskSeed: 9}, Compaction: &Compaction{Tool: "test", Source: "00"}}
	b, err := Encode(man, []Named{
		{Name: "bnn/0/weights", Shape: []int{3, 2}, Values: []float32{1, -2, 3, 4, -5, 0.5}, DType: Int8, ScaleAxis: 1},
		{Name: "bnn/0/biases", Shape: []int{2}, Values: []float32{-1, 0.5}},
		{Name: "half", Shape: []int{3}, Values: []float32{0.1, -65504, 1e-7}, DType: Float16},
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// parts splits a file into its version, manifest and payload.
func parts(t testing.TB, b []byte) (uint32, Manifest, []byte) {
	m := int(binary.LittleEndian.Uint32(b[12:16]))
	var man Manifest
	if err := json.Unmarshal(b[16:16+m], &man); err != nil {
		t.Fatal(err)
	}
	return binary.LittleEndian.Uint32(b[8:12]), man, append([]byte(nil), b[16+m:]...)
}

// assemble writes a file from its parts, with the payload's length and SHA-256 filled in (so that only the
// change under test is wrong).
func assemble(version uint32, man Manifest, payload []byte) []byte {
	man.PayloadBytes = len(payload)
	sum := sha256.Sum256(payload)
	man.PayloadSHA = hex.EncodeToString(sum[:])
	js, _ := json.Marshal(man)
	out := binary.LittleEndian.AppendUint32([]byte(Magic), version)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(js)))
	return append(append(out, js...), payload...)
}

func TestRoundTripV2(t *testing.T) {
	b := sampleV2(t)
	if v := binary.LittleEndian.Uint32(b[8:12]); v != 2 {
		t.Fatalf("a file with compact tensors has version %d, want 2", v)
	}
	if v := binary.LittleEndian.Uint32(sample(t)[8:12]); v != 1 {
		t.Fatalf("an all-float32 file has version %d, want 1 (what older readers read)", v)
	}
	f, err := Decode("v2", b)
	if err != nil {
		t.Fatal(err)
	}
	w, err := f.Tensor("bnn/0/weights", 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	// Output unit 0 has max |w| = 5, unit 1 has 4: scales 5/127 and 4/127.
	s0, s1 := float32(5)/127, float32(4)/127
	want := []float32{float32(25) * s0, float32(-64) * s1, float32(76) * s0, float32(127) * s1, float32(-127) * s0, float32(16) * s1}
	for i := range want {
		if math.Float32bits(w[i]) != math.Float32bits(want[i]) {
			t.Errorf("int8 value %d decodes to %v, want %v", i, w[i], want[i])
		}
	}
	h, _ := f.Tensor("half", 3)
	if h[0] != float32(0.0999755859375) || h[1] != -65504 || h[2] != float32(1.1920928955078125e-07) {
		t.Errorf("float16 values %v", h)
	}
	if b, _ := f.Tensor("bnn/0/biases", 2); b[0] != -1 || b[1] != 0.5 {
		t.Errorf("float32 biases %v", b)
	}
	if f.Manifest.Compaction == nil || f.Manifest.Compaction.Tool != "test" {
		t.Errorf("compaction record lost: %+v", f.Manifest.Compaction)
	}
	if *f.Manifest.Tensors[0].ScaleAxis != 1 || f.Manifest.Tensors[0].DType != Int8 || f.Manifest.Tensors[2].DType != Float16 {
		t.Errorf("tensor descriptions %+v", f.Manifest.Tensors)
	}
	// Re-encoding the decoded file with the same dtypes gives the same bytes: quantising a dequantised tensor
	// again is the identity, so the conversion is idempotent.
	named := f.Named()
	named[0].DType, named[0].ScaleAxis, named[2].DType = Int8, 1, Float16
	again, err := Encode(f.Manifest, named)
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != string(b) {
		t.Error("re-encoding a decoded version-2 file changed its bytes")
	}
}

func TestDecodeRejectsMalformedV2(t *testing.T) {
	good := sampleV2(t)
	if _, err := Decode("f.dcw", assemble(parts(t, good))); err != nil {
		t.Fatalf("reassembling the sample broke it: %v", err)
	}
	edit := func(f func(version *uint32, man *Manifest, payload []byte) []byte) []byte {
		v, man, p := parts(t, good)
		if q := f(&v, &man, p); q != nil {
			p = q
		}
		return assemble(v, man, p)
	}
	axis := func(a int) *int { return &a }
	const scale0 = 6 // the first int8 tensor has 6 values, then its 2 scales
	putScale := func(p []byte, v float32) []byte {
		binary.LittleEndian.PutUint32(p[scale0:], math.Float32bits(v))
		return p
	}
	halfOffset := func(man *Manifest) int { return man.Tensors[2].Offset }
	cases := map[string]struct {
		data []byte
		want string
	}{
		"v1 with float16":     {edit(func(v *uint32, m *Manifest, p []byte) []byte { *v = 1; m.Compaction = nil; return nil }), "format version 1"},
		"v1 with compaction":  {edit(func(v *uint32, m *Manifest, p []byte) []byte { *v = 1; return nil }), "compaction"},
		"unknown dtype":       {edit(func(v *uint32, m *Manifest, p []byte) []byte { m.Tensors[2].DType = "int4"; return nil }), "dtype"},
		"int8 without axis":   {edit(func(v *uint32, m *Manifest, p []byte) []byte { m.Tensors[0].ScaleAxis = nil; return nil }), "scale_axis"},
		"float16 with axis":   {edit(func(v *uint32, m *Manifest, p []byte) []byte { m.Tensors[2].ScaleAxis = axis(0); return nil }), "scale_axis"},
		"float32 with axis":   {edit(func(v *uint32, m *Manifest, p []byte) []byte { m.Tensors[1].ScaleAxis = axis(0); return nil }), "scale_axis"},
		"axis too big":        {edit(func(v *uint32, m *Manifest, p []byte) []byte { m.Tensors[0].ScaleAxis = axis(2); return nil }), "scale_axis 2"},
		"axis negative":       {edit(func(v *uint32, m *Manifest, p []byte) []byte { m.Tensors[0].ScaleAxis = axis(-1); return nil }), "scale_axis -1"},
		"axis changes length": {edit(func(v *uint32, m *Manifest, p []byte) []byte { m.Tensors[0].ScaleAxis = axis(0); return nil }), "scale 2 is -1"}, // it reads the bias as a scale
		"NaN scale":           {edit(func(v *uint32, m *Manifest, p []byte) []byte { return putScale(p, float32(math.NaN())) }), "scale 0 is NaN"},
		"infinite scale":      {edit(func(v *uint32, m *Manifest, p []byte) []byte { return putScale(p, float32(math.Inf(1))) }), "scale 0 is +Inf"},
		"negative scale":      {edit(func(v *uint32, m *Manifest, p []byte) []byte { return putScale(p, -1) }), "scale 0 is -1"},
		"overflowing product": {edit(func(v *uint32, m *Manifest, p []byte) []byte { return putScale(p, math.MaxFloat32) }), "is +Inf"},
		"int8 -128":           {edit(func(v *uint32, m *Manifest, p []byte) []byte { p[3] = 0x80; return p }), "−128"},
		"float16 infinity": {edit(func(v *uint32, m *Manifest, p []byte) []byte {
			binary.LittleEndian.PutUint16(p[halfOffset(m):], 0x7c00)
			return p
		}), "infinity or NaN"},
		"float16 NaN": {edit(func(v *uint32, m *Manifest, p []byte) []byte {
			binary.LittleEndian.PutUint16(p[halfOffset(m)+2:], 0xfe01)
			return p
		}), "infinity or NaN"},
		"int8 scales cut":       {edit(func(v *uint32, m *Manifest, p []byte) []byte { m.Tensors = m.Tensors[:1]; return p[:scale0+4] }), "inside the 10-byte payload"},
		"float16 cut":           {edit(func(v *uint32, m *Manifest, p []byte) []byte { return p[:len(p)-1] }), "inside the"},
		"float16 as float32":    {edit(func(v *uint32, m *Manifest, p []byte) []byte { m.Tensors[2].DType = Float32; return nil }), "inside the"},
		"bytes after tensors":   {edit(func(v *uint32, m *Manifest, p []byte) []byte { return append(p, 0) }), "belong to no tensor"},
		"offset past payload":   {edit(func(v *uint32, m *Manifest, p []byte) []byte { m.Tensors[0].Offset = 1 << 40; return nil }), "offset"},
		"int8 axis on a scalar": {edit(func(v *uint32, m *Manifest, p []byte) []byte { m.Tensors[0].Shape = []int{}; return nil }), "scale_axis"},
	}
	for name, c := range cases {
		_, err := Decode("f.dcw", c.data)
		if err == nil || !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "f.dcw: ") {
			t.Errorf("%s: got %v, want an ErrFormat naming the file and mentioning %q", name, err, c.want)
		}
	}
	// Flipping any stored bit of a version-2 payload breaks its SHA-256.
	_, _, payload := parts(t, good)
	for i := len(good) - len(payload); i < len(good); i++ {
		bad := append([]byte(nil), good...)
		bad[i] ^= 0x10
		if _, err := Decode("f.dcw", bad); err == nil || !strings.Contains(err.Error(), "SHA-256") {
			t.Fatalf("flipped payload byte %d: %v", i, err)
		}
	}
}

func TestEncodeRejects(t *testing.T) {
	for name, n := range map[string]Named{
		"float16 overflow": {Name: "x", Shape: []int{1}, Values: []float32{1e6}, DType: Float16},
		"float16 NaN":      {Name: "x", Shape: []int{1}, Values: []float32{float32(math.NaN())}, DType: Float16},
		"int8 NaN":         {Name: "x", Shape: []int{1}, Values: []float32{float32(math.NaN())}, DType: Int8},
		"int8 axis":        {Name: "x", Shape: []int{1}, Values: []float32{1}, DType: Int8, ScaleAxis: 1},
		"dtype":            {Name: "x", Shape: []int{1}, Values: []float32{1}, DType: "bfloat16"},
	} {
		if _, err := Encode(Manifest{}, []Named{n}); err == nil {
			t.Errorf("%s: encoded", name)
		}
	}
}

// half returns the exact value of the binary16 bits h (finite), computed in float64 from the definition.
func half(h uint16) float64 {
	sign, exp, mant := 1.0, int(h>>10&0x1f), float64(h&0x3ff)
	if h&0x8000 != 0 {
		sign = -1
	}
	if exp == 0 {
		return sign * math.Ldexp(mant, -24)
	}
	return sign * math.Ldexp(1024+mant, exp-25)
}

func TestFloat16Exhaustive(t *testing.T) {
	for i := 0; i < 1<<16; i++ {
		h := uint16(i)
		v, ok := Float16Value(h)
		if h>>10&0x1f == 0x1f {
			if ok {
				t.Fatalf("%#04x (infinity or NaN) decoded to %v", h, v)
			}
			continue
		}
		if !ok || float64(v) != half(h) || math.Signbit(float64(v)) != (h&0x8000 != 0) {
			t.Fatalf("%#04x decodes to %v, want %v", h, v, half(h))
		}
		if back, ok := Float16Bits(v); !ok || back != h {
			t.Fatalf("%#04x → %v → %#04x", h, v, back)
		}
	}
	// Between every two neighbouring finite halves: the midpoint goes to the even one, anything off it to the
	// nearer one. Both signs.
	for i := 0; i < 0x7bff; i++ {
		lo, hi := uint16(i), uint16(i+1)
		mid := float32((half(lo) + half(hi)) / 2) // exact: 12 significant bits
		even := lo
		if lo&1 == 1 {
			even = hi
		}
		for _, c := range []struct {
			x    float32
			want uint16
		}{{mid, even}, {math.Nextafter32(mid, 0), lo}, {math.Nextafter32(mid, 1e9), hi}} {
			for _, sign := range []float32{1, -1} {
				got, ok := Float16Bits(sign * c.x)
				want := c.want
				if sign < 0 {
					want |= 0x8000
				}
				if !ok || got != want {
					t.Fatalf("Float16Bits(%v) = %#04x, %v; want %#04x", sign*c.x, got, ok, want)
				}
			}
		}
	}
	for _, c := range []struct {
		x    float32
		want uint16
		ok   bool
	}{
		{65504, 0x7bff, true}, {math.Nextafter32(65520, 0), 0x7bff, true}, {65520, 0, false}, {65536, 0, false},
		{float32(math.Inf(1)), 0, false}, {float32(math.NaN()), 0, false}, {-1e30, 0, false},
		{float32(math.Ldexp(1, -25)), 0, true}, {math.Nextafter32(float32(math.Ldexp(1, -25)), 1), 1, true},
		{float32(math.Ldexp(3, -26)), 1, true}, {float32(math.Ldexp(1, -30)), 0, true},
		{math.SmallestNonzeroFloat32, 0, true}, {-math.SmallestNonzeroFloat32, 0x8000, true},
		{float32(math.Ldexp(1, -14)), 0x0400, true}, {math.Nextafter32(float32(math.Ldexp(1, -14)), 0), 0x0400, true},
		{1, 0x3c00, true}, {-2, 0xc000, true}, {float32(math.Copysign(0, -1)), 0x8000, true},
	} {
		got, ok := Float16Bits(c.x)
		if ok != c.ok || ok && got != c.want {
			t.Errorf("Float16Bits(%v) = %#04x, %v; want %#04x, %v", c.x, got, ok, c.want, c.ok)
		}
	}
}

// pseudo returns n deterministic pseudo-random float32 values of varied magnitude (a few zero rows included).
func pseudo(n int) []float32 {
	v := make([]float32, n)
	x := uint32(12345)
	for i := range v {
		x = x*1664525 + 1013904223
		v[i] = (float32(x>>8)/(1<<24) - 0.5) * float32(int(1)<<(x%7))
	}
	return v
}

func TestQuantizeInt8(t *testing.T) {
	shape := []int{37, 23}
	v := pseudo(37 * 23)
	for j := 0; j < 23; j++ {
		v[5*23+j] = 0 // a zero row (axis 0)
	}
	for i := 0; i < 37; i++ {
		v[i*23+7] = 0 // a zero column (axis 1)
	}
	for axis := range 2 {
		q, scales, err := QuantizeInt8(v, shape, axis)
		if err != nil {
			t.Fatal(err)
		}
		stride, count := scaleIndex(shape, axis)
		if len(scales) != shape[axis] || len(q) != len(v) {
			t.Fatalf("axis %d: %d scales, %d values", axis, len(scales), len(q))
		}
		reached := make([]bool, count)
		for e, x := range v {
			k := e / stride % count
			s := scales[k]
			d := float32(q[e]) * s
			if q[e] == 127 || q[e] == -127 {
				reached[k] = true
			}
			if math.Abs(float64(d-x)) > float64(s)/2*(1+1e-6) {
				t.Fatalf("axis %d value %d: %v decodes to %v, off by more than half the scale %v", axis, e, x, d, s)
			}
		}
		for k, r := range reached {
			if !r && scales[k] != 0 {
				t.Errorf("axis %d index %d: no value reaches ±127", axis, k)
			}
		}
		if scales[map[int]int{0: 5, 1: 7}[axis]] != 0 {
			t.Errorf("axis %d: the zero slice has scale %v", axis, scales[5])
		}
	}
	if _, _, err := QuantizeInt8(v, shape, 2); err == nil {
		t.Error("axis 2 of a matrix accepted")
	}
}

// goldenDecode is the SHA-256 of the float32 bits that a fixed tensor decodes to stored as float16, as int8
// per row and as int8 per column. The same test runs natively and under Node (GOOS=js), so it pins the decoders
// to the same bits on both.
const goldenDecode = "5cf7f2a6361d1a7ecfc00192b6c654f801d76b2348dad3b54ea1e6fc2226934d"

func TestDecodeGolden(t *testing.T) {
	v := pseudo(37 * 23)
	var named []Named
	for _, c := range []struct {
		dtype string
		axis  int
	}{{Float16, 0}, {Int8, 0}, {Int8, 1}} {
		named = append(named, Named{Name: c.dtype + string(rune('0'+c.axis)), Shape: []int{37, 23}, Values: v, DType: c.dtype, ScaleAxis: c.axis})
	}
	b, err := Encode(Manifest{Model: "test"}, named)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Decode("golden", b)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	for _, n := range named {
		d, _ := f.Tensor(n.Name, 37, 23)
		binary.Write(h, binary.LittleEndian, d)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != goldenDecode {
		t.Errorf("decoded bits hash %s, want %s", got, goldenDecode)
	}
}

// TestDequantizeEveryAxis checks both of dequantize's walks (a row at a time when the scale axis is the last,
// else runs of stride values) against the definition, vals[i] = q[i]·scale[i/stride mod len(scale)], and
// that each reports the first −128 where it is.
func TestDequantizeEveryAxis(t *testing.T) {
	for _, shape := range [][]int{{7}, {3, 5}, {784, 16}, {2, 3, 4}, {5000, 3}} {
		n := 1
		for _, d := range shape {
			n *= d
		}
		q := make([]byte, n)
		for i := range q {
			q[i] = byte((i*73 + 11) % 255) // every value but 0x80 (−128), in no particular order
			if q[i] == 0x80 {
				q[i] = 0x7f
			}
		}
		for axis := range shape {
			stride, scales := scaleIndex(shape, axis)
			scale := make([]float32, scales)
			for k := range scale {
				scale[k] = float32(k+1) / 127
			}
			vals := make([]float32, n)
			if i := dequantize(vals, q, scale, stride); i != -1 {
				t.Fatalf("shape %v axis %d: a −128 reported at %d where there is none", shape, axis, i)
			}
			for i, v := range vals {
				want := float32(int8(q[i])) * scale[(i/stride)%scales]
				if math.Float32bits(v) != math.Float32bits(want) {
					t.Fatalf("shape %v axis %d: value %d is %v, want %v", shape, axis, i, v, want)
				}
			}
			bad := append([]byte(nil), q...)
			at := n * 2 / 3
			bad[at], bad[n-1] = 0x80, 0x80
			if i := dequantize(vals, bad, scale, stride); i != at {
				t.Errorf("shape %v axis %d: the first −128 reported at %d, want %d", shape, axis, i, at)
			}
		}
	}
}
