package clue

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"
)

// withoutAnchors is the shipped models with the anchors of the given classes taken away, as a classifier never
// sure of them would have it.
func withoutAnchors(t *testing.T, classes ...int) *Models {
	t.Helper()
	m, err := shipped()
	if err != nil {
		t.Fatal(err)
	}
	weak := *m
	weak.Anchors = slices.Clone(m.Anchors)
	for _, c := range classes {
		weak.Anchors[c] = nil
	}
	return &weak
}

// TestS2SpreadsOverAnchoredClasses: with classes 3 and 7 without anchors, S2's 100 restarts go to the eight
// others, in class order, 13 to each of the first four and 12 to each of the rest (perClass over the anchored
// classes): each class's run of starts heads for its nearest anchor at radii δ·j/m. With every class anchored
// they are today's, ten of each (the golden search, TestGoldenSearchEverywhere, holds their bits).
func TestS2SpreadsOverAnchoredClasses(t *testing.T) {
	digit := uncertainDigit(t)
	weak := withoutAnchors(t, 3, 7)
	if got := weak.AnchoredClasses(); !slices.Equal(got, []int{0, 1, 2, 4, 5, 6, 8, 9}) {
		t.Fatalf("anchored classes %v", got)
	}
	if got := weak.UnanchoredClasses(); !slices.Equal(got, []int{3, 7}) {
		t.Fatalf("unanchored classes %v", got)
	}
	prob, err := NewProblem(weak, digit.X0)
	if err != nil {
		t.Fatal(err)
	}
	p := Defaults()
	p.Scheme, p.N, p.Delta = S2, 100, 1.5
	starts, err := Starts(prob, p)
	if err != nil {
		t.Fatal(err)
	}
	if len(starts) != 100 {
		t.Fatalf("%d starts, want 100", len(starts))
	}
	// Each start belongs to the class whose nearest anchor it heads for.
	heads := func(z []float64) int {
		for y := range Classes {
			if len(weak.Anchors[y]) == 0 {
				continue
			}
			zy, err := prob.nearestAnchor(y, p)
			if err != nil {
				t.Fatal(err)
			}
			var dot, n1, n2 float64
			for k := range zy {
				a, b := z[k]-prob.z0[k], zy[k]-prob.z0[k]
				dot, n1, n2 = dot+a*b, n1+a*a, n2+b*b
			}
			if math.Abs(dot/math.Sqrt(n1*n2)-1) < 1e-9 {
				return y
			}
		}
		return -1
	}
	want := map[int]int{0: 13, 1: 13, 2: 13, 4: 13, 5: 12, 6: 12, 8: 12, 9: 12}
	at := 0
	for _, y := range weak.AnchoredClasses() {
		m := want[y]
		for j := 1; j <= m; j++ {
			z := starts[at]
			if got := heads(z); got != y {
				t.Errorf("start %d heads for class %d, want %d", at, got, y)
			}
			if r := l2dist(z, prob.z0); math.Abs(r-p.Delta*float64(j)/float64(m)) > 1e-9 {
				t.Errorf("class %d start %d at radius %v, want δ·%d/%d", y, j, r, j, m)
			}
			at++
		}
	}
	// Every class anchored: ten each, every class in turn, as before.
	all, err := Starts(digit, p)
	if err != nil {
		t.Fatal(err)
	}
	for i, z := range all {
		if r := l2dist(z, digit.z0); math.Abs(r-p.Delta*float64(i%10+1)/10) > 1e-9 {
			t.Errorf("every class anchored: start %d at radius %v, want δ·%d/10", i, r, i%10+1)
		}
	}
}

// TestS2WithoutAnyAnchor: models whose classes all lack anchors, or that have no anchors file, refuse S2 as a
// *ParamError in one sentence, from ValidateFor, Starts and Search alike; other schemes run.
func TestS2WithoutAnyAnchor(t *testing.T) {
	none := withoutAnchors(t, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9)
	noFile := withoutAnchors(t)
	noFile.Anchors = nil
	digit := uncertainDigit(t)
	p := Defaults()
	p.Scheme, p.N, p.MaxSteps = S2, 10, 3
	for _, c := range []struct {
		name string
		m    *Models
		want string
	}{
		{"no class anchored", none, "scheme = S2: the classifier reads no training image of any class with confidence, so S2 has no anchors to start toward: choose another scheme"},
		{"no anchors file", noFile, "scheme = S2: the models have no anchors (anchors.dcw), the training codes S2 starts toward: choose another scheme"},
	} {
		err := p.ValidateFor(c.m)
		var pe *ParamError
		if !errors.As(err, &pe) || pe.Field != "scheme" || err.Error() != c.want {
			t.Errorf("%s: ValidateFor gave %v, want %q", c.name, err, c.want)
		}
		prob, err := NewProblem(c.m, digit.X0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Starts(prob, p); !errors.As(err, &pe) || err.Error() != c.want {
			t.Errorf("%s: Starts gave %v", c.name, err)
		}
		if _, err := Search(context.Background(), prob, p, nil, nil); !errors.As(err, &pe) || err.Error() != c.want {
			t.Errorf("%s: Search gave %v", c.name, err)
		}
		q := p
		q.Scheme = S1
		if err := q.ValidateFor(c.m); err != nil {
			t.Errorf("%s: S1 refused: %v", c.name, err)
		}
	}
	if err := p.ValidateFor(withoutAnchors(t, 3)); err != nil {
		t.Errorf("one class without anchors: S2 refused: %v", err)
	}
}

// TestUnanchoredSentence: what the command line says when S2 leaves classes out.
func TestUnanchoredSentence(t *testing.T) {
	w := NewWords([]string{"T-shirt-top", "Trouser", "Pullover"}, "image")
	for _, c := range []struct {
		classes []int
		want    string
	}{
		{nil, ""},
		{[]int{0}, "scheme S2 starts no restart toward T-shirt-top: the classifier reads no training image of that class with confidence, so it has no anchors"},
		{[]int{0, 2}, "scheme S2 starts no restart toward T-shirt-top and Pullover: the classifier reads no training image of those classes with confidence, so they have no anchors"},
	} {
		if got := w.Unanchored(c.classes); got != c.want {
			t.Errorf("%v: %q, want %q", c.classes, got, c.want)
		}
	}
}
