// The global view (#global): GLAM-CLUE's groups of uncertain test digits, what one learned move does to each,
// and their members, any of which opens as the input.

package app

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/app/webjs"
	"github.com/deltaclue/deltaclue/engine/clue/figures"
	"github.com/deltaclue/deltaclue/internal/plural"
)

// globalState is the global view: its data once fetched, the label filter and the group chosen.
type globalState struct {
	loading bool
	err     string
	data    *GlobalData
	from    int // show groups read as this label; -1 for all (set when the data arrives)
	chosen  int // the chosen group's index in data.Groups; -1 for none (likewise)
	parseMs float64
	after   frameQueue // moves the focus once the page shows what was chosen
}

// globalView is what the global view shows.
type globalView struct {
	Loading bool
	Err     string
	Data    *GlobalData
	From    int
	Chosen  int
}

func (e *Explainer) globalView() globalView {
	g := e.models.global
	return globalView{Loading: g.loading, Err: g.err, Data: g.data, From: g.from, Chosen: g.chosen}
}

// globalPanel is the global view.
type globalPanel struct {
	app.Compo
	Page *Explainer
	View globalView
}

func (p *globalPanel) Render() app.UI {
	defer rendered("global", time.Now())
	v, e, m := p.View, p.Page, served()
	return app.Section().ID("global").Class("card results global").Body(
		app.H2().Text("6 · Across the data: learned moves for groups of uncertain "+m.nouns()),
		app.P().Class("hint").Text("GLAM-CLUE, δ-CLUE's sequel, learns one step in the autoencoder's latent space for each group of uncertain "+
			"training "+m.nouns()+" read as a and explained as b; moving "+m.aNoun()+" along it, k times over, is an answer in one function call. "+
			"Here is how well each step does on the uncertain "+m.nouns()+" of the test split."),
		app.If(v.Data == nil, func() app.UI {
			return app.Div().Class("row").Body(
				app.Button().ID("global-load").Text("Show the groups").Disabled(v.Loading).OnClick(e.loadGlobal),
				app.If(v.Loading, func() app.UI { return app.Span().Class("status").Aria("live", "polite").Text("Loading the groups…") }),
			)
		}),
		app.If(v.Err != "", func() app.UI { return app.P().ID("global-error").Class("error").Role("alert").Text(v.Err) }),
		app.If(v.Data != nil, func() app.UI { return p.renderData(v.Data) }),
	)
}

func (p *globalPanel) renderData(g *GlobalData) app.UI {
	v, e, m := p.View, p.Page, served()
	shown := 0
	for _, gr := range g.Groups {
		if v.From < 0 || gr.From == v.From {
			shown++
		}
	}
	options := []app.UI{app.Option().Value("-1").Selected(v.From < 0).Text("any label")}
	for a := range m.classes {
		options = append(options, app.Option().Value(strconv.Itoa(a)).Selected(v.From == a).Text(m.class(a)))
	}
	return app.Div().Body(
		app.P().ID("global-summary").Class("sentence").Text(globalSummary(g, m.nouns())),
		app.Div().Class("row").Body(
			app.Label().For("global-from").Text(m.nouns()+" the model reads as"),
			app.Select().ID("global-from").OnChange(func(ctx app.Context, _ app.Event) {
				a, err := strconv.Atoi(ctx.JSSrc().Get("value").String())
				if err != nil || a < -1 || a >= len(m.classes) {
					a = -1
				}
				e.models.global.from = a
				if c := e.models.global.chosen; c >= 0 && a >= 0 && e.models.global.data.Groups[c].From != a {
					e.models.global.chosen = -1
				}
			}).Body(options...),
			app.Span().ID("global-count").Class("status").Aria("live", "polite").Text(plural.Count(shown, "group")+" shown"),
		),
		app.P().Class("hint").Text("Each strip: one member as it is (under it, the label the model reads), then moved 0.5, 1, 1.5 and 2 times "+
			"its group's step; under each, the label the model reads, with ✓ and a solid frame where it is sure. Choose a group to see its members."),
		// The members and the groups are HTML made by globalHTML, and their buttons' clicks are handled here, by
		// the button's data: built from go-app's elements they added 120 KB to app.wasm.
		app.Div().ID("global-list").OnClick(func(ctx app.Context, ev app.Event) {
			b := ev.Get("target").Call("closest", "button")
			if !b.Truthy() {
				return
			}
			if n, err := strconv.Atoi(b.Get("dataset").Get("group").String()); err == nil {
				e.chooseGroup(ctx, n)
			} else if n, err := strconv.Atoi(b.Get("dataset").Get("digit").String()); err == nil {
				e.openMember(ctx, n)
			}
		}).Body(app.Raw(globalHTML(g, v.From, v.Chosen, e.settings.Params.HThreshold))),
	)
}

