package kernel

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
)

// xorshift is a tiny deterministic generator (Marsaglia xorshift32), so the tests do not depend on math/rand.
type xorshift uint32

func (r *xorshift) next() uint32 {
	x := uint32(*r)
	x ^= x << 13
	x ^= x >> 17
	x ^= x << 5
	*r = xorshift(x)
	return x
}

// value returns a float32 uniform in [-1, 1) on the 2^-23 grid: negative about half the time, never subnormal
// (products are >= 2^-46 in magnitude or exactly zero), never -0.
func (r *xorshift) value() float32 {
	return float32(int32(r.next()>>8)-1<<23) / (1 << 23)
}

// fill sets s to random values, each exactly +0 with probability zeroPct/100.
func (r *xorshift) fill(s []float32, zeroPct uint32) {
	for i := range s {
		v := r.value()
		if r.next()%100 < zeroPct {
			v = 0
		}
		s[i] = v
	}
}

// naive is the contract written as plainly as possible: for each element, sequential over p, each product
// rounded to float32 (the explicit conversion forbids FMA fusion), no zero skipping.
func naive(a, b, c []float32, m, k, n int) {
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			s := c[i*n+j]
			for p := 0; p < k; p++ {
				s += float32(a[i*k+p] * b[p*n+j])
			}
			c[i*n+j] = s
		}
	}
}

// padded returns a slice of length l inside a larger buffer whose elements before and after it are set to
// sentinel, so reads outside [0,l) show up (NaN poisons results) and writes outside it can be detected.
// The slice starts one element into the buffer, so it is 4-byte but usually not 16-byte aligned.
func padded(l int, sentinel float32) (s, buf []float32) {
	const pad = 5
	buf = make([]float32, l+2*pad)
	for i := range buf {
		buf[i] = sentinel
	}
	s = buf[pad : pad+l]
	return s, buf
}

func sentinelsIntact(buf []float32, l int, sentinel float32) bool {
	const pad = 5
	for i, v := range buf {
		if (i < pad || i >= pad+l) && math.Float32bits(v) != math.Float32bits(sentinel) {
			return false
		}
	}
	return true
}

func firstDiff(x, y []float32) int {
	for i := range x {
		if math.Float32bits(x[i]) != math.Float32bits(y[i]) {
			return i
		}
	}
	return -1
}

type shape struct{ m, k, n int }

// testShapes covers the required grid plus shapes that reach every blocking tail of both kernels: k beyond the
// Go kernel's p panel (panelK = 512), m beyond its row band (96 rows when k >= 512), m and n not multiples of 3, 2, 4 or 8.
func testShapes() []shape {
	var s []shape
	for _, m := range []int{1, 3, 4, 5, 100} {
		for _, n := range []int{1, 3, 4, 10, 17, 128, 784} {
			for _, k := range []int{1, 7, 16, 256} {
				s = append(s, shape{m, k, n})
			}
		}
	}
	return append(s,
		shape{2, 300, 5}, shape{6, 600, 2}, shape{7, 513, 9}, shape{8, 1, 8}, shape{9, 19, 23},
		shape{200, 520, 15}, shape{130, 33, 6}, shape{193, 5, 7}, shape{11, 1030, 31}, shape{2, 2, 2},
		// small a, many columns: the WebAssembly kernel's column strips (several, and a last partial one)
		shape{8, 72, 784}, shape{9, 72, 203}, shape{13, 300, 77}, shape{5, 819, 30}, shape{6, 8, 1001}, shape{16, 144, 196},
	)
}

