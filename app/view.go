package app

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/app/core"
	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/figures"
	"github.com/deltaclue/deltaclue/internal/plural"
)

// PaperURL is the δ-CLUE paper.
const PaperURL = "https://arxiv.org/abs/2104.06323"

// Render lays the page out as a demo: on top, in one screen, the input, the model's view and the answer (Explain
// with δ and n, the other settings folded); below, the whole set (figures, grid, measures) and the sweep.
//
// Each part is a component of its own (panels.go) given its view of the page's state: go-app renders a
// component again only when its view changed, so that results streaming in rebuild the answer and the set,
// not the pad, the gallery or the model's view.
func (e *Explainer) Render() app.UI {
	if e.embed.on { // in a host page's frame: the pad, the model's view and the answer, and a way out
		return app.Div().Class("page").Body(
			&embedHeader{},
			&noticesPanel{Page: e, View: e.noticesView()},
			app.Div().Class("stage").Body(
				&inputPanel{Page: e, View: e.inputView()},
				&modelPanel{View: e.modelView()},
				&answerPanel{Page: e, View: e.answerView()},
			),
		)
	}
	return app.Div().Class("page").Body(
		&headerPanel{Offline: e.models.offline},
		&noticesPanel{Page: e, View: e.noticesView()},
		app.Div().Class("stage").Body(
			&inputPanel{Page: e, View: e.inputView()},
			&modelPanel{View: e.modelView()},
			&answerPanel{Page: e, View: e.answerView()},
		),
		&resultsPanel{Page: e, View: e.resultsView()},
		&sweepPanel{Page: e, View: e.sweepView()},
		// The global view's groups (global.json), for models whose site serves them.
		app.If(served().hasGlobal(), func() app.UI { return &globalPanel{Page: e, View: e.globalView()} }),
	)
}

// headerPanel is the page's title and what it shows, with whether it works offline.
type headerPanel struct {
	app.Compo
	Offline offlineUse
}

func (p *headerPanel) Render() app.UI {
	defer rendered("header", time.Now())
	m := served()
	header := app.Header()
	if len(servedAll) > 1 {
		header = header.Class("with-models")
	}
	return header.Body(
		app.H1().Text("deltaclue"),
		app.If(len(servedAll) > 1, modelsChoice),
		app.P().Class("lede").Body(app.Text("Why is the model unsure about this "+m.noun()+"? "),
			app.Span().Class("lede-more").Text("δ-CLUE shows a set of nearby "+m.nouns()+" the model is sure about.")),
		// A pop-over: opening it moves nothing on the page.
		app.Details().Class("about").Body(
			// A phone with the models' choice in the title's row says it short.
			app.Summary().Body(app.Span().Class("about-full").Text("What am I looking at?"), app.Span().Class("about-short").Text("About")),
			app.Raw(aboutHTML(m, p.Offline)),
		),
	)
}

// aboutTemplate is what "What am I looking at?" says, the models' words filled in by aboutHTML: HTML made from
// one string, where go-app's elements and the concatenations cost app.wasm 8 KB.
const aboutTemplate = `<div class="about-body"><p>A Bayesian neural network (CLASSIFIER) reads A_NOUN (TITLE) and says how sure it is: its predictive entropy H, split into aleatoric (noise in the data) and epistemic (the model's own ignorance) parts.</p>` +
	`<p>When it is unsure, δ-CLUE explains why by searching the latent space of a variational autoencoder, within a ball of radius δ around the NOUN's code, for NOUNS the network is confident about. Each of n searches starts elsewhere in the ball; together they show the different ways the NOUN could be read, how far each is from what was drawn (d, the L1 distance in pixels), and how the labels share out.</p>` +
	`<p>Everything runs in your browser, in a pool of Web Workers. Method: Ley, Bhatt &amp; Weller, <a href="PAPER" target="_blank" rel="noopener">δ-CLUE: Diverse Sets of Explanations for Uncertainty Estimates</a> (2021).</p>OFFLINE</div>`