// globalHTML is the chosen group's members (if any) and the list of groups read as from (every group when -1),
// each a button carrying its group's index or its member's test index.
func globalHTML(g *GlobalData, from, chosen int, hThreshold float64) string {
	var b strings.Builder
	esc, m := figures.Escape, served()
	test, name := "test "+m.noun(), m.class
	b.WriteString("<div>")
	if chosen >= 0 && chosen < len(g.Groups) {
		gr := g.Groups[chosen]
		fmt.Fprintf(&b, `<div id="global-members" class="members"><h3 id="global-members-title" tabindex="-1">Group %s → %s: %s the model reads as %s, whose δ-CLUE reached %s</h3>`,
			esc(name(gr.From)), esc(name(gr.To)), plural.Count(gr.Members, test), esc(name(gr.From)), esc(name(gr.To)))
		fmt.Fprintf(&b, `<p class="hint">Choose one to open it as your %s: its δ-CLUE runs, and its amortised answers show at once.</p><div class="thumbs">`, m.noun())
		for _, c := range gr.Cases {
			d := g.digit(c.Digit)
			if d == nil {
				continue
			}
			answer, short := fmt.Sprintf("sure at k = %g, d %.1f", c.K, c.Distance), fmt.Sprintf("✓ k %g", c.K)
			if !c.Sure {
				answer, short = "not sure by k = 2", "✗"
			}
			fmt.Fprintf(&b, `<button id="member-%d" class="thumb member" data-digit="%d" title="%s"><img src="%s" alt="%s %d"><span>#%d · %s</span></button>`,
				d.Index, d.Index, esc(fmt.Sprintf("%s %d: true label %s, read as %s with H = %.2f; the step: %s", test, d.Index, name(d.Label), name(d.Read), d.H, answer)),
				d.Thumb, test, d.Index, d.Index, short)
		}
		b.WriteString("</div></div>")
	}
	b.WriteString(`<div id="global-groups" class="groups" role="list">`)
	for i, gr := range g.Groups {
		if from >= 0 && gr.From != from {
			continue
		}
		stats := groupStats(gr)
		fmt.Fprintf(&b, `<div role="listitem"><button id="group-%d-%d" class="group" data-group="%d" aria-pressed="%t" aria-label="%s">`,
			gr.From, gr.To, i, i == chosen, esc(fmt.Sprintf("group %s → %s: %s; %s %d moved along the step", name(gr.From), name(gr.To), stats, test, gr.Strip.Digit)))
		fmt.Fprintf(&b, `<span class="group-name">%s → %s</span><span class="group-stats">%s</span><span class="group-strip">`, esc(name(gr.From)), esc(name(gr.To)), esc(stats))
		if d := g.digit(gr.Strip.Digit); d != nil {
			fmt.Fprintf(&b, `<figure><img src="%s" alt="%s %d"><figcaption>%s</figcaption></figure>`, d.Thumb, test, d.Index, esc(name(d.Read)))
		}
		for f := range gr.Strip.Frames {
			sure := gr.Strip.Labels[f] == gr.To && float64(gr.Strip.H[f]) < hThreshold
			class, mark := "", ""
			if sure {
				class, mark = ` class="sure"`, " ✓"
			}
			fmt.Fprintf(&b, `<figure%s><img src="%s" alt="moved %g·t: read as %s, H %.2f"><figcaption>%g·t: %s%s</figcaption></figure>`,
				class, gr.Strip.Frames[f], g.Ks[f], esc(name(gr.Strip.Labels[f])), gr.Strip.H[f], g.Ks[f], esc(name(gr.Strip.Labels[f])), mark)
		}
		b.WriteString("</span></button></div>")
	}
	b.WriteString("</div></div>")
	return b.String()
}

// groupStats is a group's line: its members, the share the step makes sure and the mean d of those answers,
// then δ-CLUE's mean d on the same members. A group of which none is made sure has no d (its mean_distance is
// 0 for want of answers), nor a group with no members a search's: the line says so instead of "d 0.0".
func groupStats(gr GlobalGroup) string {
	sure, search := "none made sure", " (no search)"
	if gr.Coverage > 0 {
		sure = fmt.Sprintf("%.0f %% sure · d %.1f", 100*gr.Coverage, gr.MeanDistance)
	}
	if gr.MeanSearchDistance > 0 {
		search = fmt.Sprintf(" (search %.1f)", gr.MeanSearchDistance)
		if gr.Coverage <= 0 {
			search = fmt.Sprintf(" (search d %.1f)", gr.MeanSearchDistance) // "d" said once, here
		}
	}
	return plural.Count(gr.Members, "test "+served().noun()) + " · " + sure + search
}