// TestMatMulAdd checks, on every test shape, that MatMulAdd and MatMulAddGo are bitwise equal to the naive
// sequential loop (this pins the accumulation order), stay within the rigorous float32 error bound of a float64
// reference, accumulate into c, and neither read nor write outside the first m*k, k*n, m*n elements.
func TestMatMulAdd(t *testing.T) {
	nan := float32(math.NaN())
	const cSentinel = float32(12345.5)
	rng := xorshift(0x9e3779b9)
	for _, sh := range testShapes() {
		m, k, n := sh.m, sh.k, sh.n
		a, _ := padded(m*k, nan)
		b, _ := padded(k*n, nan)
		rng.fill(a, 50) // ReLU/dropout-like: half the a elements are exactly zero
		rng.fill(b, 10)
		c0 := make([]float32, m*n)
		rng.fill(c0, 20) // biases, some exactly +0
		want := append([]float32(nil), c0...)
		naive(a, b, want, m, k, n)

		for _, impl := range []struct {
			name string
			f    func(a, b, c []float32, m, k, n int)
		}{{"MatMulAdd", MatMulAdd}, {"MatMulAddGo", MatMulAddGo}} {
			c, cbuf := padded(m*n, cSentinel)
			copy(c, c0)
			// Pass a, b and c with extra capacity and length beyond m*k etc.: the kernel must ignore it.
			impl.f(a[:m*k:m*k], b, c, m, k, n)
			if i := firstDiff(c, want); i >= 0 {
				t.Fatalf("%s %dx%dx%d: c[%d] = %v (%#08x), naive sequential loop gives %v (%#08x)",
					impl.name, m, k, n, i, c[i], math.Float32bits(c[i]), want[i], math.Float32bits(want[i]))
			}
			if !sentinelsIntact(cbuf, m*n, cSentinel) {
				t.Fatalf("%s %dx%dx%d wrote outside c[:m*n]", impl.name, m, k, n)
			}
		}

		// Against float64: each product of two float32 is exact in float64, so the reference is accurate to
		// ~1e-16 relative; the float32 result of k sequential rounded multiply-adds onto c0 is within
		// gamma_(k+1) * (|c0| + sum |a||b|), gamma_j = j*u/(1-j*u), u = 2^-24 (Higham, Accuracy and Stability,
		// Ch. 3). We allow 1.01 times that rigorous bound.
		u := math.Ldexp(1, -24)
		gamma := float64(k+1) * u / (1 - float64(k+1)*u) * 1.01
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				ref, mag := float64(c0[i*n+j]), math.Abs(float64(c0[i*n+j]))
				for p := 0; p < k; p++ {
					x := float64(a[i*k+p]) * float64(b[p*n+j])
					ref += x
					mag += math.Abs(x)
				}
				if d := math.Abs(float64(want[i*n+j]) - ref); d > gamma*mag {
					t.Fatalf("%dx%dx%d: c[%d,%d] = %v, float64 reference %v: error %g > bound %g",
						m, k, n, i, j, want[i*n+j], ref, d, gamma*mag)
				}
			}
		}
	}
}

// TestMatMulAddBothKernelsAgree compares MatMulAdd with MatMulAddGo directly (in a wasmsimd build: the SIMD
// kernel with the Go kernel) on random shapes up to 40×300×40, applied twice to the same c.
func TestMatMulAddBothKernelsAgree(t *testing.T) {
	rng := xorshift(12345)
	for it := 0; it < 300; it++ {
		m, k, n := 1+int(rng.next()%40), 1+int(rng.next()%300), 1+int(rng.next()%40)
		a, b, c := make([]float32, m*k), make([]float32, k*n), make([]float32, m*n)
		rng.fill(a, rng.next()%101)
		rng.fill(b, rng.next()%30)
		rng.fill(c, 50)
		c2 := append([]float32(nil), c...)
		for rep := 0; rep < 2; rep++ {
			MatMulAdd(a, b, c, m, k, n)
			MatMulAddGo(a, b, c2, m, k, n)
			if i := firstDiff(c, c2); i >= 0 {
				t.Fatalf("%dx%dx%d rep %d: MatMulAdd c[%d] = %v, MatMulAddGo %v", m, k, n, rep, i, c[i], c2[i])
			}
		}
	}
}

// TestAccumulates checks c += a·b (not c = a·b) on a hand-computed example, applied twice.
func TestAccumulates(t *testing.T) {
	for _, impl := range []func(a, b, c []float32, m, k, n int){MatMulAdd, MatMulAddGo} {
		a := []float32{1, 2, 3, 4, 5, 6}          // 3×2
		b := []float32{7, 8, 9, 10, 11, 12}       // 2×3
		c := []float32{1, 1, 1, 1, 1, 1, 1, 1, 1} // 3×3
		impl(a, b, c, 3, 2, 3)
		want := []float32{28, 31, 34, 62, 69, 76, 96, 107, 118}
		if firstDiff(c, want) >= 0 {
			t.Fatalf("c = %v, want %v", c, want)
		}
		impl(a, b, c, 3, 2, 3)
		for i := range want {
			want[i] = 2*want[i] - 1
		}
		if firstDiff(c, want) >= 0 {
			t.Fatalf("second call: c = %v, want %v", c, want)
		}
	}
}

