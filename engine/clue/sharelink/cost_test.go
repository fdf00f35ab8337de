package sharelink

import (
	"math"
	"testing"

	"github.com/deltaclue/deltaclue/engine/clue"
)

func TestWorkRatio(t *testing.T) {
	huge := clue.Defaults()
	huge.N, huge.Delta, huge.MaxSteps = 1000, 20, 10000
	tenfold := clue.Defaults()
	tenfold.N = 1000
	s5 := clue.Defaults()
	s5.Scheme, s5.N, s5.MaxSteps = clue.S5, 1005, 100 // 1000 restarts
	cases := []struct {
		name  string
		p     clue.Params
		sweep clue.Ladder
		want  float64
	}{
		{"the defaults", clue.Defaults(), clue.Ladder{}, 1},
		{"the defaults with the default sweep", clue.Defaults(), clue.DefaultLadder(), 1},
		{"n = 1000, δ = 20, 10000 steps", huge, clue.Ladder{}, 1000},
		{"n = 1000: ten times, not more", tenfold, clue.Ladder{}, 10},
		{"S5 counts its restarts", s5, clue.Ladder{}, 10},
		{"a sweep of 12 radii × 1000 restarts", clue.Defaults(), clue.Ladder{Radii: clue.DefaultLadder().Radii, N: 1000}, 0},
	}
	d := clue.DefaultLadder()
	cases[5].want = (100*100 + float64(len(d.Radii))*1000*100) / (100*100 + float64(len(d.Radii)*d.N)*100)
	for _, c := range cases {
		st := State{Params: c.p, Sweep: c.sweep}
		if got := st.WorkRatio(clue.Defaults()); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s: %g, want %g", c.name, got, c.want)
		}
		if st.Costly(clue.Defaults()) != (c.want > CostlyRatio) {
			t.Errorf("%s: costly %v at %g times the default", c.name, st.Costly(clue.Defaults()), c.want)
		}
	}
	// Relative to a model's own defaults: a model whose defaults are δ 4 (the search's size does not depend on
	// δ, λx or the threshold) and one whose defaults were larger.
	own := clue.Defaults()
	own.Delta, own.LambdaX, own.HThreshold = 4, 0, 0.5
	if got := (State{Params: own}).WorkRatio(own); got != 1 {
		t.Errorf("a model's own defaults: %g times its defaults' work", got)
	}
	bigger := clue.Defaults()
	bigger.N = 200
	if got := (State{Params: tenfold}).WorkRatio(bigger); got != 5 || (State{Params: tenfold}).Costly(bigger) {
		t.Errorf("n = 1000 against defaults of n = 200: %g times", got)
	}
}