// loadGlobal fetches web/global.json (about 170 KB compressed: only when asked, so a first visit does not pay
// for it).
func (e *Explainer) loadGlobal(ctx app.Context, _ app.Event) {
	if e.models.global.loading || e.models.global.data != nil {
		return
	}
	e.models.global.loading, e.models.global.err = true, ""
	webjs.FetchText(e.page, ctx.ResolveStaticResource(served().file("global.json")), func(ctx app.Context, text string, err error) {
		e.models.global.loading = false
		if err != nil {
			e.models.global.err = "The groups could not be loaded: " + err.Error()
			return
		}
		start := time.Now()
		g, err := ParseGlobal([]byte(text))
		e.models.global.parseMs = float64(time.Since(start).Microseconds()) / 1000
		if err != nil {
			e.models.global.err = err.Error()
			return
		}
		e.models.global.data, e.models.global.from, e.models.global.chosen = g, -1, -1
		e.publish()
		e.focusOn(ctx, "global-from", nil)
	})
}

// chooseGroup shows a group's members and moves the keyboard's focus to them.
func (e *Explainer) chooseGroup(ctx app.Context, i int) {
	if e.models.global.data == nil || i < 0 || i >= len(e.models.global.data.Groups) {
		return
	}
	e.models.global.chosen = i
	e.focusOn(ctx, "global-members-title", func(el app.Value) {
		el.Get("parentElement").Call("scrollIntoView", map[string]any{"block": "nearest"})
	})
}

// openMember makes a member (a test index) the input and brings the page back to it.
func (e *Explainer) openMember(ctx app.Context, index int) {
	if e.models.global.data == nil {
		return
	}
	d := e.models.global.data.digit(index)
	if d == nil {
		return
	}
	px, err := base64.StdEncoding.DecodeString(d.Pixels)
	m := served()
	if err != nil || len(px) != m.Size() {
		e.models.global.err = fmt.Sprintf("test %s %d has not %d values", m.noun(), d.Index, m.Size())
		return
	}
	e.setInput(ctx, px, fmt.Sprintf("test %s %d (true label %s)", m.noun(), d.Index, m.class(d.Label)))
	// Back to the top, the keyboard's focus on the answer (a button may be disabled while the preview runs): the
	// digit, the model's view and the answer are there.
	e.focusOn(ctx, "answer", func(app.Value) {
		app.Window().GetElementByID("digit").Call("scrollIntoView", map[string]any{"block": "start"})
	})
}

// focusOn moves the keyboard's focus to the element with an id once the page shows it (it looks again for a
// few frames: a render may land after the frame asked for).
func (e *Explainer) focusOn(_ app.Context, id string, then func(el app.Value)) {
	ctx, tries := e.page, 0
	var look func()
	look = func() {
		el := app.Window().GetElementByID(id)
		if !el.Truthy() {
			if tries++; tries < 10 {
				e.models.global.after.request(ctx, look)
			}
			return
		}
		el.Call("focus", map[string]any{"preventScroll": true})
		if then != nil {
			then(el)
		}
	}
	e.models.global.after.request(ctx, look)
}

// globalSummary is the global view's sentence: over the uncertain test items, or the share of them the import's
// budget searched, which it says.
func globalSummary(g *GlobalData, nouns string) string {
	over := fmt.Sprintf("On the %d uncertain test %s", g.Uncertain, nouns)
	if g.Searched > 0 && g.Searched < g.Uncertain {
		over = fmt.Sprintf("On %d of the %d uncertain test %s (the import's time budget searched no more)", g.Searched, g.Uncertain, nouns)
	}
	return fmt.Sprintf("%s. %s, the learned step makes the model sure of the group's label in %.1f\u00a0%% of %d cases, "+
		"at a mean distance d of %.1f (δ-CLUE's searches: %.1f), in %.1f ms instead of %.0f ms.",
		plural.Count(len(g.Groups), "group"), over, 100*g.Coverage, g.Cases, g.MeanDistance, g.MeanSearchDistance, g.AnswerMs, g.SearchMs)
}
