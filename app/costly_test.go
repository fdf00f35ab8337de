package app

import (
	"math"
	"strings"
	"testing"

	"github.com/deltaclue/deltaclue/engine/clue"
)

func TestCostlyPreview(t *testing.T) {
	huge := clue.Defaults()
	huge.N, huge.Delta, huge.MaxSteps = 1000, 20, 10000
	if costlyPreview(clue.Defaults()) || !costlyPreview(huge) {
		t.Error("a preview with the default steps is not costly; one with 10000 steps is")
	}
}

func TestCostlyEstimate(t *testing.T) {
	huge := clue.Defaults()
	huge.N, huge.Delta, huge.MaxSteps = 1000, 20, 10000
	c := &costlyLink{ratio: 1000, workers: 2, perStep: 0.4e-3}
	c.link.Params = huge
	// 500 restarts a worker, 10000 steps, 0.4 ms a restart-step: 2000 s.
	if got := c.estimate(); math.Abs(got-2000) > 1e-6 {
		t.Errorf("estimate %g s, want 2000", got)
	}
	want := "This link asks for a search about 1000× larger than the default, about 33 min on this device."
	if got := c.text(); got != want {
		t.Errorf("%q\nwant %q", got, want)
	}
	c.perStep = 0
	if got := c.text(); !strings.Contains(got, "measuring") {
		t.Errorf("before the measurement: %q", got)
	}
	for s, want := range map[float64]string{0.2: "1 s", 42: "42 s", 600: "10 min", 9000: "2.5 h"} {
		if got := timeText(s); got != want {
			t.Errorf("timeText(%g) = %q, want %q", s, got, want)
		}
	}
}

func TestPerStep(t *testing.T) {
	// 30 restarts; pairs of 2 and 10 steps: 8 × 30 = 240 extra restart-steps.
	cases := []struct {
		seconds [8]float64
		want    float64
	}{
		{[8]float64{0.1, 0.58, 0.1, 0.34}, 0.24 / 240},            // the quickest of each length
		{[8]float64{0.1, 0.58, 0.1, 0}, 0.48 / 240},               // the searches in so far
		{[8]float64{0.1, 0, 0, 0}, 0},                             // no long search in yet
		{[8]float64{}, 0},                                         // none in yet
		{[8]float64{0.3, 0.34, 0.1, 0.58, 0.1, 0.58}, 0.24 / 240}, // a slowed short search is not paired with a quick long one
		{[8]float64{0.5, 0.4, 0.5, 0.45, 0, 0.3}, 0.3 / 300},      // noise: the quickest long search's time per step
	}
	for _, c := range cases {
		if got := perStep(c.seconds, 30); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("perStep(%v) = %g, want %g", c.seconds, got, c.want)
		}
	}
}
