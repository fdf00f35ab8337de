// The answer panel's answer: the different ways the input could be read, one card per mode, and a sentence.

package app

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/app/core"
	"github.com/deltaclue/deltaclue/app/inputkind"
	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/figures"
	"github.com/deltaclue/deltaclue/internal/plural"
	"github.com/deltaclue/deltaclue/wasm/worker/searchworker"
)

// overviewView is what the answer shows of the set.
type overviewView struct {
	Sentence     string
	Hint         string // what to do, before any run
	NoneAccepted bool   // the finished set has no accepted explanation
	Final        bool   // the run is over
	Cards        []clue.ModeCard
	Selected     int
	Total        int
}

func (e *Explainer) overviewView() overviewView {
	phase := e.work.Run.Phase
	final := phase == core.Done || phase == core.Cancelled || phase == core.Failed
	v := overviewView{Sentence: e.set.sentence, Final: final, Cards: e.set.cards, Selected: e.sel.Restart, Total: e.work.Run.Total,
		NoneAccepted: final && e.set.summary != nil && e.set.summary.Accepted == 0}
	if e.set.sentence == "" && phase == core.Idle {
		m := served()
		v.Hint = m.input().Phrase(inputkind.AnswerHint)
		if e.in.X0 != nil {
			v.Hint = "Explain searches for the " + m.nouns() + " nearby that the model is sure of."
		}
	}
	return v
}

// renderOverview shows the set at a glance: what the model reads, the modes it would be sure of nearby, each
// by its representative (the mode's lowest-cost member) with what it changes in the input.
func (p *answerPanel) renderOverview(v overviewView) app.UI {
	e := p.Page
	status := "so far"
	if v.Final {
		status = "final"
	}
	return app.Div().ID("overview").Class("overview").Body(
		app.Div().Body(
			app.P().ID("sentence").Class("sentence").Aria("live", "polite").Text(v.Sentence),
			app.If(v.Hint != "", func() app.UI { return app.P().ID("answer-hint").Class("hint").Text(v.Hint) }),
			app.If(v.NoneAccepted, func() app.UI {
				return app.P().ID("none-note").Class("banner").Text("No explanation was accepted, so there is no summary to show: " +
					"the grid below has every restart, greyed. Try a larger δ or a higher H threshold (Search settings).")
			}),
		),
		// The amortised answers' place: always the overview's second child, so that go-app, which matches children
		// by position, keeps this element and leaves what amortisedView.paint puts in it alone.
		app.Div().ID("amortised-slot"),
		app.If(len(v.Cards) > 0, func() app.UI {
			return app.Div().Body(
				app.Div().ID("cards").Class("cards").Role("list").Body(
					app.Range(v.Cards).Slice(func(i int) app.UI {
						c := v.Cards[i]
						id := strconv.Itoa(c.Representative)
						return app.Button().ID("card-"+id).Class("mode-card").Role("listitem").
							Aria("pressed", v.Selected == c.Representative).DataSet("restart", c.Representative).
							Aria("label", served().words().CardSentence(c, v.Total)).
							OnClick(func(ctx app.Context, _ app.Event) { e.selectRestart(ctx, c.Representative) }, app.EventScope(c.Representative)).Body(
							app.Div().Class("card-label").Body(app.Span().Class("digit").Text(served().class(c.Label)), app.Span().Class("form").Text(c.FormText())),
							app.Div().Class("card-images").Body(
								served().input().Placeholder("card-img-"+id, inputkind.Card, "the explanation"),
								served().input().Placeholder("card-diff-"+id, inputkind.Card, "what it changes"),
							),
							app.Div().Class("card-p").Text(fmt.Sprintf("p(y) %.2f", c.P)),
							app.Div().Class("card-numbers").Text(fmt.Sprintf("%s · d %.1f", uncertaintyText(c.Mean, c.HTotal), c.Distance)),
							app.If(c.Mean != nil, func() app.UI { return explanationBand("card-band-"+id, c.Mean, c.HTotal, e.work.Run.Params.HThreshold) }),
							app.Div().Class("card-count").Text(plural.Of(c.Count, v.Total, "restart")),
						)
					}),
				),
				// Under the cards, not above: on a phone the first card must stay in the first screen.
				app.P().Class("hint").Text(fmt.Sprintf("One card per mode (%s), ordered by the label's p(y) ∝ 1 / (lowest cost of the label)², "+
					"highest first. Each shows the mode's cheapest explanation, with its "+cardFigures()+" and d, and what it changes in your "+served().noun()+" "+
					"("+served().input().Phrase(inputkind.ChangeLegend)+"). Select one to see how it was found, in the whole set below.", status)),
			)
		}),
	)
}

