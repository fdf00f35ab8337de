package app

import (
	"strings"
	"testing"

	"github.com/deltaclue/deltaclue/engine/clue"
)

func TestFormRoundTripsEveryParameter(t *testing.T) {
	p := clue.Defaults()
	p.Delta, p.N, p.Scheme, p.LambdaX, p.Seed, p.Rho, p.Constraint, p.DistanceMean = 3.25, 40, clue.S5, 0.5, 987654321, clue.LInf, clue.Filter, true
	p.Convergence = clue.CLUERule
	f := newForm(p)
	got, ok := f.params()
	if !ok || got != p {
		t.Fatalf("form round trip: ok %v, %+v, errors %v", ok, got, f.errors)
	}
	if f.values["loss"] != "distance" {
		t.Errorf("loss shown %q", f.values["loss"])
	}
}

func TestFormRefusesInPlace(t *testing.T) {
	for _, c := range []struct{ key, value, want string }{
		{"delta", "abc", "not a number"},
		{"delta", "-1", "delta"},
		{"n", "2.5", "whole number"},
		{"n", "0", "n = 0"},
		{"seed", "-3", "≥ 0"},
		{"h_threshold", "0", "h_threshold"},
		{"scheme", "S9", "scheme"},
		{"convergence", "endpoints", "want spread or clue"},
	} {
		f := newForm(clue.Defaults())
		f.set(c.key, c.value)
		if _, ok := f.params(); ok || !strings.Contains(f.errors[c.key], c.want) {
			t.Errorf("%s = %q: errors %v, want one on %s mentioning %q", c.key, c.value, f.errors, c.key, c.want)
		}
	}
}

func TestLossChoiceSetsLambdaX(t *testing.T) {
	f := newForm(clue.Defaults())
	f.set("loss", "uncertainty")
	if p, _ := f.params(); p.LambdaX != 0 {
		t.Errorf("uncertainty loss: λx = %v", p.LambdaX)
	}
	f.set("loss", "distance")
	if p, _ := f.params(); p.LambdaX != 0.03 {
		t.Errorf("distance loss: λx = %v", p.LambdaX)
	}
	f.set("lambda_x", "0")
	if f.values["loss"] != "uncertainty" {
		t.Errorf("λx = 0 shows loss %q", f.values["loss"])
	}
}

func TestWorkersFromQuery(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
		note bool
	}{{"1", 1, false}, {"8", 8, false}, {" 3 ", 3, false}, {"0", 2, true}, {"-1", 2, true}, {"1000", 2, true}, {"abc", 2, true}, {"", 2, true}} {
		n, note := workersFromQuery(c.in, 2)
		if n != c.want || (note != "") != c.note {
			t.Errorf("?workers=%q: %d, %q", c.in, n, note)
		}
		if c.note && !strings.Contains(note, "using 2") {
			t.Errorf("?workers=%q: the note %q does not say what was used", c.in, note)
		}
	}
}
