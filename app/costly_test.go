package app

import (
	"strings"
	"testing"

	"github.com/deltaclue/deltaclue/app/core"
	"github.com/deltaclue/deltaclue/engine/clue"
)

func TestCostlyPreview(t *testing.T) {
	huge := clue.Defaults()
	huge.N, huge.Delta, huge.MaxSteps = 1000, 20, 10000
	if costlyPreview(clue.Defaults()) || !costlyPreview(huge) {
		t.Error("a preview with the default steps is not costly; one with 10000 steps is")
	}
}

func TestCostlyText(t *testing.T) {
	huge := clue.Defaults()
	huge.N, huge.Delta, huge.MaxSteps = 1000, 20, 10000
	c := &core.Costly{Ratio: 1000, Workers: 2, PerStep: 0.4e-3}
	c.Link.Params = huge
	// 500 restarts a worker, 10000 steps, 0.4 ms a restart-step: 2000 s (core.Costly.Estimate).
	want := "This link asks for a search about 1000× larger than the default, about 33 min on this device."
	if got := costlyText(c); got != want {
		t.Errorf("%q\nwant %q", got, want)
	}
	c.PerStep = 0
	if got := costlyText(c); !strings.Contains(got, "measuring") {
		t.Errorf("before the measurement: %q", got)
	}
	for s, want := range map[float64]string{0.2: "1 s", 42: "42 s", 600: "10 min", 9000: "2.5 h"} {
		if got := timeText(s); got != want {
			t.Errorf("timeText(%g) = %q, want %q", s, got, want)
		}
	}
}
