package core

import (
	"math"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/sharelink"
	"github.com/deltaclue/deltaclue/wasm/worker/searchworker"
)

// Costly is a costly link waiting for the user's choice (a search more than sharelink.CostlyRatio times the
// default's work), and the measurement of this device's speed that gives its estimate.
type Costly struct {
	Link    sharelink.State
	Ratio   float64                  // its work over the models' defaults
	Probes  [len(ProbeSteps)]int     // request IDs of the timing searches
	Seconds [len(ProbeSteps)]float64 // their times in the worker, 0 until done
	Batch   int                      // restarts in each timing search
	PerStep float64                  // seconds per restart-step on one worker; 0 until measured
	Failed  bool                     // a timing search failed: no estimate
	Workers int                      // how many workers would share the link's search
	// Slow says the question is of a search the visitor started (Explain) that would take longer than
	// SlowSearch on this device (AskSlow): its Link holds the parameters, and there is nothing to measure.
	Slow bool
}

// SlowSearch is how long a search the visitor starts may take, by this device's measured speed, before the
// page asks first (a big model's, a ResNet's: its defaults may take a minute on a phone).
const SlowSearch = 10.0

// AskSlow holds the question of a search of params that would take longer than SlowSearch on this device (by
// StepSeconds), and reports whether it asked.
func (p *Pool) AskSlow(params clue.Params) bool {
	c := &Costly{Link: sharelink.State{Params: params}, PerStep: p.StepSeconds, Workers: max(len(p.ReadyWorkers()), 1), Slow: true}
	if params.LambdaD > 0 {
		c.Workers = 1
	}
	if p.StepSeconds == 0 || c.Estimate() <= SlowSearch {
		return false
	}
	p.Costly = c
	return true
}

// Within is params with fewer restarts, so that its search takes about SlowSearch on this device (at least
// one restart, or one per class for the schemes that spread them over the classes).
func (c *Costly) Within(params clue.Params) clue.Params {
	fit := *c
	for fit.Link.Params = params; fit.Estimate() > SlowSearch && fit.Link.Params.N > 1; {
		fit.Link.Params.N = max(1, int(float64(fit.Link.Params.N)*SlowSearch/fit.Estimate()*0.95))
	}
	return fit.Link.Params
}

// ProbeSteps are the timing searches' step counts, in pairs: the difference of a pair's times is the cost of
// the extra steps without the cost of setting a search up. The estimate is refined as the searches come in: a
// worker's first searches run before the browser has optimised its code, and a busy machine slows some, so a
// measurement errs long, never short (measured here: the first pair gave up to 7× the cost per step the search
// then had).
var ProbeSteps = [8]int{2, 10, 2, 10, 2, 10, 2, 10}

// AskCostly holds link's question (when the link is costly against the models' defaults, on x0) and starts
// measuring on the first ready worker; it reports whether the link is costly. With no worker ready or no input
// yet, it asks without an estimate.
func (p *Pool) AskCostly(link sharelink.State, defaults clue.Params, x0 []float32) ([]Command, bool) {
	if !link.Costly(defaults) {
		return nil, false
	}
	ks := p.ReadyWorkers()
	c := &Costly{Link: link, Ratio: link.WorkRatio(defaults), Workers: len(ks)}
	if link.Params.LambdaD > 0 {
		c.Workers = 1
	}
	p.Costly = c
	if len(ks) == 0 || x0 == nil {
		return nil, true
	}
	// A batch like the one each worker would step through (results come from the same lock-step search),
	// at most 48 restarts: a few tenths of a second of this device's time for each pair.
	per := (link.Params.Restarts() + c.Workers - 1) / c.Workers
	params := link.Params
	params.N = min(per, 48)
	if params.Scheme == clue.S2 || params.Scheme == clue.S5 {
		params.N = max(clue.Classes, params.N/clue.Classes*clue.Classes)
	}
	params.RelTol, params.AbsTol = 0, 0 // every restart takes every step
	c.Batch = params.Restarts()
	restarts := make([]int, c.Batch)
	for i := range restarts {
		restarts[i] = i
	}
	if p.probes == nil {
		p.probes = map[int]bool{}
	}
	var cmds []Command
	for i, steps := range ProbeSteps {
		q := params
		q.MaxSteps, q.MinSteps = steps, min(params.MinSteps, steps)
		c.Probes[i] = p.NewID()
		p.probes[c.Probes[i]] = true
		cmds = append(cmds, Post{ks[0], searchworker.Request{Type: "explain", ID: c.Probes[i], X0: x0, Params: &q, Restarts: restarts}})
	}
	return cmds, true
}