// aboutHTML is aboutTemplate for the models m, with whether the page is kept for offline use.
func aboutHTML(m *pageModel, o offlineUse) string {
	esc := figures.Escape
	offline := ""
	if o.Known {
		offline = `<p id="offline-note" title="` + esc(o.Reason) + `">` + esc(o.Sentence()) + `</p>`
	}
	return strings.NewReplacer("CLASSIFIER", esc(m.classifier()), "A_NOUN", esc(m.aNoun()), "TITLE", esc(m.title),
		"NOUNS", esc(m.nouns()), "NOUN", esc(m.noun()), "PAPER", esc(PaperURL), "OFFLINE", offline).Replace(aboutTemplate)
}

// embedHeader is an embedded page's title line: the name, and the link that opens the same state in the full
// explainer (its address is read when it is followed: the page keeps its state in the address).
type embedHeader struct{ app.Compo }

func (*embedHeader) Render() app.UI {
	defer rendered("header", time.Now())
	return app.Header().Class("embed-header").Body(
		app.H1().Text("deltaclue"),
		app.A().ID("open-full").Href(".").Target("_blank").Rel("noopener").Text("Open in the full explainer ↗").
			On("pointerdown", refreshFullLink).On("focus", refreshFullLink).On("click", refreshFullLink),
	)
}

func refreshFullLink(ctx app.Context, _ app.Event) {
	ctx.PreventUpdate()
	ctx.JSSrc().Set("href", fullExplainer())
}

// noticesView is what the notices show.
type noticesView struct {
	Stale       bool
	LinkErr     string
	LinkNote    string
	Costly      *costlyView
	WorkersNote string
	PoolErr     string
	ModelsNote  string // the address asked for models the site does not serve
}

func (e *Explainer) noticesView() noticesView {
	return noticesView{Stale: e.models.stale, LinkErr: e.links.Err, LinkNote: e.links.Note, Costly: e.costlyView(),
		WorkersNote: e.settings.WorkersNote, PoolErr: e.workers.err, ModelsNote: servedNote}
}

// noticesPanel is the banners above the stage: a new version, a link's fault or note, a costly link's question,
// the pool's trouble.
type noticesPanel struct {
	app.Compo
	Page *Explainer
	View noticesView
}

func (p *noticesPanel) Render() app.UI {
	defer rendered("notices", time.Now())
	v := p.View
	// The notices in one element that is always there: go-app matches children by position, so a notice
	// appearing among the page's children would make it rebuild the columns after it (and blank the pad).
	return app.Div().ID("notices").Body(
		app.If(v.Stale, func() app.UI {
			return app.Div().Class("banner").Body(app.Text("A new version of deltaclue is available and the workers run it. "),
				app.Button().Text("Reload").OnClick(func(ctx app.Context, _ app.Event) { ctx.Reload() }))
		}),
		app.If(v.ModelsNote != "", func() app.UI { return app.Div().ID("models-note").Class("banner error").Text(v.ModelsNote) }),
		app.If(v.LinkErr != "", func() app.UI { return app.Div().ID("link-error").Class("banner error").Text(v.LinkErr) }),
		app.If(v.LinkNote != "", func() app.UI { return app.P().ID("link-note").Class("hint").Text(v.LinkNote) }),
		app.If(v.Costly != nil, func() app.UI { return p.renderCostly(*v.Costly) }),
		app.If(v.WorkersNote != "", func() app.UI { return app.Div().ID("workers-note").Class("banner").Text(v.WorkersNote) }),
		app.If(v.PoolErr != "", func() app.UI { return app.Div().ID("pool-error").Class("banner error").Text(sentence(v.PoolErr)) }),
	)
}

