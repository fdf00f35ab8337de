// The amortised answers as the page shows them: in #amortised-slot the moment a worker's inspection brings them
// (HTML the page owns, amortisedHTML), a stroke's render held back until then, and go-app's render after the
// browser has painted them.

package app

import (
	"strconv"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/app/core"
	"github.com/deltaclue/deltaclue/app/inputkind"
	"github.com/deltaclue/deltaclue/wasm/worker/searchworker"
)

// amortisedView is the input's amortised answers as the page shows them: what it publishes of the latest ones,
// what #amortised-slot shows, whether a stroke's render waits for them, and the render that follows them.
type amortisedView struct {
	latest amortisedState   // the latest inspection's amortised answers (window.deltaclue.amortised)
	slot   amortisedSlot    // what #amortised-slot shows (paint)
	held   bool             // a stroke's render waits for its amortised answers (answerFirst)
	after  renderAfterPaint // the render that follows them
}

// amortisedState is what the page publishes of the latest amortised answers: how long the worker took to make
// them (Ms), how many there were, and when the page heard them and drew them (ms since navigation).
type amortisedState struct {
	Ms           float64
	Count        int
	Heard, Shown float64
}

// amortisedSlot is what #amortised-slot shows: the answers of which inspection, in which element.
type amortisedSlot struct {
	el    app.Value
	shown *searchworker.Inspection // nil: empty
	stale bool                     // shown belongs to an earlier input, whose successor's answers are on their way
}

// paint makes #amortised-slot show the input's amortised answers while the search has no mode card to show
// (searchCards: it has), and nothing otherwise. It is called the moment a worker's answers come, and after every
// frame that renders the answer panel (which may have made the slot anew, or brought the mode cards); it does
// nothing when the slot shows what it should. While a new input's answers are on their way, the last ones stay, dimmed, so
// that each stroke does not blank them for the few ms until the next. It says whether it showed new answers.
func (a *amortisedView) paint(in *core.Input, searchCards bool) bool {
	el := app.Window().GetElementByID("amortised-slot")
	if el.IsNull() || el.IsUndefined() {
		a.slot = amortisedSlot{}
		return false
	}
	same := a.slot.el != nil && el.Equal(a.slot.el) // the slot painted last, not one go-app made anew
	var want *searchworker.Inspection
	stale := false
	switch ins := in.Inspect; {
	case in.X0 == nil || searchCards: // no input, or the search's cards in the answers' place
	case ins != nil:
		if len(ins.Amortised) > 0 {
			want = ins
		}
	case in.InspectAt >= 0 && same:
		want, stale = a.slot.shown, true // the next answers are on their way: keep these till then
	}
	if same && a.slot.shown == want {
		if a.slot.stale != stale {
			markStale(el, stale)
			a.slot.stale = stale
		}
		return false
	}
	markStale(el, stale)
	a.slot = amortisedSlot{el: el, shown: want, stale: stale}
	if want == nil {
		el.Set("innerHTML", "")
		return false
	}
	el.Set("innerHTML", amortisedHTML(want.Amortised))
	k := served().input()
	for _, x := range want.Amortised {
		id := strconv.Itoa(x.To)
		k.Fill("amortised-img-"+id, x.Image, inputkind.Card)
		k.FillDiff("amortised-diff-"+id, in.X0, x.Image, inputkind.Card)
	}
	a.latest.Shown = now()
	return true
}

// markStale dims the slot (and tells a screen reader it is being updated) while new answers are on their way.
func markStale(el app.Value, stale bool) {
	el.Get("classList").Call("toggle", "stale", stale)
	if stale {
		el.Call("setAttribute", "aria-busy", "true")
	} else {
		el.Call("removeAttribute", "aria-busy")
	}
}

// holdRender is how long answerFirst holds a stroke's render back at most.
const holdRender = 50 * time.Millisecond

// hold holds back the page's render until the answers have come (onWorker renders once they are painted), or
// holdRender has passed.
func (a *amortisedView) hold(ctx app.Context) {
	ctx.PreventUpdate()
	a.held = true
	ctx.After(holdRender, func(ctx app.Context) {
		if !a.held { // the answers came, and with them the render
			ctx.PreventUpdate()
		}
		a.held = false
	})
}