// cardFigures is what a card says of its explanation besides d: H, or a regression's prediction and σ.
func cardFigures() string {
	if served().regression != nil {
		return "prediction ± σ"
	}
	return "H"
}

// amortisedHTML shows GLAM-CLUE's answers as cards marked amortised (a dashed frame and the word), in the cards'
// place until the search's cards replace them: each is the input moved along the translation learned for its
// group, so it comes at once, with the label, H and d, and the scale k it took. It is HTML, not go-app's elements,
// so that the page can show it the moment the answers come (amortisedView.paint), not at go-app's next frame.
func amortisedHTML(as []searchworker.Amortised) string {
	var b strings.Builder
	esc := figures.Escape
	b.WriteString(`<div id="amortised"><div class="cards" role="list">`)
	for _, a := range as {
		id, m := strconv.Itoa(a.To), served()
		form := fmt.Sprintf("amortised, k = %g", a.K)
		numbers := fmt.Sprintf("H %.2f · d %.1f", a.HTotal, a.Distance)
		if !a.Sure {
			form = amortisedMiss(a)
		}
		fmt.Fprintf(&b, `<div id="amortised-%s" class="mode-card amortised-card" role="listitem" data-to="%s" aria-label="%s">`+
			`<div class="card-label"><span class="digit">%s</span><span class="form">%s</span></div><div class="card-images">`+
			`%s%s</div>`+
			`<div class="card-numbers">%s</div></div>`,
			id, id, esc(fmt.Sprintf("%s, %s, %s", m.class(a.To), form, numbers)), esc(m.class(a.To)), esc(form),
			m.input().PlaceholderHTML("amortised-img-"+id, inputkind.Card, "the amortised answer"),
			m.input().PlaceholderHTML("amortised-diff-"+id, inputkind.Card, "what it changes"), esc(numbers))
	}
	b.WriteString(`</div><p class="hint">Amortised answers, shown at once: your input moved along the step learned for uncertain inputs ` +
		`read like it (GLAM-CLUE), towards each label the model finds plausible. The search's own results replace them.</p></div>`)
	return b.String()
}

// repaintAmortised is amortisedView.paint after a frame, publishing the page's state if it showed new answers.
func (e *Explainer) repaintAmortised(app.Context) {
	if e.models.amortised.paint(&e.in, len(e.set.cards) > 0) {
		e.publish()
	}
}

// OnMount and OnUpdate bring #amortised-slot up to date after the frame that renders the panel: the mode cards
// came (the answers give way to them), or went (a new search of the same input: the answers are back).
func (p *answerPanel) OnMount(ctx app.Context)  { ctx.Defer(p.Page.repaintAmortised) }
func (p *answerPanel) OnUpdate(ctx app.Context) { ctx.Defer(p.Page.repaintAmortised) }

// amortisedMiss says how an amortised answer fell short: the model reads another label on it, or the target
// but without being sure.
func amortisedMiss(a searchworker.Amortised) string {
	if a.Label != a.To {
		return "amortised: reads " + served().class(a.Label)
	}
	return "amortised: not sure"
}

// drawCards draws each card's representative and its difference from the input, for at most the frame's
// paint budget (a final summary can bring thirty new cards: 35 ms in one task): it says whether all are drawn.
// cardsOnPage says whether every card of the set is on the page, to be drawn.
func (e *Explainer) cardsOnPage() bool {
	return len(e.set.cards) == 0 || app.Window().Get("document").Call("querySelectorAll", "#cards .mode-card").Length() == len(e.set.cards)
}

func (e *Explainer) drawCards() bool {
	start, budget, k := time.Now(), frame.left(paintBudget), served().input()
	for _, c := range e.set.cards {
		for i := range e.work.Run.Results {
			if x := &e.work.Run.Results[i]; x.Restart == c.Representative && x.Image != nil {
				id := strconv.Itoa(c.Representative)
				if k.Fill("card-img-"+id, x.Image, inputkind.Card) && time.Since(start) > budget {
					return false // the frame is spent: the rest (drawn ones are skipped) in the next
				}
				if k.FillDiff("card-diff-"+id, e.in.X0, x.Image, inputkind.Card) && time.Since(start) > budget {
					return false
				}
			}
		}
	}
	return true
}
