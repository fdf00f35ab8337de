//go:build amd64 && !purego

package kernel

import (
	"bytes"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/deltaclue/deltaclue/engine/kernel/internal/asmgen"
)

// altKernels returns every native kernel this CPU supports, whatever DELTACLUE_KERNEL says (so that both the
// AVX2 and the AVX-512 kernel are tested and benchmarked on an AVX-512 machine), each wrapped like MatMulAdd
// (shape checks; zero dimensions are no-ops).
func altKernels() []namedKernel {
	wrap := func(f func(a, b, c []float32, m, k, n, lda, ldb, ldc int)) func(a, b, c []float32, m, k, n int) {
		return func(a, b, c []float32, m, k, n int) {
			a, b, c = check(a, b, c, m, k, n)
			if m == 0 || k == 0 || n == 0 {
				return
			}
			f(a, b, c, m, k, n, k, n, n)
		}
	}
	var ks []namedKernel
	if cpuKind >= kindAVX2 {
		ks = append(ks, namedKernel{"avx2", wrap(matMulAddAVX2)})
	}
	if cpuKind >= kindAVX512 {
		ks = append(ks, namedKernel{"avx512", wrap(matMulAddAVX512)})
	}
	return ks
}

// nativeKernels is altKernels and each native kind's MatMulAddT (given aᵀ, transposed for each call), skipping
// the test where the CPU has no native kernel.
func nativeKernels(t testing.TB) []namedKernel {
	ks := altKernels()
	if len(ks) == 0 {
		t.Skip("SKIP: this CPU has neither AVX2 nor AVX-512 (with OS support)")
	}
	// withT runs MatMulAddT's path on kernels of kind kd, given a's transpose.
	withT := func(kd int) func(a, b, c []float32, m, k, n int) {
		return func(a, b, c []float32, m, k, n int) {
			a, b, c = check(a, b, c, m, k, n)
			if m == 0 || k == 0 || n == 0 {
				return
			}
			at := make([]float32, m*k)
			TransposeGo(at, a, m, k)
			w := map[int]int{kindAVX2: avx2Width, kindAVX512: avx512Width}[kd]
			matMulAddTOn(kd, a, at, b, c, m, k, n, n%w) // (whether or not it pays)
		}
	}
	for kd := kindAVX2; kd <= cpuKind; kd++ {
		ks = append(ks, namedKernel{kindNames[kd] + " given aᵀ", withT(kd)})
	}
	return ks
}

func TestNativeSelection(t *testing.T) {
	t.Logf("CPU supports %q; DELTACLUE_KERNEL=%q; MatMulAdd runs %q", kindNames[cpuKind], os.Getenv(EnvKernel), Native)
	if Native != kindNames[kind] {
		t.Fatalf("Native = %q, kind is %q", Native, kindNames[kind])
	}
	if want := choose(os.Getenv(EnvKernel), cpuKind); kind != want {
		t.Fatalf("kind %q, want %q", kindNames[kind], kindNames[want])
	}
	for _, tc := range []struct {
		env        string
		best, want int
	}{
		{"", kindAVX512, kindAVX512}, {"", kindAVX2, kindAVX2}, {"", kindGo, kindGo},
		{"go", kindAVX512, kindGo}, {"go", kindAVX2, kindGo},
		{"avx2", kindAVX512, kindAVX2}, {"avx2", kindAVX2, kindAVX2}, {"avx2", kindGo, kindGo},
		{"avx512", kindAVX512, kindAVX512}, {"avx512", kindAVX2, kindAVX2}, {"avx512", kindGo, kindGo},
		{"auto", kindAVX512, kindAVX512}, {"bogus", kindAVX2, kindAVX2},
	} {
		if got := choose(tc.env, tc.best); got != tc.want {
			t.Errorf("choose(%q, %s) = %s, want %s", tc.env, kindNames[tc.best], kindNames[got], kindNames[tc.want])
		}
	}
	if os.Getenv(EnvKernel) == "go" && Native != "go" {
		t.Fatalf("DELTACLUE_KERNEL=go but Native = %q", Native)
	}
}