// IsProbe says whether id is a timing search still under way (its messages are the question's alone).
func (p *Pool) IsProbe(id int) bool { return p.probes[id] }

// ProbesLeft counts the timing searches still under way.
func (p *Pool) ProbesLeft() int { return len(p.probes) }

// probeSaid takes a timing search's message.
func (p *Pool) probeSaid(r searchworker.Response) {
	if r.Type != "done" && r.Type != "error" {
		return
	}
	delete(p.probes, r.ID)
	c := p.Costly
	if c == nil {
		return
	}
	if r.Type != "done" || r.Error != "" {
		c.Failed = true
		return
	}
	for i, id := range c.Probes {
		if id == r.ID {
			c.Seconds[i] = r.Seconds
		}
	}
	c.PerStep = PerStep(c.Seconds, c.Batch)
}

// ResolveCostly forgets the question (the user chose, or another input came), stopping the timing searches
// still under way. Their late messages are still recognised (IsProbe) until each says done.
func (p *Pool) ResolveCostly() []Command {
	if p.Costly == nil {
		return nil
	}
	var cmds []Command
	for _, id := range p.Costly.Probes {
		if p.probes[id] {
			for _, k := range p.ReadyWorkers() {
				cmds = append(cmds, Post{k, searchworker.Request{Type: "cancel", ID: id}})
			}
		}
	}
	p.Costly = nil
	return cmds
}

// PerStep is the seconds a restart-step takes from the timing searches' times so far (0 until both lengths
// have one): the difference of the quickest search of each length, per extra restart-step. Noise (a collection,
// the machine's other work, code optimised between two searches) only adds time, so the quickest of each length
// is the nearest to its true time. But a difference magnifies noise: every short search slowed and one long
// one not gave a quarter of the true cost (CI, with other tests running: 2.2 s estimated, 20.8 s taken). The
// quickest long search's time per step includes its setup, so it errs long, by the setup's share (measured
// here: the difference is 0.73–0.77 of it, and the search then took 0.7–0.8 of the difference's estimate): when
// the difference is under DifferenceTrust of it, or not positive, that is the estimate.
func PerStep(seconds [len(ProbeSteps)]float64, batch int) float64 {
	short, long := 0.0, 0.0
	for i := 0; i < len(seconds); i += 2 {
		if s := seconds[i]; s > 0 && (short == 0 || s < short) {
			short = s
		}
		if s := seconds[i+1]; s > 0 && (long == 0 || s < long) {
			long = s
		}
	}
	if short == 0 || long == 0 {
		return 0
	}
	whole := long / float64(ProbeSteps[1]*batch)
	if d := (long - short) / float64((ProbeSteps[1]-ProbeSteps[0])*batch); d >= DifferenceTrust*whole {
		return d
	}
	return whole
}

// DifferenceTrust is how small a fraction of the long search's time per step the difference estimate may be
// before noise is the likelier reason than the search's setup (PerStep).
const DifferenceTrust = 0.5

// Estimate is the link's search time on this device, in seconds (0 until measured): each worker steps through
// its share of every search, one after the other.
func (c *Costly) Estimate() float64 {
	if c.PerStep == 0 {
		return 0
	}
	params, w := c.Link.Params, float64(max(c.Workers, 1))
	steps := math.Ceil(float64(params.Restarts())/w) * float64(params.MaxSteps)
	for i := range c.Link.Sweep.Radii {
		steps += math.Ceil(float64(c.Link.Sweep.AtRadius(params, i).Restarts())/w) * float64(params.MaxSteps)
	}
	return steps * c.PerStep
}
