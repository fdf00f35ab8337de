package clue

import (
	"context"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/deltaclue/deltaclue/engine"
)

func TestParetoFrontByHand(t *testing.T) {
	cases := []struct {
		name string
		d, h []float64
		want []int
	}{
		{"empty", nil, nil, nil},
		{"one", []float64{3}, []float64{1}, []int{0}},
		// (1, .9) (2, .5) (3, .7)✗ (4, .1) (2, .6)✗ (5, .1)✗ (same H, farther)
		{"staircase", []float64{1, 2, 3, 4, 2, 5}, []float64{.9, .5, .7, .1, .6, .1}, []int{0, 1, 3}},
		{"identical points keep the first", []float64{2, 2, 1}, []float64{.3, .3, .8}, []int{2, 0}},
		{"same d: the lower H", []float64{2, 2}, []float64{.4, .2}, []int{1}},
		{"NaN left out", []float64{1, math.NaN(), 3}, []float64{.5, .1, .2}, []int{0, 2}},
		{"dominated by a nearer, surer point", []float64{1, 5}, []float64{.1, .2}, []int{0}},
	}
	for _, c := range cases {
		if got := ParetoFront(c.d, c.h); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: front %v, want %v", c.name, got, c.want)
		}
	}
}

func TestLabelFronts(t *testing.T) {
	exps := []Explanation{
		{Restart: 0, Label: 4, Distance: 10, HTotal: .5},
		{Restart: 1, Label: 4, Distance: 20, HTotal: .1},
		{Restart: 2, Label: 4, Distance: 30, HTotal: .2}, // dominated by restart 1
		{Restart: 3, Label: 9, Distance: 5, HTotal: .9},
		{Restart: 4, Label: 9, Failed: "NaN"},
	}
	got := LabelFronts(exps, 10)
	if !reflect.DeepEqual(got[4], []int{0, 1}) || !reflect.DeepEqual(got[9], []int{3}) || got[0] != nil {
		t.Errorf("fronts %v", got)
	}
}

