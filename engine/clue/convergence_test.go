package clue

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math"
	"reflect"
	"testing"
)

// feed runs a restart's stopping decision over hand-computed costs c[0], c[1], … (c[t] is the cost of z_t, the
// point after t updates; the points are z_t = (t)) and returns the step at which it stops and the step of the
// point it returns, or -1, -1 if it does not stop.
func feed(p Params, costs []float64) (stoppedAt, returned int) {
	s := &restart{}
	for t, c := range costs {
		s.steps, s.z = t, []float64{float64(t)}
		stop, back := s.observe(c, p)
		if stop {
			if got := s.points; back > 0 && int(got[len(got)-1-back][0]) != t-back {
				panic("the kept point is not z_{t−back}")
			}
			return t, t - back
		}
	}
	return -1, -1
}

// TestConvergenceRulesOnAWorkedTrace checks both rules against costs worked out by hand, with the defaults
// (window 3, tolerance max(1 % of c[0], 1e-3), min steps 3): where they fire and which point they return.
func TestConvergenceRulesOnAWorkedTrace(t *testing.T) {
	spread, clue := Defaults(), Defaults()
	clue.Convergence = CLUERule
	cases := []struct {
		name                string
		costs               []float64
		spreadAt, spreadRet int
		clueAt, clueRet     int
	}{
		// c[0] = 2, so the tolerance is 0.02. A slow, steady descent of 0.005 a step: the spread of
		// c[0..3] is 2 − 1.985 = 0.015 < 0.02 at t = 3, so Spread stops there and returns z_3; CLUE checks
		// only from t = 4 (t > min steps), where |c[1] − c[4]| = 1.995 − 1.98 = 0.015 < 0.02, and returns z_2.
		{"steady", []float64{2, 1.995, 1.99, 1.985, 1.98, 1.975, 1.97}, 3, 3, 4, 2},
		// A cost that cycles with period 3 after step 2: the endpoints c[t−3] and c[t] agree from t = 5
		// (|c[2] − c[5]| = 0), so CLUE stops at 5 and returns z_3 (cost 0.7), while the spread of any four
		// of them is 0.4 and Spread never stops.
		{"cycle", []float64{2, 1, 0.5, 0.7, 0.9, 0.5, 0.7, 0.9, 0.5}, -1, -1, 5, 3},
		// Falls fast, then flat: at t = 5 the spread of c[2..5] and the endpoints |c[2] − c[5]| are both 0.2008;
		// at t = 6 both are 0.0009 < 0.02, so both rules stop at step 6, but Spread returns z_6 and CLUE z_4.
		{"falls then flat", []float64{2, 1, 0.5, 0.3, 0.2995, 0.2992, 0.2991, 0.2990}, 6, 6, 6, 4},
		// The absolute tolerance: c[0] = 0.01 gives 1 % = 1e-4, but 1e-3 wins for both.
		{"absolute", []float64{0.01, 0.0095, 0.0094, 0.0093, 0.0092, 0.0091}, 3, 3, 4, 2},
	}
	for _, c := range cases {
		if at, ret := feed(spread, c.costs); at != c.spreadAt || ret != c.spreadRet {
			t.Errorf("%s: Spread stopped at step %d returning z_%d, want %d and z_%d", c.name, at, ret, c.spreadAt, c.spreadRet)
		}
		if at, ret := feed(clue, c.costs); at != c.clueAt || ret != c.clueRet {
			t.Errorf("%s: CLUE's rule stopped at step %d returning z_%d, want %d and z_%d", c.name, at, ret, c.clueAt, c.clueRet)
		}
	}
	// CLUE's relative test uses c[0] as it is: with a negative c[0] only the absolute tolerance is left.
	neg := []float64{-2, -2.01, -2.02, -2.03, -2.04, -2.05}
	if at, _ := feed(clue, neg); at != -1 {
		t.Errorf("negative c[0]: CLUE's rule stopped at step %d on moves of 0.03 ≥ 1e-3", at)
	}
	// It never checks at max steps (CLUE's loop never computes the last point's cost), so a restart that runs
	// out of steps returns its last point under both rules.
	short := clue
	short.MaxSteps = 4
	if at, ret := feed(short, []float64{2, 1.995, 1.99, 1.985, 1.98}); at != 4 || ret != 4 {
		t.Errorf("max steps 4: stopped at %d returning z_%d, want 4 and z_4", at, ret)
	}
}

