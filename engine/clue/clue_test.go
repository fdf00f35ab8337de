package clue

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/deltaclue/deltaclue/engine/rng"
	"github.com/deltaclue/deltaclue/mnist"
)

var shipped = sync.OnceValues(ShippedModels)

// uncertainDigit is the problem around the held-out digit the BNN is least sure of.
func uncertainDigit(t testing.TB) *Problem {
	t.Helper()
	m, err := shipped()
	if err != nil {
		t.Fatal(err)
	}
	s, err := mnist.HeldOut()
	if err != nil {
		t.Fatal(err)
	}
	prob, err := NewProblem(m, s.Float(1735, nil))
	if err != nil {
		t.Fatal(err)
	}
	return prob
}

func l2dist(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += (a[i] - b[i]) * (a[i] - b[i])
	}
	return math.Sqrt(s)
}

func TestDefaultsValidAndJSONRoundTrip(t *testing.T) {
	p := Defaults()
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	p.Scheme, p.Rho, p.Constraint = S5, LInf, Filter
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"scheme":"S5"`) || !strings.Contains(string(b), `"rho":"linf"`) {
		t.Errorf("JSON %s", b)
	}
	var q Params
	if err := json.Unmarshal(b, &q); err != nil || q != p {
		t.Fatalf("round trip: %+v, %v", q, err)
	}
	if err := json.Unmarshal([]byte(`{"scheme":"S9"}`), &q); err == nil {
		t.Error("scheme S9 was accepted")
	}
}

func TestValidateNamesTheBadParameter(t *testing.T) {
	cases := []struct {
		field string
		edit  func(p *Params)
	}{
		{"delta", func(p *Params) { p.Delta = 0 }},
		{"delta", func(p *Params) { p.Delta = math.NaN() }},
		{"delta", func(p *Params) { p.Delta = 1e9 }},
		{"n", func(p *Params) { p.N = 0 }},
		{"n", func(p *Params) { p.N = 5; p.Scheme = S2 }},
		{"scheme", func(p *Params) { p.Scheme = 7 }},
		{"lambda_x", func(p *Params) { p.LambdaX = -1 }},
		{"w_total", func(p *Params) { p.WTotal, p.LambdaX = 0, 0 }},
		{"learning_rate", func(p *Params) { p.LearningRate = math.Inf(1) }},
		{"max_steps", func(p *Params) { p.MaxSteps = 0 }},
		{"min_steps", func(p *Params) { p.MinSteps = 200 }},
		{"h_threshold", func(p *Params) { p.HThreshold = 0 }},
		{"window", func(p *Params) { p.Window = 0 }},
		{"rho", func(p *Params) { p.Rho = 5 }},
		{"dedup_l1", func(p *Params) { p.DedupL1 = MaxImageValues + 1 }},
	}
	for _, c := range cases {
		p := Defaults()
		c.edit(&p)
		var pe *ParamError
		if err := p.Validate(); !errors.As(err, &pe) || pe.Field != c.field {
			t.Errorf("want an error naming %s, got %v", c.field, err)
		}
	}
	// A distance beyond a 28×28 image's (784) is one a larger model's images can have.
	p := Defaults()
	p.DedupL1 = 1000
	if err := p.Validate(); err != nil {
		t.Errorf("dedup_l1 1000: %v", err)
	}
}

func TestProjection(t *testing.T) {
	z0 := []float64{1, 1, 1}
	p := Defaults()
	p.Delta = 2
	z := []float64{1 + 3, 1 + 4, 1} // distance 5 → direction (0.6, 0.8, 0) at radius 2
	p.project(z, z0)
	if math.Abs(z[0]-2.2) > 1e-12 || math.Abs(z[1]-2.6) > 1e-12 || z[2] != 1 {
		t.Errorf("L2 projection gave %v", z)
	}
	inside := []float64{1.5, 1, 0.5}
	p.project(inside, z0)
	if inside[0] != 1.5 || inside[2] != 0.5 {
		t.Error("a point inside the ball moved")
	}
	p.Rho = LInf
	z = []float64{4, -3, 1.5}
	p.project(z, z0)
	if z[0] != 3 || z[1] != -1 || z[2] != 1.5 {
		t.Errorf("L∞ projection gave %v", z)
	}
}

func TestRandomSchemesGeometry(t *testing.T) {
	prob := uncertainDigit(t)
	p := Defaults()
	p.N, p.Delta = 1000, 2
	radii := func(s Scheme) []float64 {
		p.Scheme = s
		starts, err := Starts(prob, p)
		if err != nil {
			t.Fatal(err)
		}
		r := make([]float64, len(starts))
		for i, z := range starts {
			r[i] = l2dist(z, prob.z0)
			if r[i] > p.Delta+1e-9 {
				t.Fatalf("%v start %d at radius %v > δ", s, i, r[i])
			}
		}
		return r
	}
	// S1: radius ~ U(0, δ): every decile of [0, δ] holds about a tenth of the starts.
	deciles := make([]int, 10)
	for _, r := range radii(S1) {
		deciles[min(int(r/p.Delta*10), 9)]++
	}
	for d, c := range deciles {
		if c < 70 || c > 130 {
			t.Errorf("S1: decile %d of the radius holds %d of 1000 starts", d, c)
		}
	}
	// S3: half-normal with σ = δ/2 cut at δ: mean radius = σ·√(2/π)·(1−e^{−2})/erf(√2) ≈ 0.5935·σ·2 … ≈ 0.7518·(δ/2)·…
	r3 := radii(S3)
	var mean3 float64
	for _, r := range r3 {
		mean3 += r / float64(len(r3))
	}
	sigma := p.Delta / 2
	want3 := sigma * math.Sqrt(2/math.Pi) * (1 - math.Exp(-2)) / math.Erf(math.Sqrt2)
	if math.Abs(mean3-want3) > 0.05 {
		t.Errorf("S3: mean radius %.3f, want %.3f", mean3, want3)
	}
	// S4: uniform in the 16-dimensional ball: mean radius δ·16/17, and no start inside radius δ/2 (prob 2^-16).
	var mean4 float64
	for _, r := range radii(S4) {
		mean4 += r / 1000
	}
	if math.Abs(mean4-p.Delta*16/17) > 0.02 {
		t.Errorf("S4: mean radius %.3f, want %.3f", mean4, p.Delta*16/17)
	}
	// Starts depend only on (seed, restart): the first 10 of n = 1000 equal those of n = 10.
	p.Scheme, p.N = S1, 1000
	all, _ := Starts(prob, p)
	p.N = 10
	few, _ := Starts(prob, p)
	for i := range few {
		if l2dist(few[i], all[i]) != 0 {
			t.Fatalf("start %d depends on n", i)
		}
	}
	p.Rho, p.Scheme, p.N = LInf, S4, 200
	starts, _ := Starts(prob, p)
	for _, z := range starts {
		for k := range z {
			if math.Abs(z[k]-prob.z0[k]) > p.Delta {
				t.Fatal("S4 with L∞ left the cube")
			}
		}
	}
}

func TestPathSchemesGeometry(t *testing.T) {
	prob := uncertainDigit(t)
	p := Defaults()
	p.N, p.Delta = 35, 1.5 // m = ⌊35/10⌋ = 3 per class, 30 starts
	for _, s := range []Scheme{S2, S5} {
		p.Scheme = s
		starts, err := Starts(prob, p)
		if err != nil {
			t.Fatal(err)
		}
		if len(starts) != 30 || p.Restarts() != 30 {
			t.Fatalf("%v: %d starts, want 10·⌊35/10⌋ = 30", s, len(starts))
		}
		for y := 0; y < Classes; y++ {
			first := starts[y*3]
			for j := 1; j <= 3; j++ {
				z := starts[y*3+j-1]
				r := l2dist(z, prob.z0)
				if s == S2 && math.Abs(r-p.Delta*float64(j)/3) > 1e-9 {
					t.Errorf("S2 class %d point %d at radius %v, want δ·%d/3", y, j, r, j)
				}
				if r > p.Delta+1e-9 {
					t.Errorf("%v class %d point %d outside the ball", s, y, j)
				}
				if s == S2 { // collinear: z − z0 parallel to first − z0
					var dot, n1, n2 float64
					for k := range z {
						dot += (z[k] - prob.z0[k]) * (first[k] - prob.z0[k])
						n1 += (z[k] - prob.z0[k]) * (z[k] - prob.z0[k])
						n2 += (first[k] - prob.z0[k]) * (first[k] - prob.z0[k])
					}
					if math.Abs(dot/math.Sqrt(n1*n2)-1) > 1e-9 {
						t.Errorf("S2 class %d point %d is off the segment", y, j)
					}
				}
			}
		}
		if s == S2 { // the segment of class y points at its nearest anchor
			for y := 0; y < Classes; y++ {
				zy, _ := prob.nearestAnchor(y, p)
				var dot, n1, n2 float64
				for k := range zy {
					a, b := starts[y*3][k]-prob.z0[k], zy[k]-prob.z0[k]
					dot, n1, n2 = dot+a*b, n1+a*a, n2+b*b
				}
				if math.Abs(dot/math.Sqrt(n1*n2)-1) > 1e-9 {
					t.Errorf("S2 class %d does not head for its nearest anchor", y)
				}
			}
		}
	}
	// S5: the path starts along ∇p(y): moving to the first start raises p(y) for every class, and the
	// starts of a class lie at increasing distance along its path.
	p.Scheme = S5
	starts, _ := Starts(prob, p)
	m := prob.models
	for y := 0; y < Classes; y++ {
		before := m.BNN.Classify(m.VAE.DecodeImages(prob.Z0))[0].Probs[y]
		z := make([]float32, len(prob.Z0))
		for k, v := range starts[y*3] {
			z[k] = float32(v)
		}
		after := m.BNN.Classify(m.VAE.DecodeImages(z))[0].Probs[y]
		if after <= before {
			t.Errorf("S5 class %d: p(y) %v at the first start, %v at z0", y, after, before)
		}
		r1, r3 := l2dist(starts[y*3], prob.z0), l2dist(starts[y*3+2], prob.z0)
		if !(r1 < r3) {
			t.Errorf("S5 class %d: first start at radius %v, last at %v", y, r1, r3)
		}
	}
}

func TestConvergenceRule(t *testing.T) {
	p := Defaults() // window 3, 1 % of the initial cost or 1e-3, after 3 steps
	check := func(costs []float64, steps int, want bool) {
		t.Helper()
		s := &restart{initialCost: costs[0], steps: steps}
		for _, c := range costs {
			s.recent = append(s.recent, c)
			if len(s.recent) > p.Window+1 {
				s.recent = s.recent[1:]
			}
		}
		if got := s.spreadConverged(p); got != want {
			t.Errorf("costs %v after %d steps: converged %v, want %v", costs, steps, got, want)
		}
	}
	check([]float64{2, 1, 0.5, 0.4990, 0.4985, 0.4981}, 5, true)    // moved 0.0009 < 0.02
	check([]float64{2, 1, 0.5, 0.49, 0.47, 0.45}, 5, false)         // moved 0.04 ≥ 0.02
	check([]float64{2, 2, 2, 2}, 2, false)                          // too early
	check([]float64{2, 2, 2, 2}, 3, true)                           // flat after 3 steps
	check([]float64{0.01, 0.0095, 0.0094, 0.0093, 0.0092}, 4, true) // 1 % of 0.01 is 1e-4, but 1e-3 wins
}

func TestSearchDeterministicAndSplittable(t *testing.T) {
	prob := uncertainDigit(t)
	p := Defaults()
	p.N, p.MaxSteps = 24, 30
	full, err := Search(context.Background(), prob, p, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := Search(context.Background(), prob, p, nil, nil)
	var a, b []int
	for i := 0; i < 24; i++ {
		if i%3 == 0 {
			a = append(a, i)
		} else {
			b = append(b, i)
		}
	}
	partA, _ := Search(context.Background(), prob, p, a, nil)
	partB, _ := Search(context.Background(), prob, p, b, nil)
	merged := append(partA, partB...)
	sort.Slice(merged, func(i, j int) bool { return merged[i].Restart < merged[j].Restart })
	ja, _ := json.Marshal(full)
	for name, other := range map[string][]Explanation{"a second run": again, "two workers' halves": merged} {
		jb, _ := json.Marshal(other)
		if string(ja) != string(jb) {
			t.Errorf("%s differs from the first run", name)
		}
	}
	if _, err := Search(context.Background(), prob, p, []int{3, 3}, nil); err == nil {
		t.Error("a repeated restart was accepted")
	}
	if _, err := Search(context.Background(), prob, p, []int{24}, nil); err == nil {
		t.Error("restart 24 of 24 was accepted")
	}
}

// goldenSearch is the SHA-256 of the explanations of a small search (every float's bits), natively. The same
// test runs under GOOS=js GOARCH=wasm with and without the SIMD kernel.
const goldenSearch = "d355eda198eb63004169a66ba091d4bc962ea6e705b9c227ace69475cc7cc17f"

func TestGoldenSearchEverywhere(t *testing.T) {
	prob := uncertainDigit(t)
	for _, s := range []Scheme{S1, S2, S5} {
		p := Defaults()
		p.N, p.MaxSteps, p.Scheme = 20, 25, s
		exps, err := Search(context.Background(), prob, p, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.New()
		for _, e := range exps {
			for _, v := range [][]float32{e.Z, e.Image, e.Probs, {e.HTotal, e.HAleatoric, e.HEpistemic, e.Distance, e.Rho, e.Cost}} {
				binary.Write(h, binary.LittleEndian, v)
			}
			binary.Write(h, binary.LittleEndian, int64(e.Steps))
		}
		goldens[s] = hex.EncodeToString(h.Sum(nil))
	}
	got := goldens[S1] + goldens[S2] + goldens[S5]
	sum := sha256.Sum256([]byte(got))
	if hex.EncodeToString(sum[:]) != goldenSearch {
		t.Fatalf("search bits hash %s, want %s", hex.EncodeToString(sum[:]), goldenSearch)
	}
}

var goldens = map[Scheme]string{}

func TestSearchStreamsAndCancels(t *testing.T) {
	prob := uncertainDigit(t)
	p := Defaults()
	p.N = 40
	ctx, cancel := context.WithCancel(context.Background())
	var streamed []int
	exps, err := Search(ctx, prob, p, nil, func(e Explanation) {
		streamed = append(streamed, e.Restart)
		if len(streamed) == 3 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if len(exps) < 3 || len(exps) >= 40 || len(exps) != len(streamed) {
		t.Fatalf("cancelled search returned %d explanations, streamed %d", len(exps), len(streamed))
	}
	for i := 1; i < len(exps); i++ {
		if exps[i].Restart <= exps[i-1].Restart {
			t.Fatal("results are not sorted by restart")
		}
	}
}

func TestSearchReportsEveryField(t *testing.T) {
	prob := uncertainDigit(t)
	p := Defaults()
	p.N = 30
	exps, err := Search(context.Background(), prob, p, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range exps {
		if e.Failed != "" || len(e.Image) != 784 || len(e.Probs) != 10 || len(e.Z) != 16 {
			t.Fatalf("restart %d incomplete: %+v", e.Restart, e)
		}
		if e.Rho > float32(p.Delta)*(1+1e-4) {
			t.Errorf("restart %d left the ball: ρ = %v", e.Restart, e.Rho)
		}
		if e.OnShell != (e.Rho >= float32(p.Delta)*(1-1e-4)) {
			t.Errorf("restart %d: on-shell flag %v at ρ = %v", e.Restart, e.OnShell, e.Rho)
		}
		if e.Accepted != (e.HTotal < float32(p.HThreshold)) {
			t.Errorf("restart %d: accepted %v with H %v", e.Restart, e.Accepted, e.HTotal)
		}
		if math.Abs(float64(e.HTotal-e.HAleatoric-e.HEpistemic)) > 1e-6 {
			t.Errorf("restart %d: H total ≠ aleatoric + epistemic", e.Restart)
		}
		want := e.HTotal + 0.03*e.Distance
		if math.Abs(float64(e.Cost-want)) > 1e-5*float64(want) {
			t.Errorf("restart %d: cost %v, want H + 0.03·d = %v", e.Restart, e.Cost, want)
		}
		if e.Steps > p.MaxSteps || (!e.Converged && e.Steps != p.MaxSteps) {
			t.Errorf("restart %d stopped after %d steps, converged %v", e.Restart, e.Steps, e.Converged)
		}
	}
	// The unconstrained search with filtering accepts only results inside the ball.
	p.Constraint = Filter
	p.Delta = 0.5
	exps, _ = Search(context.Background(), prob, p, nil, nil)
	outside := 0
	for _, e := range exps {
		if e.Rho > 0.5*(1+1e-4) {
			outside++
			if e.Accepted {
				t.Errorf("restart %d accepted outside the ball (ρ = %v)", e.Restart, e.Rho)
			}
		}
	}
	if outside == 0 {
		t.Error("with δ = 0.5 and no projection, some restart should leave the ball")
	}
}

func TestNaNRestartFailsAlone(t *testing.T) {
	prob := uncertainDigit(t)
	p := Defaults()
	p.N = 3
	starts, _ := Starts(prob, p)
	starts[1] = append([]float64(nil), starts[1]...)
	starts[1][4] = math.NaN()
	exps, err := run(context.Background(), prob, p, []int{0, 1, 2}, starts, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if exps[1].Failed == "" || exps[1].Accepted || exps[1].Image != nil {
		t.Errorf("the NaN restart did not fail cleanly: %+v", exps[1])
	}
	for _, i := range []int{0, 2} {
		if exps[i].Failed != "" || len(exps[i].Image) != 784 {
			t.Errorf("restart %d was hurt by the NaN one", i)
		}
	}
	if _, err := json.Marshal(exps); err != nil {
		t.Errorf("results with a failure do not encode: %v", err)
	}
	sum := Summarize(prob.X0, prob.Z0, prob.Models().BNN.Classes, p, exps)
	if sum.Failed != 1 {
		t.Errorf("summary counts %d failures", sum.Failed)
	}
}

func TestNewProblemRejectsBadImages(t *testing.T) {
	m, _ := shipped()
	for name, img := range map[string][]float32{
		"short": make([]float32, 100), "empty": make([]float32, 784),
		"nan": append([]float32{float32(math.NaN())}, make([]float32, 783)...), "negative": append([]float32{-1}, make([]float32, 783)...),
	} {
		if _, err := NewProblem(m, img); err == nil {
			t.Errorf("%s image accepted", name)
		}
	}
}

func TestDiversityTermSpreadsTheSet(t *testing.T) {
	prob := uncertainDigit(t)
	p := Defaults()
	p.N, p.Delta, p.LambdaX = 20, 2, 0
	spread := func(lambda float64) float64 {
		p.LambdaD = lambda
		exps, err := Search(context.Background(), prob, p, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		var zs [][]float32
		for _, e := range exps {
			zs = append(zs, e.Z)
		}
		return measureDiversity(zs, prob.Z0, l2).AvgPairwise
	}
	without, with := spread(0), spread(0.5)
	if !(with > without) {
		t.Errorf("average latent pairwise distance %v with the diversity term, %v without", with, without)
	}
	p.LambdaD = 1
	if _, err := Search(context.Background(), prob, p, []int{0, 1}, nil); err == nil {
		t.Error("a split search with the joint diversity term was accepted")
	}
}

func TestDiversityGradient(t *testing.T) {
	r := rng.New(4)
	states := make([]*restart, 5)
	for i := range states {
		z := make([]float64, 3)
		for k := range z {
			z[k] = r.Norm()
		}
		states[i] = &restart{index: i, z: z}
	}
	logdet := func() float64 {
		k := kernelMatrix(5, func(i, j int) float64 { return l2dist(states[i].z, states[j].z) })
		return math.Log(determinant(k))
	}
	dv := newDiversity(5, 3)
	dv.update(states, Defaults())
	for i := range states {
		for k := 0; k < 3; k++ {
			orig := states[i].z[k]
			states[i].z[k] = orig + 1e-6
			up := logdet()
			states[i].z[k] = orig - 1e-6
			down := logdet()
			states[i].z[k] = orig
			fd := (up - down) / 2e-6
			if math.Abs(fd-dv.grad[i][k]) > 1e-6*math.Max(1, math.Abs(fd)) {
				t.Errorf("∂D/∂z[%d][%d] = %v, finite differences %v", i, k, dv.grad[i][k], fd)
			}
		}
	}
}

func TestAmortisedStarts(t *testing.T) {
	prob := uncertainDigit(t)
	m := *prob.models // a copy: the shipped models stay as they are for the other tests
	p := Defaults()
	p.N, p.Delta, p.Scheme = 23, 1.5, S6
	if _, err := Starts(prob, p); err == nil || !strings.Contains(err.Error(), "translations") {
		t.Fatalf("S6 without translations: error %v, want one naming the translations", err)
	}
	near, far := append([]float32(nil), prob.Z0...), append([]float32(nil), prob.Z0...)
	near[0] += 0.5 // inside the ball
	far[1] += 4    // outside it: projected to the sphere
	var heard []int
	m.Amortised = func(x0, z0 []float32, from int) [][]float32 {
		heard = append(heard, from)
		return [][]float32{near, far}
	}
	q := *prob
	q.models = &m
	starts, err := Starts(&q, p)
	if err != nil {
		t.Fatal(err)
	}
	if len(starts) != 23 || p.Restarts() != 23 || len(heard) != 1 || heard[0] != prob.Pred0.Label() {
		t.Fatalf("%d starts (want 23), the hook heard labels %v (want [%d])", len(starts), heard, prob.Pred0.Label())
	}
	centre := func(pt []float32) []float64 {
		c := make([]float64, len(pt))
		for k, v := range pt {
			c[k] = float64(v)
		}
		p.project(c, prob.z0)
		return c
	}
	centres := [][]float64{centre(near), centre(far)}
	if math.Abs(l2dist(centres[1], prob.z0)-p.Delta) > 1e-9 {
		t.Fatalf("the far centre is at %v from z0, want δ", l2dist(centres[1], prob.z0))
	}
	for i, z := range starts {
		c := centres[i%2]
		r := l2dist(z, c)
		switch {
		case i < 2 && r != 0:
			t.Errorf("restart %d is %v from its centre, want at it", i, r)
		case i >= 2 && (r == 0 || r > p.Delta/2+1e-9): // projection does not lengthen the jitter
			t.Errorf("restart %d is %v from its centre, want in (0, δ/2]", i, r)
		case l2dist(z, prob.z0) > p.Delta+1e-9:
			t.Errorf("restart %d is outside the ball", i)
		}
	}
	again, _ := Starts(&q, p)
	p.N = 40 // a restart's start does not depend on how many run
	more, _ := Starts(&q, p)
	for i := range starts {
		if l2dist(starts[i], again[i]) != 0 || l2dist(starts[i], more[i]) != 0 {
			t.Errorf("restart %d starts elsewhere in another run", i)
		}
	}
	m.Amortised = func(x0, z0 []float32, from int) [][]float32 { return nil }
	if _, err := Starts(&q, p); err == nil || !strings.Contains(err.Error(), "no translation from label") {
		t.Errorf("S6 with no translation from the label read: error %v", err)
	}
}