// stressValue returns a finite float32 drawn from a mix meant to stress rounding: the [-1, 1) grid, random
// mantissas over a wide exponent range (2^-70 … 2^40, so products run from far below the subnormal range to
// 2^80), subnormals, and exact zeros (+0, and -0 when negZero). Negative about half the time.
func (r *xorshift) stressValue(negZero bool) float32 {
	sign := float32(1)
	if r.next()&1 == 1 {
		sign = -1
	}
	switch x := r.next() % 16; {
	case x < 5:
		return r.value()
	case x < 11:
		mant := 1 + float64(r.next()>>9)/(1<<23) // [1, 2) on the float32 grid
		exp := int(r.next()%111) - 70
		return sign * float32(math.Ldexp(mant, exp))
	case x < 13:
		return sign * math.Float32frombits(1+r.next()%(1<<23-1)) // subnormal, nonzero
	case x < 14 && negZero:
		return float32(math.Copysign(0, -1))
	case x < 15:
		return 0
	default:
		return sign * float32(1+r.next()%1000) // integers: sums that cancel exactly
	}
}

// stressFill fills s; c (negZero false) never gets -0, which the contract excludes from c.
func (r *xorshift) stressFill(s []float32, negZero bool) {
	for i := range s {
		s[i] = r.stressValue(negZero)
	}
}

// modelShapes are the engine's products at batch 100 (forward: x·W, backward: ∂out·Wᵀ), the MC-dropout BNN's
// 20 samples stacked (2000 rows), and transposed shapes (weights-sized m).
var modelShapes = []shape{
	// decoder 16-256-512-784 forward, then backward
	{100, 16, 256}, {100, 256, 512}, {100, 512, 784},
	{100, 784, 512}, {100, 512, 256}, {100, 256, 16},
	// BNN 784-256-128-10 forward, then backward
	{100, 784, 256}, {100, 256, 128}, {100, 128, 10},
	{100, 10, 128}, {100, 128, 256}, {100, 256, 784},
	// the BNN's layers over 20 stacked samples, and batch 1
	{2000, 256, 128}, {2000, 128, 10}, {2000, 10, 128}, {2000, 128, 256},
	{1, 16, 256}, {1, 784, 256}, {1, 256, 784},
	// transposes
	{784, 100, 512}, {512, 100, 256}, {256, 100, 16}, {256, 100, 784}, {128, 100, 256}, {10, 100, 128},
	{16, 100, 256},
}

// compareWithGo runs f and MatMulAddGo on the same inputs (a, b bordered by NaN, c by a sentinel) and fails on
// the first differing bit, or on a read or write outside the matrices.
func compareWithGo(t *testing.T, name string, f func(a, b, c []float32, m, k, n int), a0, b0, c0 []float32, m, k, n int) {
	t.Helper()
	nan := float32(math.NaN())
	const cSentinel = float32(-7.25)
	a, _ := padded(m*k, nan)
	b, _ := padded(k*n, nan)
	copy(a, a0)
	copy(b, b0)
	c, cbuf := padded(m*n, cSentinel)
	copy(c, c0)
	want := append([]float32(nil), c0...)
	MatMulAddGo(a0, b0, want, m, k, n)
	for rep := 0; rep < 2; rep++ {
		f(a, b, c, m, k, n)
		if rep == 0 {
			if i := firstDiff(c, want); i >= 0 {
				t.Fatalf("%s %dx%dx%d: c[%d,%d] = %v (%#08x), MatMulAddGo gives %v (%#08x)", name, m, k, n,
					i/n, i%n, c[i], math.Float32bits(c[i]), want[i], math.Float32bits(want[i]))
			}
			MatMulAddGo(a0, b0, want, m, k, n) // second application onto the result
		}
	}
	if i := firstDiff(c, want); i >= 0 {
		t.Fatalf("%s %dx%dx%d second call: c[%d] = %v, MatMulAddGo gives %v", name, m, k, n, i, c[i], want[i])
	}
	if !sentinelsIntact(cbuf, m*n, cSentinel) {
		t.Fatalf("%s %dx%dx%d wrote outside c[:m*n]", name, m, k, n)
	}
}