// OnPreRender sets what OnMount sets first, for the HTML that go-app pre-renders: the page's first paint, shown
// while app.wasm loads, is then the page as it mounts (the pad shown, the default parameters in their fields).
func (e *Explainer) OnPreRender(app.Context) {
	e.in, e.sel = newInput(), core.NewSelection()
	l := clue.DefaultLadder()
	e.sweep.radiiIn, e.sweep.nIn = clue.FormatRadii(l.Radii), strconv.Itoa(l.N)
	e.settings.ShowDefaults(served().defaults())
}

// bars is a bar chart of the classes' probabilities, one bar per class named under it, as HTML.
func bars(id string, vals []float32, prefix string) app.UI {
	return app.Div().ID(id).Class("bars").Role("img").Aria("label", barsLabel(vals, prefix)).Body(
		app.Range(vals).Slice(func(k int) app.UI {
			return app.Div().Class("bar").Body(
				app.Div().Class("fill").Style("height", fmt.Sprintf("%.1f%%", 100*vals[k])).Title(fmt.Sprintf("%s(%s) = %.3f", prefix, served().class(k), vals[k])),
				app.Span().Text(clipRunes(served().class(k), 4)),
			)
		}),
	)
}

// barsHTML writes what bars shows, as HTML (for a block rendered raw).
func barsHTML(h *htmlText, id string, vals []float32, prefix string) {
	h.open("div", "id", id, "class", "bars", "role", "img", "aria-label", barsLabel(vals, prefix))
	for k, v := range vals {
		h.open("div", "class", "bar")
		h.open("div", "class", "fill", "style", fmt.Sprintf("height: %.1f%%", 100*v), "title", fmt.Sprintf("%s(%s) = %.3f", prefix, served().class(k), v))
		h.close("div")
		h.elem("span", clipRunes(served().class(k), 4))
		h.close("div")
	}
	h.close("div")
}

func barsLabel(vals []float32, prefix string) string {
	var parts []string
	for k, v := range vals {
		if v >= 0.01 {
			parts = append(parts, fmt.Sprintf("%s(%s) = %.2f", prefix, served().class(k), v))
		}
	}
	return strings.Join(parts, ", ")
}

func row(k, v string) app.UI { return app.Tr().Body(app.Th().Text(k), app.Td().Text(v)) }

// costlyView is what the costly link's question shows (or a slow search's: Other names its second choice).
type costlyView struct{ Text, Asks, Other string }

// costlyView is the question about a costly link, if one is asked.
func (e *Explainer) costlyView() *costlyView {
	c := e.work.Costly
	if c == nil {
		return nil
	}
	if c.Slow {
		fit := c.Within(c.Link.Params)
		return &costlyView{Text: costlyText(c), Asks: fmt.Sprintf("It asks for %s. Each restart may stop earlier, when it converges. "+
			"Nothing runs until you choose.", paramsText(c.Link.Params, clue.Ladder{})),
			Other: fmt.Sprintf("Run %s (about %s)", plural.Count(fit.Restarts(), "restart"), timeText(min(c.Estimate()*float64(fit.N)/float64(c.Link.Params.N), core.SlowSearch)))}
	}
	return &costlyView{Text: costlyText(c), Asks: fmt.Sprintf("It asks for %s (the default: %s). Each restart may stop earlier, when it converges. "+
		"Nothing runs until you choose.", paramsText(c.Link.Params, c.Link.Sweep), paramsText(e.settings.Defaults(), clue.Ladder{}))}
}

func (p *noticesPanel) renderCostly(v costlyView) app.UI {
	return app.Div().ID("costly").Class("banner").Role("alertdialog").Aria("labelledby", "costly-text").Body(
		app.P().ID("costly-text").Text(v.Text),
		app.P().Class("hint").Text(v.Asks),
		app.Div().Class("row").Body(
			app.Button().ID("costly-run").Text("Run it").OnClick(p.Page.runCostly),
			app.Button().ID("costly-defaults").Class("primary").Text(cmp.Or(v.Other, "Use the defaults")).OnClick(p.Page.useDefaults),
		),
	)
}
