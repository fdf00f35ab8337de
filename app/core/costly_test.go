package core

import (
	"math"
	"testing"
	"time"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/sharelink"
	"github.com/deltaclue/deltaclue/wasm/worker/searchworker"
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

// TestAskSlow: a worker's warm-up says what a restart-step costs on this device; a search the visitor starts
// that would take longer than SlowSearch asks first, with as many restarts as would fit offered beside it; a
// finished search's own time per restart-step replaces the warm-up's.
func TestAskSlow(t *testing.T) {
	now := time.Unix(1000, 0)
	p := NewPool(2, false, now)
	for k := range 2 {
		p.Said(k, searchworker.Response{Type: "ready"}, now, 0)
	}
	params := clue.Defaults() // 100 restarts of at most 100 steps: 50 × 100 restart-steps a worker
	if p.AskSlow(params) {
		t.Fatal("it asked with no measure of this device")
	}
	// A warm-up of 1000 restart-steps in 0.5 s: 5,000 restart-steps take 2.5 s.
	p.Said(0, searchworker.Response{Type: "warm", Seconds: 0.5, RestartSteps: 1000}, now, 0)
	if p.StepSeconds != 0.0005 || p.AskSlow(params) || p.Costly != nil {
		t.Fatalf("a 2.5 s search asked (step %v s, question %+v)", p.StepSeconds, p.Costly)
	}
	// A slower measure does not replace a quicker one (noise only adds time).
	p.Said(1, searchworker.Response{Type: "warm", Seconds: 4, RestartSteps: 1000}, now, 0)
	if p.StepSeconds != 0.0005 {
		t.Fatalf("a slower warm-up made the step %v s", p.StepSeconds)
	}
	// A big model: 1000 restart-steps in 4 s, 20 s for the defaults.
	p = NewPool(2, false, now)
	for k := range 2 {
		p.Said(k, searchworker.Response{Type: "ready"}, now, 0)
	}
	p.Said(1, searchworker.Response{Type: "warm", Seconds: 4, RestartSteps: 1000}, now, 0)
	if !p.AskSlow(params) || p.Costly == nil || !p.Costly.Slow {
		t.Fatal("a 20 s search did not ask")
	}
	if est := p.Costly.Estimate(); math.Abs(est-20) > 1e-9 {
		t.Errorf("the estimate is %v s, want 20", est)
	}
	fit := p.Costly.Within(params)
	if fit.N < 40 || fit.N > 50 || fit.MaxSteps != params.MaxSteps {
		t.Errorf("within 10 s: %d restarts of %d steps, want 40–50 of %d", fit.N, fit.MaxSteps, params.MaxSteps)
	}
	p.ResolveCostly()
	// A search's own time, quicker than the warm-up's: worker 0's share (restarts 0, 2, 4) took 30 restart-steps
	// in 0.03 s.
	cmds, _ := p.Start(make([]float32, 4), clue.Params{N: 6, MaxSteps: 10}, false, now)
	if len(cmds) == 0 {
		t.Fatal("the search did not start")
	}
	var mine []clue.Explanation
	for _, i := range p.Run.Owed[0] {
		mine = append(mine, clue.Explanation{Restart: i, Steps: 10})
	}
	p.Said(0, searchworker.Response{Type: "results", ID: p.Run.ID, Explanations: mine}, now, 0)
	p.Said(0, searchworker.Response{Type: "done", ID: p.Run.ID, Seconds: 0.03}, now, 0)
	if want := 0.03 / float64(10*len(mine)); math.Abs(p.StepSeconds-want) > 1e-12 {
		t.Errorf("after a search the step costs %v s, want %v", p.StepSeconds, want)
	}
}
