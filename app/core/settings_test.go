package core

import (
	"strings"
	"testing"

	"github.com/deltaclue/deltaclue/engine/clue"
)

func TestFormRoundTripsEveryParameter(t *testing.T) {
	p := clue.Defaults()
	p.Delta, p.N, p.Scheme, p.LambdaX, p.Seed, p.Rho, p.Constraint, p.DistanceMean = 3.25, 40, clue.S5, 0.5, 987654321, clue.LInf, clue.Filter, true
	p.Convergence = clue.CLUERule
	f := NewSettings(p)
	if !f.OK || f.Params != p {
		t.Fatalf("form round trip: ok %v, %+v, errors %v", f.OK, f.Params, f.Errors)
	}
	if f.Values["loss"] != "distance" {
		t.Errorf("loss shown %q", f.Values["loss"])
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
		f := NewSettings(clue.Defaults())
		f.Set(c.key, c.value)
		if f.OK || !strings.Contains(f.Errors[c.key], c.want) {
			t.Errorf("%s = %q: errors %v, want one on %s mentioning %q", c.key, c.value, f.Errors, c.key, c.want)
		}
		// A refused setting under the fold opens it; one at hand (δ, n) does not.
		if f.Open != !AtHand[c.key] || f.FoldedError() != !AtHand[c.key] {
			t.Errorf("%s = %q: the fold open %v, folded error %v", c.key, c.value, f.Open, f.FoldedError())
		}
		// Closing the fold while the error stands keeps it open; mending the value lets it close.
		if open := f.Toggled(false); open != !AtHand[c.key] {
			t.Errorf("%s = %q: closed with the error standing, the fold says open %v", c.key, c.value, open)
		}
		f.Set(c.key, NewSettings(clue.Defaults()).Values[c.key])
		if !f.OK || f.Toggled(false) {
			t.Errorf("%s mended: ok %v, errors %v, fold open %v", c.key, f.OK, f.Errors, f.Open)
		}
	}
}

func TestLossChoiceSetsLambdaX(t *testing.T) {
	f := NewSettings(clue.Defaults())
	f.Set("loss", "uncertainty")
	if f.Params.LambdaX != 0 {
		t.Errorf("uncertainty loss: λx = %v", f.Params.LambdaX)
	}
	f.Set("loss", "distance")
	if f.Params.LambdaX != 0.03 {
		t.Errorf("distance loss: λx = %v", f.Params.LambdaX)
	}
	f.Set("lambda_x", "0")
	if f.Values["loss"] != "uncertainty" {
		t.Errorf("λx = 0 shows loss %q", f.Values["loss"])
	}
	// A positive λx typed chooses the distance loss, and choosing it again keeps that λx.
	f.Set("lambda_x", "0.5")
	f.Set("loss", "distance")
	if f.Values["loss"] != "distance" || f.Params.LambdaX != 0.5 {
		t.Errorf("λx = 0.5: loss %q, λx %v", f.Values["loss"], f.Params.LambdaX)
	}
}

func TestWorkersFromQuery(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
		note bool
	}{{"1", 1, false}, {"8", 8, false}, {" 3 ", 3, false}, {"0", 2, true}, {"-1", 2, true}, {"1000", 2, true}, {"abc", 2, true}, {"", 2, true}} {
		n, note := WorkersFromQuery(c.in, 2, 4)
		if n != c.want || (note != "") != c.note {
			t.Errorf("?workers=%q: %d, %q", c.in, n, note)
		}
		if c.note && !strings.Contains(note, "using 2") {
			t.Errorf("?workers=%q: the note %q does not say what was used", c.in, note)
		}
	}
}

func TestShowKeepsThePoolAndTheFold(t *testing.T) {
	f := NewSettings(clue.Defaults())
	f.WorkersIn, f.Open = "3", true
	p := clue.Defaults()
	p.N = 7
	f.Show(p)
	if f.Params.N != 7 || f.Values["n"] != "7" || !f.OK || f.WorkersIn != "3" || !f.Open {
		t.Errorf("after Show: %+v", f)
	}
	for _, c := range []struct {
		in string
		n  int
		ok bool
	}{{"3", 3, true}, {" 8 ", 8, true}, {"9", 9, false}, {"0", 0, false}, {"x", 0, false}} {
		f.WorkersIn = c.in
		if n, ok := f.Workers(); ok != c.ok || (ok && n != c.n) {
			t.Errorf("workers %q: %d, %v", c.in, n, ok)
		}
	}
}

// TestFormKeepsTheModelsDefaults: the form shows the models' defaults (clue.DefaultsFor their description) and
// keeps them through a link shown: choosing the distance loss restores their λx, or the paper's 0.03 where
// theirs is 0; before any are given, the form's defaults are Defaults().
func TestFormKeepsTheModelsDefaults(t *testing.T) {
	var f Settings
	if f.Defaults() != clue.Defaults() {
		t.Errorf("a form given no defaults: %+v", f.Defaults())
	}
	own := clue.Defaults()
	own.Delta, own.LambdaX, own.HThreshold = 4, 0.003, 0.5
	f.ShowDefaults(own)
	if !f.OK || f.Params != own || f.Defaults() != own || f.Values["delta"] != "4" || f.Values["h_threshold"] != "0.5" {
		t.Fatalf("the models' defaults shown: %+v, values %v", f.Params, f.Values)
	}
	link := clue.Defaults()
	link.N = 30
	f.Show(link)
	if f.Params != link || f.Defaults() != own {
		t.Errorf("a link shown: %+v, defaults %+v", f.Params, f.Defaults())
	}
	f.Set("loss", "uncertainty")
	f.Set("loss", "distance")
	if f.Params.LambdaX != 0.003 {
		t.Errorf("the distance loss on models whose λx is 0.003: λx = %v", f.Params.LambdaX)
	}
	own.LambdaX = 0
	f.ShowDefaults(own)
	f.Set("loss", "distance")
	if f.Params.LambdaX != 0.03 {
		t.Errorf("the distance loss on models whose λx is 0: λx = %v", f.Params.LambdaX)
	}
}
