// The answer panel (3 · What would make it sure): Explain with δ and n beside it, the other parameters folded
// under Search settings, the status, and the answer (panel_answer_cards.go).

package app

import (
	"fmt"
	"maps"
	"math"
	"strconv"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/app/core"
	"github.com/deltaclue/deltaclue/engine/clue/sharelink"
	"github.com/deltaclue/deltaclue/internal/plural"
)

// answerView is what the answer panel shows.
type answerView struct {
	Values, Errors map[string]string // the form, as typed (copies: the page's change in place)
	WorkersIn      string
	WorkersOK      bool // WorkersIn is a pool size
	Cores          int
	Open           bool // the settings fold
	CanRun         bool
	CanCancel      bool
	Total, Done    int // the run's restarts, and those come
	Status         string
	RunNote        string
	CostlyAfter    *costlyAfter // the form's parameters are costly
	Overview       overviewView
}

func (e *Explainer) answerView() answerView {
	return answerView{Values: maps.Clone(e.settings.Values), Errors: maps.Clone(e.settings.Errors), WorkersIn: e.settings.WorkersIn,
		WorkersOK: workersOK(e.settings), Cores: app.Window().Get("navigator").Get("hardwareConcurrency").Int(), Open: e.settings.Open,
		CanRun:    e.in.X0 != nil && e.settings.OK && e.work.ReadyCount() > 0 && (!e.running() || e.work.Run.Preview) && !e.sweep.run.running(),
		CanCancel: e.work.Run.Phase == core.Running, Total: e.work.Run.Total, Done: len(e.work.Run.Results), Status: e.status(),
		RunNote: e.work.Run.Note, CostlyAfter: e.costlyAfter(), Overview: e.overviewView()}
}

// workersOK says whether the pool size typed is one.
func workersOK(s core.Settings) bool {
	_, ok := s.Workers()
	return ok
}

// answerPanel is 3 · What would make it sure: Explain with δ and n at hand, the other parameters folded under
// Search settings, the run's progress, and the answer itself (the sentence and one card per mode).
type answerPanel struct {
	app.Compo
	Page *Explainer
	View answerView
}