// TestNativeMatchesGo compares each native kernel with the pure-Go kernel bit for bit: every m, k, n in 0..40 in
// a random sample, shapes reaching every blocking tail (columns mod 16 and 48, rows mod 6 and 8, odd k, p panels
// beyond 256, row bands beyond 240), and the model's shapes; values from the stress mix (wide exponents,
// subnormals, ±0 in a and b, negatives) onto nonzero c.
func TestNativeMatchesGo(t *testing.T) {
	kernels := nativeKernels(t)
	rng := xorshift(0x2545f491)
	var shapes []shape
	for it := 0; it < 1500; it++ {
		shapes = append(shapes, shape{int(rng.next() % 41), int(rng.next() % 41), int(rng.next() % 41)})
	}
	for n := 1; n <= 100; n++ { // every column tail of both kernels
		shapes = append(shapes, shape{1 + int(rng.next()%20), 1 + int(rng.next()%9), n})
	}
	for m := 1; m <= 50; m++ { // every row tail
		shapes = append(shapes, shape{m, 1 + int(rng.next()%9), 1 + int(rng.next()%100)})
	}
	for it := 0; it < 60; it++ { // panels and bands
		shapes = append(shapes, shape{1 + int(rng.next()%520), 1 + int(rng.next()%800), 1 + int(rng.next()%120)})
	}
	shapes = append(shapes, shape{241, 257, 49}, shape{480, 512, 96}, shape{247, 513, 47}, shape{8, 256, 48},
		shape{6, 255, 16}, shape{9, 1, 17}, shape{14, 2, 64})
	shapes = append(shapes, modelShapes...)
	for _, sh := range shapes {
		m, k, n := sh.m, sh.k, sh.n
		a, b, c := make([]float32, m*k), make([]float32, k*n), make([]float32, m*n)
		switch rng.next() % 3 {
		case 0: // the engine's kind of data: dense b, half of a exactly zero (ReLU)
			rng.fill(a, 50)
			rng.fill(b, 0)
			rng.fill(c, 10)
		default:
			rng.stressFill(a, true)
			rng.stressFill(b, true)
			rng.stressFill(c, false)
		}
		for _, kn := range kernels {
			compareWithGo(t, kn.name, kn.f, a, b, c, m, k, n)
		}
		compareWithGo(t, "MatMulAdd", MatMulAdd, a, b, c, m, k, n)
	}
}

// TestNativeOrder: sums whose value depends on the order of p, in every lane and tail of the native kernels.
// Row i of a is (2^24·s, 1, -2^24·s, 1, …) and b is all ones: in sequence the 1 added to ±2^24 is lost each
// time (round to even), in any other order it need not be.
func TestNativeOrder(t *testing.T) {
	kernels := nativeKernels(t)
	for _, sh := range []shape{{17, 9, 101}, {9, 300, 50}, {250, 5, 97}} {
		m, k, n := sh.m, sh.k, sh.n
		a, b := make([]float32, m*k), make([]float32, k*n)
		for i := range m {
			for p := range k {
				switch {
				case p%4 == 0:
					a[i*k+p] = 1 << 24
				case p%4 == 2:
					a[i*k+p] = -1 << 24
				default:
					a[i*k+p] = 1
				}
			}
		}
		for i := range b {
			b[i] = 1
		}
		want := make([]float32, m*n)
		naive(a, b, want, m, k, n)
		for _, kn := range kernels {
			c := make([]float32, m*n)
			kn.f(a, b, c, m, k, n)
			if i := firstDiff(c, want); i >= 0 {
				t.Fatalf("%s %dx%dx%d: c[%d] = %v, sequential sum %v", kn.name, m, k, n, i, c[i], want[i])
			}
		}
	}
}

func TestNativeGolden(t *testing.T) {
	for _, kn := range nativeKernels(t) {
		if got := goldenProduct(kn.f); got != goldenSHA256 {
			t.Errorf("%s: golden product hashes to %s, want %s", kn.name, got, goldenSHA256)
		}
	}
}

// TestAsmUpToDate: matmul_amd64.s and matmul_amd64_decl.go are what internal/asmgen writes (go generate).
func TestAsmUpToDate(t *testing.T) {
	for file, want := range map[string][]byte{
		"matmul_amd64.s":       asmgen.Asm(asmgen.AVX2, asmgen.AVX512),
		"matmul_amd64_decl.go": asmgen.Decl(asmgen.AVX2, asmgen.AVX512),
	} {
		got, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not what internal/asmgen generates: run go generate ./engine/kernel/", file)
		}
	}
}