func TestRecourseMeasuresByHand(t *testing.T) {
	x0 := make([]float32, 4)
	// Accepted: changes of (0.5, 0.05, 0, −0.2) and (0.1, 0.1, 0.1, 0.1); one not accepted, one failed.
	exps := []Explanation{
		{Restart: 0, Accepted: true, Image: []float32{.5, .05, 0, 0}, YNN: .8},
		{Restart: 1, Accepted: true, Image: []float32{.1, .1, .1, .1}, YNN: .4},
		{Restart: 2, Image: []float32{1, 1, 1, 1}, YNN: 0},
		{Restart: 3, Failed: "NaN", YNN: -1},
	}
	x0[3] = .2
	r := recourse(x0, exps, []int{0, 1})
	// L0: restart 0 changes pixels 0 (0.5) and 3 (0.2) by more than 0.1 → 2; restart 1 changes pixel 3 by
	// exactly 0.1 and the others by 0.1 → 0. L1: 0.5+0.05+0+0.2 = 0.75 and 0.1+0.1+0.1+0.1 = 0.4.
	// L2: √(0.25+0.0025+0.04) = 0.5408 and √0.04 = 0.2.
	checks := []struct {
		name      string
		got, want float64
	}{
		{"validity", r.Validity, 0.5},
		{"L0 min", r.L0.Min, 0}, {"L0 max", r.L0.Max, 2}, {"L0 mean", r.L0.Mean, 1},
		{"L1 min", r.L1.Min, 0.4}, {"L1 max", r.L1.Max, 0.75},
		{"L2 max", r.L2.Max, math.Sqrt(0.25 + 0.0025 + 0.04)}, {"L2 min", r.L2.Min, 0.2},
		{"yNN", r.YNN, 0.6},
	}
	for _, c := range checks {
		if math.Abs(c.got-c.want) > 1e-6 {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if r := recourse(x0, exps[2:3], nil); r.YNN != -1 || r.Validity != 0 {
		t.Errorf("nothing accepted: %+v", r)
	}
}

func TestNeighbourAgreementByHand(t *testing.T) {
	// 1-D codes. Class 0 at 0, 1, 2; class 1 at 1.1, 5; class 2 at 0.9.
	anchors := [][]float32{{0, 1, 2}, {1.1, 5}, {0.9}}
	// The 3 nearest to 1: 1 (c0), 0.9 (c2), 1.1 (c1) → class 0 has 1 of 3.
	if got := neighbourAgreement([]float32{1}, 0, anchors, 3); math.Abs(float64(got)-1.0/3) > 1e-7 {
		t.Errorf("yNN = %v, want 1/3", got)
	}
	// The 5 nearest to 0: 0, 0.9, 1, 1.1, 2 → class 0 has 3 of 5.
	if got := neighbourAgreement([]float32{0}, 0, anchors, 5); math.Abs(float64(got)-0.6) > 1e-7 {
		t.Errorf("yNN = %v, want 0.6", got)
	}
	// Ties in distance go to the lower class: 1.05 is 0.05 from 1 (c0) and 1.1 (c1); k = 1 picks class 0.
	if got := neighbourAgreement([]float32{1.05}, 0, [][]float32{{1}, {1.1}}, 1); got != 1 {
		t.Errorf("tie: yNN = %v, want 1", got)
	}
	if got := neighbourAgreement([]float32{0}, 0, nil, 5); got != -1 {
		t.Errorf("no anchors: %v, want -1", got)
	}
}

func TestModeCardsAndSentence(t *testing.T) {
	// Label 9: a mode 0 of restarts 1 (cost .3) and 2 (cost .2) plus restart 5, a duplicate of 2; a mode 1 of
	// restart 3. Label 4: restart 0 alone. Restart 4 is not accepted.
	exps := []Explanation{
		{Restart: 0, Accepted: true, Label: 4, Mode: 0, DuplicateOf: -1, Cost: .5, Distance: 20, HTotal: .1},
		{Restart: 1, Accepted: true, Label: 9, Mode: 0, DuplicateOf: -1, Cost: .3, Distance: 12, HTotal: .2},
		{Restart: 2, Accepted: true, Label: 9, Mode: 0, DuplicateOf: -1, Cost: .2, Distance: 10, HTotal: .1},
		{Restart: 3, Accepted: true, Label: 9, Mode: 1, DuplicateOf: -1, Cost: .4, Distance: 8, HTotal: .25},
		{Restart: 4, Label: 7, Mode: -1, DuplicateOf: -1, Cost: 2},
		{Restart: 5, Accepted: true, Label: 9, Mode: -1, DuplicateOf: 2, Cost: .21, Distance: 10.5, HTotal: .1},
	}
	s := Summary{Restarts: 6, Accepted: 5, LabelCounts: make([]int, 10), LabelDistribution: make([]float64, 10), Modes: make([]int, 10)}
	s.LabelCounts[4], s.LabelCounts[9] = 1, 4
	s.LabelDistribution[4], s.LabelDistribution[9] = .14, .86
	s.Modes[4], s.Modes[9] = 1, 2
	cards := ModeCards(exps, s)
	want := []ModeCard{
		{Label: 9, Mode: 0, Representative: 2, Count: 3, HTotal: .1, Distance: 10, Cost: .2, P: .86, Form: 1, Forms: 2},
		{Label: 9, Mode: 1, Representative: 3, Count: 1, HTotal: .25, Distance: 8, Cost: .4, P: .86, Form: 2, Forms: 2},
		{Label: 4, Mode: 0, Representative: 0, Count: 1, HTotal: .1, Distance: 20, Cost: .5, P: .14, Form: 1, Forms: 1},
	}
	if !reflect.DeepEqual(cards, want) {
		t.Errorf("cards\n got %+v\nwant %+v", cards, want)
	}
	pred0 := engine.Uncertainty{Probs: []float32{0, 0, 0, 0, .63, 0, 0, 0, 0, .37}, Total: .9}
	got := Describe(pred0, exps, s, Defaults())
	// Each label's distance is its cheapest explanation's (restart 2 for the 9s, not the closer but costlier
	// restart 3): the d its first card shows, and the explanation its p(y) comes from.
	wantText := "The model reads a 4 (p 0.63, H 0.90 nats). Nearby, it would be sure of a 9 (4 of 6 restarts in 2 forms, " +
		"the cheapest at d 10.0) or a 4 (1 of 6 restarts, cheapest at d 20.0)."
	if got != wantText {
		t.Errorf("sentence\n got %q\nwant %q", got, wantText)
	}
	for _, c := range []struct {
		card           ModeCard
		restarts       int
		form, sentence string
	}{
		{cards[0], 6, "form 1 of 2", "A 9, form 1 of 2, reached by 3 of 6 restarts (p(y) 0.86); its cheapest explanation, shown, has H 0.10 and d 10.0."},
		{cards[2], 6, "", "A 4 reached by 1 of 6 restarts (p(y) 0.14); its cheapest explanation, shown, has H 0.10 and d 20.0."},
		{ModeCard{Label: 8, Count: 1, Forms: 1}, 1, "", "An 8 reached by 1 of 1 restart (p(y) 0.00); its cheapest explanation, shown, has H 0.00 and d 0.0."},
	} {
		if got := c.card.FormText(); got != c.form {
			t.Errorf("card %+v: form %q, want %q", c.card, got, c.form)
		}
		if got := c.card.Sentence(c.restarts); got != c.sentence {
			t.Errorf("card %+v: sentence\n got %q\nwant %q", c.card, got, c.sentence)
		}
	}
	none := Summary{Restarts: 3, LabelCounts: make([]int, 10)}
	if got := Describe(pred0, exps[4:5], none, Defaults()); !strings.Contains(got, "try a larger δ or a higher threshold") {
		t.Errorf("nothing accepted: %q", got)
	}
	failed := Summary{Restarts: 2, Failed: 2, LabelCounts: make([]int, 10)}
	if got := Describe(pred0, []Explanation{{Failed: "NaN"}, {Failed: "NaN"}}, failed, Defaults()); !strings.Contains(got, "Every restart failed") ||
		!strings.Contains(got, "smaller learning rate than 0.1") {
		t.Errorf("every restart failed: %q", got)
	}
	sure := engine.Uncertainty{Probs: []float32{0, 0, 0, 0, 0, 0, 0, 0, .97, .03}, Total: .14}
	if got := Describe(sure, nil, Summary{LabelCounts: make([]int, 10)}, Defaults()); !strings.HasPrefix(got, "The model reads an 8") ||
		!strings.Contains(got, "already sure") {
		t.Errorf("a sure digit: %q", got)
	}
}

func TestReachesByHand(t *testing.T) {
	steps := []SweepStep{
		{Delta: .5, Explanations: []Explanation{{Restart: 0, Label: 4, Accepted: false}}},
		{Delta: 1, Explanations: []Explanation{{Restart: 0, Label: 9, Accepted: true, Cost: .4}, {Restart: 1, Label: 9, Accepted: true, Cost: .3}}},
		{Delta: 1.5, Explanations: []Explanation{{Restart: 0, Label: 4, Accepted: true, Cost: .2}, {Restart: 1, Label: 9, Accepted: true, Cost: .1}}},
		{Delta: 3, Explanations: []Explanation{{Restart: 2, Label: 8, Accepted: true, Cost: .5}, {Restart: 3, Label: 4, Accepted: true}}},
	}
	r := Reaches(steps)
	type lr struct {
		label   int
		delta   float64
		restart int
	}
	var got []lr
	for _, x := range r {
		got = append(got, lr{x.Label, x.Delta, x.Explanation.Restart})
	}
	want := []lr{{9, 1, 1}, {4, 1.5, 0}, {8, 3, 2}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("reaches %v, want %v", got, want)
	}
	text := DescribeReaches(r, Ladder{Radii: []float64{.5, 1, 1.5, 3}, N: 2}, 4)
	if text != "Up to δ = 3: a confident 9 is 1 away, a 4 (as the model reads it now) is 1.5 away, an 8 needs 3; no other label appears (3 of 10 do)." {
		t.Errorf("sentence %q", text)
	}
	if text := DescribeReaches(r[:1], Ladder{Radii: []float64{.5, 1}, N: 2}, 4); text != "Up to δ = 1: a confident 9 is 1 away; no other label appears (1 of 10 does)." {
		t.Errorf("one label: sentence %q", text)
	}
}

func TestLadder(t *testing.T) {
	if err := DefaultLadder().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		in   string
		want []float64
	}{
		{"0.5, 1, 1.5", []float64{.5, 1, 1.5}},
		{"0.5 1;2", []float64{.5, 1, 2}},
		{"0.5:4:0.5", []float64{.5, 1, 1.5, 2, 2.5, 3, 3.5, 4}},
		{"0.1:0.3:0.1", []float64{.1, .2, .3}},
	} {
		got, err := ParseRadii(c.in)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseRadii(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
		if back, _ := ParseRadii(FormatRadii(got)); !reflect.DeepEqual(back, got) {
			t.Errorf("%q does not round-trip through FormatRadii", c.in)
		}
	}
	for _, bad := range []string{"", "one, two", "1, NaN", "0:20:0.1", "2:1:0.5"} {
		if _, err := ParseRadii(bad); err == nil {
			t.Errorf("ParseRadii(%q) accepted", bad)
		}
	}
	for _, l := range []Ladder{
		{Radii: nil, N: 50}, {Radii: []float64{0, 1}, N: 50}, {Radii: []float64{-1}, N: 50}, {Radii: []float64{2, 1}, N: 50},
		{Radii: []float64{1, 1}, N: 50}, {Radii: []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}, N: 50},
		{Radii: []float64{math.Inf(1)}, N: 50}, {Radii: []float64{1}, N: 0}, {Radii: []float64{25}, N: 5},
	} {
		if err := l.Validate(); err == nil {
			t.Errorf("ladder %v accepted", l)
		}
	}
}

func TestPrincipalPlane(t *testing.T) {
	z0 := []float32{1, 1, 1}
	// Offsets spread along (1, 1, 0)/√2 by ±3 and along (0, 0, 1) by ±1: those are the axes, in that order.
	pts := [][]float32{{1 + 3/math.Sqrt2, 1 + 3/math.Sqrt2, 1}, {1 - 3/math.Sqrt2, 1 - 3/math.Sqrt2, 1}, {1, 1, 2}, {1, 1, 0}}
	pl := PrincipalPlane(z0, pts)
	want := [2][]float64{{1 / math.Sqrt2, 1 / math.Sqrt2, 0}, {0, 0, 1}}
	for a := range want {
		for i := range want[a] {
			if math.Abs(pl.Axes[a][i]-want[a][i]) > 1e-7 {
				t.Fatalf("axis %d = %v, want %v", a, pl.Axes[a], want[a])
			}
		}
	}
	if math.Abs(pl.Explained[0]-0.9) > 1e-7 || math.Abs(pl.Explained[1]-0.1) > 1e-7 {
		t.Errorf("explained %v, want [0.9 0.1]", pl.Explained)
	}
	if p := pl.Project(pts[0]); math.Abs(p[0]-3) > 1e-6 || math.Abs(p[1]) > 1e-6 {
		t.Errorf("projection %v, want (3, 0)", p)
	}
	// One point: the second axis is completed, orthonormal to the first.
	one := PrincipalPlane(z0, [][]float32{{2, 1, 1}})
	if dot := one.Axes[0][0]*one.Axes[1][0] + one.Axes[0][1]*one.Axes[1][1] + one.Axes[0][2]*one.Axes[1][2]; math.Abs(dot) > 1e-9 ||
		math.Abs(dotSelf(one.Axes[1])-1) > 1e-9 || one.Axes[0][0] != 1 {
		t.Errorf("one point: axes %v", one.Axes)
	}
	if none := PrincipalPlane(z0, nil); dotSelf(none.Axes[0]) != 1 || dotSelf(none.Axes[1]) != 1 {
		t.Errorf("no points: axes %v", none.Axes)
	}
}

// TestTraceEndsAtTheResult: a trajectory reruns one restart alone and ends, bit for bit, at the result the
// full search gave that restart; its last frame is the result's image.
func TestTraceEndsAtTheResult(t *testing.T) {
	prob := uncertainDigit(t)
	p := Defaults()
	p.N, p.MaxSteps = 12, 40
	exps, err := Search(context.Background(), prob, p, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, restart := range []int{0, 7, 11} {
		tr, err := Trace(context.Background(), prob, p, restart, 8)
		if err != nil {
			t.Fatal(err)
		}
		ja, _ := json.Marshal(tr.Explanation)
		jb, _ := json.Marshal(exps[restart])
		if string(ja) != string(jb) {
			t.Errorf("restart %d: the traced result differs from the search's", restart)
		}
		if len(tr.Path) != exps[restart].Steps+1 {
			t.Errorf("restart %d: %d points on the path for %d steps", restart, len(tr.Path), exps[restart].Steps)
		}
		last := tr.Path[len(tr.Path)-1]
		if !reflect.DeepEqual(last, exps[restart].Z) {
			t.Errorf("restart %d: the path ends at %v, the result is %v", restart, last, exps[restart].Z)
		}
		if len(tr.Frames) != 8 || tr.Frames[0].Step != 0 || tr.Frames[7].Step != exps[restart].Steps {
			t.Fatalf("restart %d: frames at steps %v", restart, tr.Frames)
		}
		f := tr.Frames[7]
		if !reflect.DeepEqual(f.Image, exps[restart].Image) || f.HTotal != exps[restart].HTotal || f.Distance != exps[restart].Distance ||
			f.Cost != exps[restart].Cost || f.Label != exps[restart].Label {
			t.Errorf("restart %d: the last frame is not the result", restart)
		}
		if !reflect.DeepEqual(tr.Path[0], exps[restart].Start) {
			t.Errorf("restart %d: the path starts at %v, the start was %v", restart, tr.Path[0], exps[restart].Start)
		}
	}
	if _, err := Trace(context.Background(), prob, p, 12, 8); err == nil {
		t.Error("restart 12 of 12 traced")
	}
}

func TestEvenly(t *testing.T) {
	for _, c := range []struct {
		n, k int
		want []int
	}{{1, 8, []int{0}}, {3, 8, []int{0, 1, 2}}, {101, 8, []int{0, 14, 29, 43, 57, 71, 86, 100}}, {5, 2, []int{0, 4}}} {
		if got := evenly(c.n, c.k); !reflect.DeepEqual(got, c.want) {
			t.Errorf("evenly(%d, %d) = %v, want %v", c.n, c.k, got, c.want)
		}
	}
}

// TestSweepEqualsSeparateSearches: each radius of a sweep is the search with that δ and n.
func TestSweepEqualsSeparateSearches(t *testing.T) {
	prob := uncertainDigit(t)
	p := Defaults()
	p.MaxSteps = 30
	l := Ladder{Radii: []float64{1, 2.5}, N: 10}
	steps, err := Sweep(context.Background(), prob, p, l, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, st := range steps {
		pi := p
		pi.Delta, pi.N = l.Radii[i], l.N
		exps, _ := Search(context.Background(), prob, pi, nil, nil)
		sum := Summarize(prob.X0, prob.Z0, 10, pi, exps)
		ja, _ := json.Marshal(SweepStep{Delta: pi.Delta, Explanations: exps, Summary: sum})
		jb, _ := json.Marshal(st)
		if string(ja) != string(jb) {
			t.Errorf("δ = %g: the sweep's step differs from a separate search", pi.Delta)
		}
	}
	if _, err := Sweep(context.Background(), prob, p, Ladder{N: 10}, nil); err == nil {
		t.Error("an empty ladder was swept")
	}
}