func (p *answerPanel) Render() app.UI {
	defer rendered("answer", time.Now())
	v, e := p.View, p.Page
	control := func(f core.Field) app.UI {
		id := "p-" + f.Key
		var input app.UI
		switch f.Kind {
		case "select":
			input = app.Select().ID(id).OnChange(e.setField(f.Key)).Body(app.Range(f.Options).Slice(func(i int) app.UI {
				return app.Option().Value(f.Options[i]).Text(f.Options[i]).Selected(v.Values[f.Key] == f.Options[i])
			}))
		case "checkbox":
			input = app.Input().ID(id).Type("checkbox").Checked(v.Values[f.Key] == "true").OnChange(e.setCheckbox(f.Key))
		default:
			in := app.Input().ID(id).Type("text").Attr("inputmode", "decimal").Value(v.Values[f.Key]).
				Aria("invalid", v.Errors[f.Key] != "").Aria("describedby", id+"-help").OnChange(e.setField(f.Key))
			if core.AtHand[f.Key] {
				in = in.Title(f.Help) // its help is read out, but not shown: the bar stays one line
			}
			input = in
		}
		class := "field"
		if core.AtHand[f.Key] {
			class = "field at-hand"
		}
		return app.Div().Class(class).Body(
			app.Label().For(id).Text(f.Label), input,
			app.Small().ID(id+"-help").Class("help").Text(f.Help),
			app.If(v.Errors[f.Key] != "", func() app.UI {
				return app.Small().ID(id + "-error").Class("error").Role("alert").Text(v.Errors[f.Key])
			}),
		)
	}
	var hand, basic, advanced []app.UI
	for _, f := range core.Fields {
		switch {
		case f.Kind == "hidden": // set elsewhere on the page (the locks, beside a row's fields)
		case f.Rows && !served().IsTable():
		case core.AtHand[f.Key]:
			hand = append(hand, control(f))
		case f.Advanced:
			advanced = append(advanced, control(f))
		default:
			basic = append(basic, control(f))
		}
	}
	workersErr := ""
	if !v.WorkersOK {
		workersErr = fmt.Sprintf("a whole number from 1 to %d", core.MaxPool)
	}
	advanced = append(advanced, app.Div().Class("field").Body(
		app.Label().For("p-workers").Text("workers"),
		app.Input().ID("p-workers").Type("text").Attr("inputmode", "numeric").Value(v.WorkersIn).OnChange(e.setWorkers),
		app.Small().Class("help").Text(fmt.Sprintf("Web Workers sharing the search (this device has %s; default up to %d).", plural.Count(v.Cores, "core"), MaxWorkers)),
		app.If(workersErr != "", func() app.UI { return app.Small().Class("error").Text(workersErr) }),
	))
	return app.Section().ID("answer").Class("card answer").TabIndex(-1).Body(
		app.H2().Text("3 · What would make it sure"),
		app.Div().Class("run-bar").Body(
			app.Button().ID("run").Class("primary").Text("Explain").Disabled(!v.CanRun).OnClick(func(ctx app.Context, _ app.Event) { e.run(ctx) }),
			app.Button().ID("cancel").Text("Cancel").Disabled(!v.CanCancel).OnClick(func(ctx app.Context, _ app.Event) { e.cancel(ctx) }),
			app.Div().Class("at-hand-fields").Body(hand...),
		),
		// A refused folded setting opens the fold.
		app.Details().ID("settings").Class("settings").Open(v.Open).
			On("toggle", func(ctx app.Context, _ app.Event) {
				// A refused setting inside keeps the fold open. The toggle event comes a task after the change: a
				// reader's close may arrive after the error that opens it, when go-app already renders it open
				// and so does not touch the element again.
				if open := ctx.JSSrc().Get("open").Bool(); e.settings.Toggled(open) != open {
					ctx.JSSrc().Set("open", true)
				}
			}).Body(
			app.Summary().Text("Search settings"),
			app.P().Class("hint").Text("The loss, where the searches start, when an explanation counts, and the seed. "+
				"The share link carries them all."),
			app.Div().Class("form").Body(basic...),
			app.Details().Class("advanced").Body(append([]app.UI{app.Summary().Text("Advanced options")}, advanced...)...),
		),
		app.Progress().ID("progress").Max(max(v.Total, 1)).Value(v.Done).Aria("label", "explanations found"),
		app.P().ID("status").Class("status").Aria("live", "polite").Text(v.Status),
		p.renderOverview(v.Overview),
		// After the answer, so that a note does not push it down; in one element that is always there, as go-app
		// matches children by position.
		app.Div().Class("run-notes").Body(
			app.If(v.CostlyAfter != nil, func() app.UI { return p.renderCostlyAfter(*v.CostlyAfter) }),
			app.If(v.RunNote != "", func() app.UI { return app.P().ID("restart-note").Class("hint").Text(v.RunNote) }),
		),
	)
}

