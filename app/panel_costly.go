// A costly link asks first: a shared link whose search is more than CostlyRatio times the default's work opens
// with its digit and parameters shown and a choice, Run it or Use the defaults; nothing runs before the choice.

package app

import (
	"fmt"
	"math"
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/app/searchworker"
	"github.com/deltaclue/deltaclue/app/sharelink"
	"github.com/deltaclue/deltaclue/engine/clue"
)

// CostlyRatio is how many times the default's work a link may ask for before the page asks first.
const CostlyRatio = sharelink.CostlyRatio

// costlyLink is a link waiting for the user's choice, and the measurement of this device's speed that gives
// its estimate.
type costlyLink struct {
	link    sharelink.State
	ratio   float64
	probes  [len(ProbeSteps)]int     // request IDs of the timing searches
	seconds [len(ProbeSteps)]float64 // their times in the worker, 0 until done
	batch   int                      // restarts in each timing search
	perStep float64                  // seconds per restart-step on one worker; 0 until measured
	failed  bool                     // a timing search failed: no estimate
	workers int                      // how many workers would share the link's search
}

// ProbeSteps are the timing searches' step counts, in pairs: the difference of a pair's times is the cost of
// the extra steps without the cost of setting a search up. The quickest pair counts, and the estimate is
// refined as the pairs come in: a worker's first searches run before the browser has optimised its code, and
// a busy machine slows some, so a measurement errs long, never short (measured here: the first pair gave up
// to 7× the cost per step the search then had).
var ProbeSteps = [8]int{2, 10, 2, 10, 2, 10, 2, 10}

// askCostly shows the choice for a costly link and starts measuring, and says whether it did.
func (e *Explainer) askCostly(link sharelink.State) bool {
	ratio := link.WorkRatio()
	if !link.Costly() || e.pool == nil {
		return false
	}
	c := &costlyLink{link: link, ratio: ratio, workers: len(e.work.ReadyWorkers())}
	if link.Params.LambdaD > 0 {
		c.workers = 1
	}
	e.costly = c
	ks := e.work.ReadyWorkers()
	if len(ks) == 0 || e.x0 == nil {
		return true
	}
	// A batch like the one each worker would step through (results come from the same lock-step search),
	// at most 48 restarts: a few tenths of a second of this device's time for each pair.
	per := (link.Params.Restarts() + c.workers - 1) / c.workers
	p := link.Params
	p.N = min(per, 48)
	if p.Scheme == clue.S2 || p.Scheme == clue.S5 {
		p.N = max(clue.Classes, p.N/clue.Classes*clue.Classes)
	}
	p.RelTol, p.AbsTol = 0, 0 // every restart takes every step
	c.batch = p.Restarts()
	restarts := make([]int, c.batch)
	for i := range restarts {
		restarts[i] = i
	}
	for i, steps := range ProbeSteps {
		q := p
		q.MaxSteps, q.MinSteps = steps, min(p.MinSteps, steps)
		c.probes[i] = e.work.NewID()
		e.probeIDs[c.probes[i]] = true
		e.pool.post(ks[0], searchworker.Request{Type: "explain", ID: c.probes[i], X0: e.x0, Params: &q, Restarts: restarts})
	}
	return true
}

// onProbe takes a worker's message about a timing search, and says whether it was one.
func (e *Explainer) onProbe(r searchworker.Response) bool {
	if !e.probeIDs[r.ID] {
		return false
	}
	if r.Type != "done" && r.Type != "error" {
		return true
	}
	delete(e.probeIDs, r.ID)
	c := e.costly
	if c == nil {
		return true
	}
	if r.Type != "done" || r.Error != "" {
		c.failed = true
		e.publish()
		return true
	}
	for i, id := range c.probes {
		if id == r.ID {
			c.seconds[i] = r.Seconds
		}
	}
	c.perStep = perStep(c.seconds, c.batch)
	e.publish()
	return true
}

// perStep is the seconds a restart-step takes from the timing searches' times so far (0 until both lengths
// have one): the difference of the quickest search of each length, per extra restart-step. Noise (a collection,
// the machine's other work, code optimised between two searches) only adds time, so the quickest of each length
// is the nearest to its true time; the quickest pair's difference, as before, could pair a slowed short search
// with a quick long one and come out several times too short. If noise still leaves no positive difference,
// the quickest long search's time per step.
func perStep(seconds [len(ProbeSteps)]float64, batch int) float64 {
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
	if d := (long - short) / float64((ProbeSteps[1]-ProbeSteps[0])*batch); d > 0 {
		return d
	}
	return long / float64(ProbeSteps[1]*batch)
}

// estimate is the link's search time on this device, in seconds (0 until measured): each worker steps
// through its share of every search, one after the other.
func (c *costlyLink) estimate() float64 {
	if c.perStep == 0 {
		return 0
	}
	p, w := c.link.Params, float64(max(c.workers, 1))
	steps := math.Ceil(float64(p.Restarts())/w) * float64(p.MaxSteps)
	for i := range c.link.Sweep.Radii {
		steps += math.Ceil(float64(c.link.Sweep.AtRadius(p, i).Restarts())/w) * float64(p.MaxSteps)
	}
	return steps * c.perStep
}