// TestSequentialOrder uses inputs whose sum depends on the order: (1e8 + 1) - 1e8 is 0 in float32 when added
// left to right, 1 in any order that adds 1e8 and -1e8 first. m and n are large enough to use every blocked path.
func TestSequentialOrder(t *testing.T) {
	const m, k, n = 9, 3, 19
	a := make([]float32, m*k)
	for i := 0; i < m; i++ {
		copy(a[i*k:], []float32{1e8, 1, -1e8})
	}
	b := make([]float32, k*n)
	for i := range b {
		b[i] = 1
	}
	for _, impl := range []func(a, b, c []float32, m, k, n int){MatMulAdd, MatMulAddGo} {
		c := make([]float32, m*n)
		impl(a, b, c, m, k, n)
		for i, v := range c {
			if v != 0 {
				t.Fatalf("c[%d] = %v, want 0 (the sequential sum ((0+1e8)+1)-1e8 in float32)", i, v)
			}
		}
	}
}

// TestZeroDims: a zero dimension is a no-op (slices whose required length is 0 may be nil).
func TestZeroDims(t *testing.T) {
	c := []float32{1, 2}
	MatMulAdd(nil, make([]float32, 12), nil, 0, 3, 4)
	MatMulAdd(nil, nil, c, 1, 0, 2)
	MatMulAddGo(nil, nil, c, 1, 0, 2)
	MatMulAdd(make([]float32, 6), nil, nil, 2, 3, 0)
	if c[0] != 1 || c[1] != 2 {
		t.Fatalf("k=0 changed c: %v", c)
	}
}

func TestPanicsOnShortSlices(t *testing.T) {
	big := 1 << (strconv.IntSize - 2) // big*big wraps to 0 in int arithmetic
	cases := []struct {
		name    string
		a, b, c int
		m, k, n int
		wantMsg string
	}{
		{"short a", 5, 6, 6, 2, 3, 2, "len(a)=5"},
		{"short b", 6, 5, 6, 2, 3, 2, "len(b)=5"},
		{"short c", 6, 6, 3, 2, 3, 2, "len(c)=3"},
		{"empty a", 0, 6, 6, 2, 3, 2, "len(a)=0"},
		{"negative m", 6, 6, 6, -2, 3, 2, "negative"},
		{"negative k", 6, 6, 6, 2, -3, 2, "negative"},
		{"negative n", 6, 6, 6, 2, 3, -2, "negative"},
		{"overflowing m*k", 6, 6, 6, big, big, 1, "len(a)=6"},
	}
	for _, tc := range cases {
		for _, impl := range []struct {
			name string
			f    func(a, b, c []float32, m, k, n int)
		}{{"MatMulAdd", MatMulAdd}, {"MatMulAddGo", MatMulAddGo}} {
			t.Run(tc.name+"/"+impl.name, func(t *testing.T) {
				defer func() {
					r := recover()
					if r == nil {
						t.Fatal("no panic")
					}
					if msg := fmt.Sprint(r); !strings.Contains(msg, tc.wantMsg) {
						t.Fatalf("panic %q does not mention %q", msg, tc.wantMsg)
					}
				}()
				impl.f(make([]float32, tc.a), make([]float32, tc.b), make([]float32, tc.c), tc.m, tc.k, tc.n)
			})
		}
	}
}

// goldenSHA256 is the SHA-256 of the little-endian float32 bits of goldenProduct's output, obtained from a native
// (linux/amd64) run. The same value must come out under js/wasm with the pure-Go kernel and with the SIMD kernel:
// this is the cross-platform bit-identity check.
const goldenSHA256 = "1715c7bd037042b4b34c8d4d90cf9105dd60282bd6a932bf38524e815653e7fd"

// goldenProduct computes a fixed pseudo-random 37×129 @ 129×23 product onto nonzero c with f.
func goldenProduct(f func(a, b, c []float32, m, k, n int)) string {
	const m, k, n = 37, 129, 23
	rng := xorshift(2463534242)
	a, b, c := make([]float32, m*k), make([]float32, k*n), make([]float32, m*n)
	rng.fill(a, 50)
	rng.fill(b, 5)
	rng.fill(c, 10)
	f(a, b, c, m, k, n)
	buf := make([]byte, 4*len(c))
	for i, v := range c {
		binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(v))
	}
	sum := sha256.Sum256(buf)
	return hex.EncodeToString(sum[:])
}

func TestGolden(t *testing.T) {
	for _, impl := range []struct {
		name string
		f    func(a, b, c []float32, m, k, n int)
	}{{"MatMulAdd", MatMulAdd}, {"MatMulAddGo", MatMulAddGo}, {"naive", naive}} {
		if got := goldenProduct(impl.f); got != goldenSHA256 {
			t.Errorf("%s (SIMD=%v): golden 37x129x23 product hashes to %s, want %s", impl.name, SIMD, got, goldenSHA256)
		}
	}
}
