// The summary panel: the different ways the digit could be read, one card per mode, and a sentence.

package app

import (
	"fmt"
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/app/core"
	"github.com/deltaclue/deltaclue/internal/plural"
)

// cardScale magnifies a card's images (28·4 = 112 px).
const cardScale = 4

// renderOverview shows the set at a glance: what the model reads, the modes it would be sure of nearby, each
// by its representative (the mode's lowest-cost member) with what it changes in the input.
func (e *Explainer) renderOverview() app.UI {
	final := e.work.Run.Phase == core.Done || e.work.Run.Phase == core.Cancelled || e.work.Run.Phase == core.Failed
	status := "so far"
	if final {
		status = "final"
	}
	return app.Div().ID("overview").Class("overview").Body(
		app.P().ID("sentence").Class("sentence").Aria("live", "polite").Text(e.set.sentence),
		app.If(e.set.sentence == "" && e.work.Run.Phase == "", func() app.UI {
			msg := "Draw a digit, or pick one of the test digits the model is least sure of: the answer comes here."
			if e.in.X0 != nil {
				msg = "Explain searches for the digits nearby that the model is sure of."
			}
			return app.P().ID("answer-hint").Class("hint").Text(msg)
		}),
		app.If(final && e.set.summary != nil && e.set.summary.Accepted == 0, func() app.UI {
			return app.P().ID("none-note").Class("banner").Text("No explanation was accepted, so there is no summary to show: " +
				"the grid below has every restart, greyed. Try a larger δ or a higher H threshold (Search settings).")
		}),
		app.If(len(e.set.cards) > 0, func() app.UI {
			return app.Div().Body(
				app.Div().ID("cards").Class("cards").Role("list").Body(
					app.Range(e.set.cards).Slice(func(i int) app.UI {
						c := e.set.cards[i]
						id := strconv.Itoa(c.Representative)
						return app.Button().ID("card-"+id).Class("mode-card").Role("listitem").
							Aria("pressed", e.sel.Restart == c.Representative).DataSet("restart", c.Representative).
							Aria("label", c.Sentence(e.work.Run.Total)).
							OnClick(func(ctx app.Context, _ app.Event) { e.selectRestart(ctx, c.Representative) }, app.EventScope(c.Representative)).Body(
							app.Div().Class("card-label").Body(app.Span().Class("digit").Text(strconv.Itoa(c.Label)), app.Span().Class("form").Text(c.FormText())),
							app.Div().Class("card-images").Body(
								app.Canvas().ID("card-img-"+id).Width(28*cardScale).Height(28*cardScale).Aria("label", "the explanation"),
								app.Canvas().ID("card-diff-"+id).Width(28*cardScale).Height(28*cardScale).Aria("label", "what it changes"),
							),
							app.Div().Class("card-p").Text(fmt.Sprintf("p(y) %.2f", c.P)),
							app.Div().Class("card-numbers").Text(fmt.Sprintf("H %.2f · d %.1f", c.HTotal, c.Distance)),
							app.Div().Class("card-count").Text(plural.Of(c.Count, e.work.Run.Total, "restart")),
						)
					}),
				),
				// Under the cards, not above: on a phone the first card must stay in the first screen.
				app.P().Class("hint").Text(fmt.Sprintf("One card per mode (%s), ordered by the label's p(y) ∝ 1 / (lowest cost of the label)², "+
					"highest first. Each shows the mode's cheapest explanation, with its H and d, and what it changes in your digit "+
					"(ink added in blue, removed in orange). Select one to see how it was found, in the whole set below.", status)),
			)
		}),
	)
}

// drawCards draws each card's representative and its difference from the input.
func (e *Explainer) drawCards() {
	for _, c := range e.set.cards {
		for i := range e.work.Run.Results {
			if x := e.work.Run.Results[i]; x.Restart == c.Representative && x.Image != nil {
				id := strconv.Itoa(c.Representative)
				drawDigit("card-img-"+id, x.Image, cardScale)
				drawDiff("card-diff-"+id, e.in.X0, x.Image, cardScale)
			}
		}
	}
}

// copies maps each result that others duplicate to how many restarts it stands for (itself and its
// duplicates), for the collapsed grid's "×k".
func (e *Explainer) copies() map[int]int {
	out := map[int]int{}
	if e.sel.ShowAll {
		return out
	}
	for _, x := range e.work.Run.Results {
		if x.DuplicateOf >= 0 {
			if out[x.DuplicateOf] == 0 {
				out[x.DuplicateOf] = 1
			}
			out[x.DuplicateOf]++
		}
	}
	return out
}
