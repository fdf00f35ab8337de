package core

import (
	"math"
	"testing"

	"github.com/deltaclue/deltaclue/app/searchworker"
	"github.com/deltaclue/deltaclue/app/sharelink"
	"github.com/deltaclue/deltaclue/engine/clue"
)

func hugeLink() sharelink.State {
	huge := clue.Defaults()
	huge.N, huge.Delta, huge.MaxSteps = 1000, 20, 10000
	return sharelink.State{Params: huge}
}

func TestAskCostlyMeasuresOnTheFirstWorker(t *testing.T) {
	p := readyPool(t, 2)
	cmds, costly := p.AskCostly(hugeLink(), clue.Defaults(), x0)
	ps := posts(cmds)
	if !costly || p.Costly == nil || len(ps) != len(ProbeSteps) || p.ProbesLeft() != len(ProbeSteps) {
		t.Fatalf("costly %v, %d probes", costly, len(ps))
	}
	for i, post := range ps {
		q := post.Request.Params
		if post.Worker != 0 || q.MaxSteps != ProbeSteps[i] || q.RelTol != 0 || len(post.Request.Restarts) != 48 || !p.IsProbe(post.Request.ID) {
			t.Errorf("probe %d: worker %d, %d steps, %d restarts", i, post.Worker, q.MaxSteps, len(post.Request.Restarts))
		}
	}
	if p.Costly.Workers != 2 || math.Round(p.Costly.Ratio) != 1000 {
		t.Errorf("workers %d, ratio %g", p.Costly.Workers, p.Costly.Ratio)
	}
}

func TestAskCostlyLeavesACheapLink(t *testing.T) {
	p := readyPool(t, 1)
	if cmds, costly := p.AskCostly(sharelink.State{Params: clue.Defaults()}, clue.Defaults(), x0); costly || cmds != nil || p.Costly != nil {
		t.Fatal("the default link was taken for a costly one")
	}
}

func TestCostlyEstimateComesFromTheProbes(t *testing.T) {
	p := readyPool(t, 2)
	cmds, _ := p.AskCostly(hugeLink(), clue.Defaults(), x0)
	for i, post := range posts(cmds) {
		// 2 steps 0.1 s, 10 steps 0.1 + 8 × 48 × 0.4 ms.
		secs := 0.1
		if ProbeSteps[i] == 10 {
			secs += 8 * 48 * 0.4e-3
		}
		p.Said(0, searchworker.Response{Type: "done", ID: post.Request.ID, Seconds: secs}, t0, 0)
	}
	if math.Abs(p.Costly.PerStep-0.4e-3) > 1e-9 || p.ProbesLeft() != 0 {
		t.Fatalf("per step %g, %d probes left", p.Costly.PerStep, p.ProbesLeft())
	}
	// 500 restarts a worker, 10000 steps, 0.4 ms a restart-step: 2000 s.
	if got := p.Costly.Estimate(); math.Abs(got-2000) > 1e-6 {
		t.Errorf("estimate %g s, want 2000", got)
	}
	if len(p.Run.Results) != 0 {
		t.Error("a timing search's results went into the run")
	}
}

func TestCostlyProbeErrorGivesNoEstimate(t *testing.T) {
	p := readyPool(t, 1)
	cmds, _ := p.AskCostly(hugeLink(), clue.Defaults(), x0)
	p.Said(0, searchworker.Response{Type: "error", ID: posts(cmds)[0].Request.ID, Error: "NaN"}, t0, 0)
	if !p.Costly.Failed || p.Costly.Estimate() != 0 {
		t.Fatalf("%+v", p.Costly)
	}
}

func TestResolveCostlyCancelsTheProbesLeft(t *testing.T) {
	p := readyPool(t, 2)
	cmds, _ := p.AskCostly(hugeLink(), clue.Defaults(), x0)
	first := posts(cmds)[0].Request.ID
	p.Said(0, searchworker.Response{Type: "done", ID: first, Seconds: 0.1}, t0, 0)
	cancels := posts(p.ResolveCostly())
	if p.Costly != nil || len(cancels) != 2*(len(ProbeSteps)-1) {
		t.Fatalf("%d cancels", len(cancels))
	}
	// A late answer is still the question's (swallowed), not the run's.
	late := posts(cmds)[3].Request.ID
	if !p.IsProbe(late) {
		t.Fatal("a cancelled probe is no longer recognised")
	}
	p.Said(0, searchworker.Response{Type: "done", ID: late, Error: searchworker.Cancelled}, t0, 0)
	if p.IsProbe(late) || p.Costly != nil {
		t.Error("the late answer was not taken")
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
		{[8]float64{0.3, 0.35, 0.3, 0.36, 0.31, 0.4}, 0.35 / 300}, // every short search slowed: the long one's, not a difference 5× too short
	}
	for _, c := range cases {
		if got := PerStep(c.seconds, 30); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("PerStep(%v) = %g, want %g", c.seconds, got, c.want)
		}
	}
}