// TestCLUERuleReturnsTheEarlierPointBitForBit runs real searches under CLUE's rule: each restart that converged
// after k updates must return exactly the point, image and cost that the same restart has after k updates
// (a search stopped there by max steps), and its trace ends at that point. Both rules are deterministic.
func TestCLUERuleReturnsTheEarlierPointBitForBit(t *testing.T) {
	prob := uncertainDigit(t)
	p := Defaults()
	p.N, p.Convergence = 12, CLUERule
	exps, err := Search(context.Background(), prob, p, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := Search(context.Background(), prob, p, nil, nil)
	if !reflect.DeepEqual(exps, again) {
		t.Fatal("two runs under CLUE's rule differ")
	}
	spread, _ := Search(context.Background(), prob, Defaults(), []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, nil)
	differ, converged := 0, 0
	for i, e := range exps {
		if !e.Converged {
			continue
		}
		converged++
		if e.Steps != spread[i].Steps {
			differ++
		}
		if e.Steps < 2 {
			t.Fatalf("restart %d converged under CLUE's rule returning z_%d: it fires from step 4 and returns z_{t−2}", i, e.Steps)
		}
		q := p
		q.Convergence, q.MaxSteps, q.MinSteps = Spread, e.Steps, e.Steps // runs exactly e.Steps updates
		at, err := Search(context.Background(), prob, q, []int{i}, nil)
		if err != nil {
			t.Fatal(err)
		}
		a, b := e, at[0]
		a.Steps, a.Converged, b.Steps, b.Converged = 0, false, 0, false
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) {
			t.Errorf("restart %d: CLUE's result is not its point after %d updates", i, e.Steps)
		}
	}
	if converged == 0 || differ == 0 {
		t.Fatalf("%d restarts converged under CLUE's rule, %d stopped at another step than under Spread: the test shows nothing", converged, differ)
	}
	var k int
	for k = range exps {
		if exps[k].Converged {
			break
		}
	}
	tr, err := Trace(context.Background(), prob, p, k, 4)
	if err != nil {
		t.Fatal(err)
	}
	last := tr.Path[len(tr.Path)-1]
	if len(tr.Path) != exps[k].Steps+1 || !reflect.DeepEqual(last, exps[k].Z) || tr.Frames[len(tr.Frames)-1].Step != exps[k].Steps {
		t.Errorf("restart %d: trace of %d points ends at step %d, want %d points ending at the result", k, len(tr.Path), tr.Frames[len(tr.Frames)-1].Step, exps[k].Steps+1)
	}
	if math.IsNaN(float64(exps[k].Cost)) {
		t.Error("NaN cost")
	}
}

func TestConvergenceTextAndValidation(t *testing.T) {
	for _, c := range []Convergence{Spread, CLUERule} {
		b, err := c.MarshalText()
		var back Convergence
		if err != nil || back.UnmarshalText(b) != nil || back != c {
			t.Errorf("%v does not round-trip: %s %v", c, b, err)
		}
	}
	var c Convergence
	if err := c.UnmarshalText([]byte("endpoints")); err == nil {
		t.Error(`"endpoints" was read as a rule`)
	}
	p := Defaults()
	p.Convergence = 7
	if err := p.Validate(); err == nil {
		t.Error("rule 7 passed validation")
	}
	b, _ := json.Marshal(Defaults())
	var q Params
	if err := json.Unmarshal(b, &q); err != nil || q != Defaults() {
		t.Errorf("defaults do not round-trip through JSON: %s", b)
	}
}

// goldenCLUERule is the SHA-256 of the explanations of a small search under CLUE's rule (every float's bits),
// natively; the same test runs under GOOS=js GOARCH=wasm with and without the SIMD kernel.
const goldenCLUERule = "36537c246df1b8cd3101b0d2fb7284509b68f303d8535c1065a9593a7dbecd0d"

func TestGoldenCLUERuleEverywhere(t *testing.T) {
	prob := uncertainDigit(t)
	h := sha256.New()
	converged := 0
	for _, s := range []Scheme{S1, S4} { // not S2, whose starts depend on the anchors
		p := Defaults()
		p.N, p.MaxSteps, p.Scheme, p.Convergence = 20, 40, s, CLUERule
		exps, err := Search(context.Background(), prob, p, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range exps {
			for _, v := range [][]float32{e.Z, e.Image, e.Probs, {e.HTotal, e.HAleatoric, e.HEpistemic, e.Distance, e.Rho, e.Cost}} {
				binary.Write(h, binary.LittleEndian, v)
			}
			binary.Write(h, binary.LittleEndian, int64(e.Steps))
			if e.Converged {
				converged++
			}
		}
	}
	if converged == 0 {
		t.Fatal("no restart converged: the golden would not cover CLUE's rule")
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != goldenCLUERule {
		t.Fatalf("search bits under CLUE's rule hash %s, want %s", got, goldenCLUERule)
	}
}
