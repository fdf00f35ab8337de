// A costly link asks first: a shared link whose search is more than CostlyRatio times the default's work opens
// with its digit and parameters shown and a choice, Run it or Use the defaults; nothing runs before the choice.

package app

import (
	"fmt"
	"math"
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/app/core"
	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/sharelink"
)

// CostlyRatio is how many times the default's work a link may ask for before the page asks first.
const CostlyRatio = sharelink.CostlyRatio

// askCostly shows the choice for a costly link and starts measuring (core.Pool.AskCostly), and says whether it
// did.
func (e *Explainer) askCostly(ctx app.Context, link sharelink.State) bool {
	if e.workers.pool == nil {
		return false
	}
	cmds, costly := e.work.AskCostly(link, e.settings.Defaults(), e.in.X0)
	e.exec(ctx, cmds)
	return costly
}

// resolveCostly forgets the question, stopping a timing search still under way.
func (e *Explainer) resolveCostly() {
	e.postAll(e.work.ResolveCostly())
}

// runCostly runs the link as it is (or the slow search as it is).
func (e *Explainer) runCostly(_ app.Context, _ app.Event) {
	// The question's buttons go with the question: what the run dispatches later (the grid's painting, the
	// figures' frames) must not be dispatched on their context, which go-app drops once they are gone.
	ctx := e.page
	c := e.work.Costly
	if c == nil {
		return
	}
	e.resolveCostly()
	if c.Slow {
		e.start(ctx, c.Link.Params, false)
		return
	}
	link := c.Link
	e.links.Restore = &link
	e.runAsked(ctx)
}

// useDefaults runs the link's digit with the default parameters (and no sweep or selection); for a slow search,
// the same with as many restarts as fit in SlowSearch on this device.
func (e *Explainer) useDefaults(_ app.Context, _ app.Event) {
	ctx := e.page // as runCostly's
	if c := e.work.Costly; c != nil && c.Slow {
		p := c.Within(c.Link.Params)
		e.resolveCostly()
		e.settings.Show(p)
		e.start(ctx, p, false)
		return
	}
	e.resolveCostly()
	e.resetParams()
	e.run(ctx)
}

// resetParams puts the models' default parameters and the default sweep back into the form.
func (e *Explainer) resetParams() {
	e.settings.ShowDefaults(served().defaults())
	l := clue.DefaultLadder()
	e.sweep.radiiIn, e.sweep.nIn, e.sweep.inLink, e.links.Restore = clue.FormatRadii(l.Radii), strconv.Itoa(l.N), false, nil
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
func costlyText(c *core.Costly) string {
	if c.Slow {
		return "This search would take about " + timeText(c.Estimate()) + " on this device."
	}
	est := "the page is measuring how long it would take on this device"
	if c.Failed {
		est = "and the page could not measure how long it would take on this device"
	} else if s := c.Estimate(); s > 0 {
		est = "about " + timeText(s) + " on this device"
	}
	return fmt.Sprintf("This link asks for a search about %s× larger than the default, %s.", strconv.FormatFloat(math.Round(c.Ratio), 'f', -1, 64), est)
}

// renderCostlyParams says, while no search runs, that the form's parameters are costly, and offers the
// defaults back (after cancelling a costly link's run, say).

// costlyPreview says whether a live preview with these parameters would itself be a costly search: the page
// does not start one of those on its own.
func costlyPreview(p clue.Params) bool {
	p.N = PreviewRestarts
	return sharelink.State{Params: p}.Costly(served().defaults())
}

// costlyState is the question, for window.deltaclue.
func (e *Explainer) costlyState() any {
	c := e.work.Costly
	if c == nil {
		return nil
	}
	return map[string]any{"ratio": c.Ratio, "probesLeft": e.work.ProbesLeft(), "estimateSeconds": c.Estimate(), "perStepSeconds": c.PerStep,
		"probeSeconds": fmt.Sprint(c.Seconds), "text": costlyText(c)}
}
