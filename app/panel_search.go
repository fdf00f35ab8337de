// The answer panel (3 · What would make it sure): Explain with δ and n beside it, the other parameters folded
// under Search settings, the status, and the answer (panel_summary.go).

package app

import (
	"fmt"
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/app/core"
	"github.com/deltaclue/deltaclue/internal/plural"
)

// renderAnswer is the answer panel: Explain with δ and n at hand, the other parameters folded under Search
// settings, the run's progress, and the answer itself (the sentence and one card per mode, renderOverview).
func (e *Explainer) renderAnswer() app.UI {
	control := func(f core.Field) app.UI {
		id := "p-" + f.Key
		var input app.UI
		switch f.Kind {
		case "select":
			input = app.Select().ID(id).OnChange(e.setField(f.Key)).Body(app.Range(f.Options).Slice(func(i int) app.UI {
				return app.Option().Value(f.Options[i]).Text(f.Options[i]).Selected(e.settings.Values[f.Key] == f.Options[i])
			}))
		case "checkbox":
			input = app.Input().ID(id).Type("checkbox").Checked(e.settings.Values[f.Key] == "true").OnChange(e.setCheckbox(f.Key))
		default:
			in := app.Input().ID(id).Type("text").Attr("inputmode", "decimal").Value(e.settings.Values[f.Key]).
				Aria("invalid", e.settings.Errors[f.Key] != "").Aria("describedby", id+"-help").OnChange(e.setField(f.Key))
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
			app.If(e.settings.Errors[f.Key] != "", func() app.UI {
				return app.Small().ID(id + "-error").Class("error").Role("alert").Text(e.settings.Errors[f.Key])
			}),
		)
	}
	var hand, basic, advanced []app.UI
	for _, f := range core.Fields {
		switch {
		case core.AtHand[f.Key]:
			hand = append(hand, control(f))
		case f.Advanced:
			advanced = append(advanced, control(f))
		default:
			basic = append(basic, control(f))
		}
	}
	workersErr := ""
	if _, ok := e.settings.Workers(); !ok {
		workersErr = fmt.Sprintf("a whole number from 1 to %d", core.MaxPool)
	}
	advanced = append(advanced, app.Div().Class("field").Body(
		app.Label().For("p-workers").Text("workers"),
		app.Input().ID("p-workers").Type("text").Attr("inputmode", "numeric").Value(e.settings.WorkersIn).OnChange(e.setWorkers),
		app.Small().Class("help").Text(fmt.Sprintf("Web Workers sharing the search (this device has %s; default up to %d).", plural.Count(app.Window().Get("navigator").Get("hardwareConcurrency").Int(), "core"), MaxWorkers)),
		app.If(workersErr != "", func() app.UI { return app.Small().Class("error").Text(workersErr) }),
	))
	canRun := e.in.X0 != nil && e.settings.OK && e.work.ReadyCount() > 0 && (!e.running() || e.work.Run.Preview) && !e.sweep.run.running()
	return app.Section().ID("answer").Class("card answer").Body(
		app.H2().Text("3 · What would make it sure"),
		app.Div().Class("run-bar").Body(
			app.Button().ID("run").Class("primary").Text("Explain").Disabled(!canRun).OnClick(func(ctx app.Context, _ app.Event) { e.run(ctx) }),
			app.Button().ID("cancel").Text("Cancel").Disabled(e.work.Run.Phase != core.Running).OnClick(func(ctx app.Context, _ app.Event) { e.cancel(ctx) }),
			app.Div().Class("at-hand-fields").Body(hand...),
		),
		// A refused folded setting opens the fold.
		app.Details().ID("settings").Class("settings").Open(e.settings.Open).
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
		app.Progress().ID("progress").Max(max(e.work.Run.Total, 1)).Value(len(e.work.Run.Results)).Aria("label", "explanations found"),
		app.P().ID("status").Class("status").Aria("live", "polite").Text(e.status()),
		e.renderOverview(),
		// After the answer, so that a note does not push it down; in one element that is always there, as go-app
		// matches children by position.
		app.Div().Class("run-notes").Body(
			e.renderCostlyParams(),
			app.If(e.work.Run.Note != "", func() app.UI { return app.P().ID("restart-note").Class("hint").Text(e.work.Run.Note) }),
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
	if e.pool == nil && e.poolErr == "" {
		return "Starting the search workers …"
	}
	if !e.settings.OK {
		return "Fix the highlighted parameter to search. " + workers + "."
	}
	return workers + "."
}

func (e *Explainer) poolWorkers() []*poolWorker {
	if e.pool == nil {
		return nil
	}
	return e.pool.workers
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
	if n, ok := e.settings.Workers(); ok && e.pool != nil && n != len(e.pool.workers) &&
		e.work.Run.Phase != core.Running && e.work.Run.Phase != core.Cancelling {
		e.startPool(ctx, n)
	}
}