// status says what is happening, in words.
func (e *Explainer) status() string {
	workers := plural.Of(e.work.ReadyCount(), len(e.poolWorkers()), "worker") + " ready"
	switch e.work.Run.Phase {
	case core.Running:
		s := plural.Of(len(e.work.Run.Results), e.work.Run.Total, "explanation")
		if e.work.Run.Preview {
			s = "Preview: " + s
		}
		if len(e.work.Run.Results) > 0 {
			s += fmt.Sprintf(" (first after %s)", fmtDuration(e.work.Run.FirstResult))
		}
		return s + " …"
	case core.Cancelling:
		return "Cancelling …"
	case core.Cancelled:
		return fmt.Sprintf("Cancelled after %s with %s.", fmtDuration(e.set.elapsed), plural.Of(len(e.work.Run.Results), e.work.Run.Total, "explanation"))
	case core.Failed:
		return "The search failed: " + endSentence(e.work.Run.Err)
	case core.Done:
		if e.work.Run.Preview {
			return fmt.Sprintf("Preview: %s, %s after the pen lifted, on %s. Explain runs the full set of %d.",
				plural.Count(len(e.work.Run.Results), "explanation"), fmtDuration(e.set.previewTime), plural.Count(e.work.Run.Workers, "worker"), e.settings.Params.Restarts())
		}
		return fmt.Sprintf("Done: %s in %s (first after %s) on %s.", plural.Count(len(e.work.Run.Results), "explanation"), fmtDuration(e.set.elapsed),
			fmtDuration(e.work.Run.FirstResult), plural.Count(e.work.Run.Workers, "worker"))
	}
	if e.workers.pool == nil && e.workers.err == "" {
		return "Starting the search workers …"
	}
	if !e.settings.OK {
		return "Fix the highlighted parameter to search. " + workers + "."
	}
	return workers + "."
}

func (e *Explainer) poolWorkers() []*poolWorker {
	if e.workers.pool == nil {
		return nil
	}
	return e.workers.pool.workers
}

func (e *Explainer) setField(key string) app.EventHandler {
	return func(ctx app.Context, ev app.Event) {
		e.paramsChanged(key, ctx.JSSrc().Get("value").String())
	}
}

func (e *Explainer) setCheckbox(key string) app.EventHandler {
	return func(ctx app.Context, ev app.Event) {
		e.paramsChanged(key, strconv.FormatBool(ctx.JSSrc().Get("checked").Bool()))
	}
}

// paramsChanged takes a value typed into a field.
func (e *Explainer) paramsChanged(key, value string) {
	e.settings.Set(key, value)
	if e.settings.FoldedError() {
		// Opened on the element itself too: go-app sets the attribute only when its own rendered value changes,
		// and a reader's close of the fold may not have reached it yet.
		if el := app.Window().GetElementByID("settings"); !el.IsNull() && !el.IsUndefined() {
			el.Set("open", true)
		}
	}
	e.updateLink()
	e.publish()
}

func (e *Explainer) setWorkers(ctx app.Context, ev app.Event) {
	e.settings.WorkersIn = ctx.JSSrc().Get("value").String()
	if n, ok := e.settings.Workers(); ok && e.workers.pool != nil && n != len(e.workers.pool.workers) &&
		e.work.Run.Phase != core.Running && e.work.Run.Phase != core.Cancelling {
		e.startPool(ctx, n)
	}
}

// costlyAfter is what the answer panel says of costly parameters in the form.
type costlyAfter struct{ Text string }

// costlyAfter says, while no search runs, that the form's parameters are costly (nil if they are not).
func (e *Explainer) costlyAfter() *costlyAfter {
	ratio := sharelink.State{Params: e.settings.Params}.WorkRatio(e.settings.Defaults())
	if e.work.Costly != nil || e.running() || !e.settings.OK || ratio <= CostlyRatio {
		return nil
	}
	note := ""
	if costlyPreview(e.settings.Params) && e.in.Live {
		note = " A live preview does not start one on its own."
	}
	return &costlyAfter{Text: fmt.Sprintf("These parameters ask for a search about %s× larger than the default.%s ",
		strconv.FormatFloat(math.Round(ratio), 'f', -1, 64), note)}
}

// renderCostlyAfter says that the form's parameters are costly, and offers the defaults.
func (p *answerPanel) renderCostlyAfter(c costlyAfter) app.UI {
	return app.P().ID("costly-after").Class("hint").Body(
		app.Text(c.Text),
		app.Button().ID("use-defaults").Text("Use the defaults").OnClick(func(ctx app.Context, _ app.Event) { p.Page.resetParams() }),
	)
}