// resolveCostly forgets the question, stopping a timing search still under way.
func (e *Explainer) resolveCostly() {
	if e.costly == nil {
		return
	}
	if e.pool != nil {
		for _, id := range e.costly.probes {
			if e.probeIDs[id] {
				for _, k := range e.work.ReadyWorkers() {
					e.pool.post(k, searchworker.Request{Type: "cancel", ID: id})
				}
			}
		}
	}
	e.costly = nil
}

// runCostly runs the link as it is.
func (e *Explainer) runCostly(ctx app.Context, _ app.Event) {
	c := e.costly
	if c == nil {
		return
	}
	e.resolveCostly()
	link := c.link
	e.restore = &link
	e.run(ctx)
}

// useDefaults runs the link's digit with the default parameters (and no sweep or selection).
func (e *Explainer) useDefaults(ctx app.Context, _ app.Event) {
	e.resolveCostly()
	e.resetParams()
	e.run(ctx)
}

// resetParams puts the default parameters and sweep back into the form.
func (e *Explainer) resetParams() {
	e.form = newForm(clue.Defaults())
	e.params, e.paramsOK = e.form.params()
	l := clue.DefaultLadder()
	e.sweepRadiiIn, e.sweepNIn, e.sweepInLink, e.restore = clue.FormatRadii(l.Radii), strconv.Itoa(l.N), false, nil
	e.updateLink()
	e.publish()
}

// timeText says a duration in seconds the way a person would: "40 s", "12 min", "2.5 h".
func timeText(s float64) string {
	switch {
	case s < 90:
		return fmt.Sprintf("%.0f s", math.Max(1, s))
	case s < 90*60:
		return fmt.Sprintf("%.0f min", s/60)
	}
	return fmt.Sprintf("%.1f h", s/3600)
}

// paramsText names a search's size: "n = 1000 restarts, δ = 20, at most 10000 steps each".
func paramsText(p clue.Params, sweep clue.Ladder) string {
	s := fmt.Sprintf("n = %d restarts, δ = %g, at most %d steps each", p.Restarts(), p.Delta, p.MaxSteps)
	if len(sweep.Radii) > 0 {
		s += fmt.Sprintf(", then a δ sweep of %d radii with %d restarts each", len(sweep.Radii), sweep.N)
	}
	return s
}

// costlyText is the question's sentence.
func (c *costlyLink) text() string {
	est := "the page is measuring how long it would take on this device"
	if c.failed {
		est = "and the page could not measure how long it would take on this device"
	} else if s := c.estimate(); s > 0 {
		est = "about " + timeText(s) + " on this device"
	}
	return fmt.Sprintf("This link asks for a search about %s× larger than the default, %s.", strconv.FormatFloat(math.Round(c.ratio), 'f', -1, 64), est)
}

func (e *Explainer) renderCostly() app.UI {
	c := e.costly
	d := clue.Defaults()
	return app.Div().ID("costly").Class("banner").Role("alertdialog").Aria("labelledby", "costly-text").Body(
		app.P().ID("costly-text").Text(c.text()),
		app.P().Class("hint").Text(fmt.Sprintf("It asks for %s (the default: %s). Each restart may stop earlier, when it converges. "+
			"Nothing runs until you choose.", paramsText(c.link.Params, c.link.Sweep), paramsText(d, clue.Ladder{}))),
		app.Div().Class("row").Body(
			app.Button().ID("costly-run").Text("Run it").OnClick(e.runCostly),
			app.Button().ID("costly-defaults").Class("primary").Text("Use the defaults").OnClick(e.useDefaults),
		),
	)
}

// renderCostlyParams says, while no search runs, that the form's parameters are costly, and offers the
// defaults back (after cancelling a costly link's run, say).
func (e *Explainer) renderCostlyParams() app.UI {
	ratio := sharelink.State{Params: e.params}.WorkRatio()
	return app.If(e.costly == nil && !e.running() && e.paramsOK && ratio > CostlyRatio, func() app.UI {
		note := ""
		if costlyPreview(e.params) && e.live {
			note = " A live preview does not start one on its own."
		}
		return app.P().ID("costly-after").Class("hint").Body(
			app.Text(fmt.Sprintf("These parameters ask for a search about %s× larger than the default.%s ",
				strconv.FormatFloat(math.Round(ratio), 'f', -1, 64), note)),
			app.Button().ID("use-defaults").Text("Use the defaults").OnClick(func(ctx app.Context, _ app.Event) { e.resetParams() }),
		)
	})
}

// costlyPreview says whether a live preview with these parameters would itself be a costly search: the page
// does not start one of those on its own.
func costlyPreview(p clue.Params) bool {
	p.N = PreviewRestarts
	return sharelink.State{Params: p}.Costly()
}

// costlyState is the question, for window.deltaclue.
func (e *Explainer) costlyState() any {
	if e.costly == nil {
		return nil
	}
	return map[string]any{"ratio": e.costly.ratio, "probesLeft": len(e.probeIDs), "estimateSeconds": e.costly.estimate(), "perStepSeconds": e.costly.perStep, "text": e.costly.text()}
}