// TestAsmNoFMA: no fused multiply-add (or any other FMA-family instruction) anywhere in the kernels, generated
// (matmul_amd64.s) or written by hand (loops_amd64.s).
func TestAsmNoFMA(t *testing.T) {
	for _, file := range []string{"matmul_amd64.s", "loops_amd64.s"} {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(src), "\n") {
			f := strings.Fields(line)
			if len(f) == 0 || strings.HasPrefix(f[0], "//") {
				continue
			}
			op := strings.ToUpper(f[0])
			if strings.Contains(op, "FMADD") || strings.Contains(op, "FMSUB") || strings.Contains(op, "FNMADD") ||
				strings.Contains(op, "FNMSUB") {
				t.Fatalf("fused multiply-add in %s: %s", file, line)
			}
		}
	}
}

// TestMatMulInitTMatchesGo compares MatMulInitT, and its two native halves forced (the init kernels on every
// column, and the last n mod 16 columns transposed), with c's rows set to init (nil: +0) and MatMulAddGo, bit for
// bit: TestNativeMatchesGo's random shapes, every row and column tail, p panels beyond 256 (whose later panels
// load c) and row bands beyond 240 (the zero rows' offsets), init values with subnormals (no -0, as c holds
// none); c holds NaN before the call, which it must not read, and the values past it keep their sentinels.
func TestMatMulInitTMatchesGo(t *testing.T) {
	rng := xorshift(0x6a09e667)
	var shapes []shape
	for it := 0; it < 600; it++ {
		shapes = append(shapes, shape{int(rng.next() % 41), int(rng.next() % 41), int(rng.next() % 41)})
	}
	for n := 1; n <= 100; n++ {
		shapes = append(shapes, shape{1 + int(rng.next()%20), 1 + int(rng.next()%9), n})
	}
	for m := 1; m <= 50; m++ {
		shapes = append(shapes, shape{m, 1 + int(rng.next()%9), 1 + int(rng.next()%100)})
	}
	for it := 0; it < 6; it++ {
		shapes = append(shapes, shape{1 + int(rng.next()%520), 1 + int(rng.next()%800), 1 + int(rng.next()%120)})
	}
	shapes = append(shapes, shape{241, 257, 49}, shape{480, 512, 96}, shape{64, 288, 49}, shape{72, 8, 784})
	nan := float32(math.NaN())
	const cSentinel = float32(-7.25)
	for _, sh := range shapes {
		m, k, n := sh.m, sh.k, sh.n
		a, b := make([]float32, m*k), make([]float32, k*n)
		rng.stressFill(a, true)
		rng.stressFill(b, true)
		at := make([]float32, m*k)
		TransposeGo(at, a, m, k)
		for _, withInit := range []bool{false, true} {
			var init []float32
			if withInit {
				init = make([]float32, m)
				rng.stressFill(init, false) // no -0: MatMulAdd's c holds none
			}
			want := make([]float32, m*n)
			setRows(want, init, m, n)
			if m > 0 && k > 0 && n > 0 {
				MatMulAddGo(a, b, want, m, k, n)
			}
			runs := map[string]func(c []float32){"MatMulInitT": func(c []float32) { MatMulInitT(a, at, b, c, init, m, k, n) }}
			if cpuKind >= kindAVX512 && m > 0 && k > 0 && n > 0 {
				runs["init kernels, every column"] = func(c []float32) { matMulAVX512(a, b, c, init, true, nil, m, k, n, k, n, n) }
				if r := n % avx512Width; r > 0 {
					runs["init kernels, the tail transposed"] = func(c []float32) {
						if n > r {
							matMulAVX512(a, b, c, init, true, nil, m, k, n-r, k, n, n)
						}
						transposedCols(kindAVX512, at, b, c, init, true, m, k, n, n-r)
					}
				}
			}
			for name, run := range runs {
				c, cbuf := padded(m*n, cSentinel)
				for i := range c {
					c[i] = nan
				}
				run(c)
				if i := firstDiff(c, want); i >= 0 {
					t.Fatalf("%s %dx%dx%d (init %v): c[%d,%d] = %v (%#08x), want %v (%#08x)", name, m, k, n, withInit,
						i/n, i%n, c[i], math.Float32bits(c[i]), want[i], math.Float32bits(want[i]))
				}
				if !sentinelsIntact(cbuf, m*n, cSentinel) {
					t.Fatalf("%s %dx%dx%d: wrote outside c", name, m, k, n)
				}
			}
		}
	}
}
