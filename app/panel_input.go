// The input panel (1 · Your digit, or the models' noun): the ways its kind of input is entered (for images:
// the drawing pad, the gallery of uncertain test inputs and the upload, package imagekind), and the page as
// the kind's host: what it does with an input entered.

package app

import (
	"fmt"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/app/core"
	"github.com/deltaclue/deltaclue/app/inputkind"
)

// inputView is what the input panel shows.
type inputView struct {
	Tab   string
	Entry any // the kind's entry, beyond the input (inputkind.Kind.EntryState)
	Live  bool
	Err   string
	Note  string
}

func (e *Explainer) inputView() inputView {
	return inputView{Tab: e.in.Tab, Entry: served().input().EntryState(), Live: e.in.Live, Err: e.in.Err, Note: e.in.Note}
}

// inputPanel is 1 · Your digit (the models' noun): the tabs of the input's kind and their bodies.
type inputPanel struct {
	app.Compo
	Page *Explainer
	View inputView
}

func (p *inputPanel) Render() app.UI {
	defer rendered("input", time.Now())
	v, e, m := p.View, p.Page, served()
	k := m.input()
	var tabs []app.UI
	for _, t := range k.Tabs() {
		tabs = append(tabs, app.Button().Class("tab").ID("tab-"+t.ID).Role("tab").Aria("selected", v.Tab == t.ID).Text(t.Label).
			OnClick(func(ctx app.Context, _ app.Event) {
				e.in.Tab = t.ID
				k.Open(ctx, t.ID)
			}))
	}
	body := []app.UI{
		app.H2().Text("1 · Your " + m.noun()),
		app.Div().Class("tabs").Role("tablist").Body(tabs...),
	}
	body = append(body, k.Entry(e, v.Tab)...)
	return app.Section().ID("digit").Class("card digit").Body(append(body,
		app.If(v.Err != "", func() app.UI { return app.P().ID("input-error").Class("error").Text(v.Err) }),
		app.If(v.Note != "", func() app.UI { return app.P().ID("input-note").Class("hint").Text(v.Note) }),
	)...)
}

// ---- the page as the input kind's host (inputkind.Host) ----

// Take makes x the input and asks the models for their view of it.
func (e *Explainer) Take(ctx app.Context, x []float32, source string) {
	e.setInput(ctx, served().input().Carry(x), source)
}

// Edited starts the live preview of an input edited by hand, and holds the page's render for its answers.
func (e *Explainer) Edited(ctx app.Context) {
	e.schedulePreview(ctx)
	e.answerFirst(ctx)
}

// Drop leaves the page with no input: no run, no results, no link, no answers.
func (e *Explainer) Drop(ctx app.Context) {
	e.in.Drop()
	e.dropRun()
	e.clearResults(ctx)
	e.clearLink()
	ctx.Defer(e.repaintAmortised) // no input: no answers
	e.publish()
}

// Fault says why what was entered cannot be the input; Note what was done to it to make it the input.
func (e *Explainer) Fault(msg string) { e.in.Err = msg }
func (e *Explainer) Note(msg string)  { e.in.Note = msg }

// LiveSwitch is the live preview's checkbox and its hint.
func (e *Explainer) LiveSwitch() []app.UI {
	return []app.UI{
		app.Label().Class("check").Body(
			app.Input().ID("live").Type("checkbox").Checked(e.in.Live).Aria("describedby", "live-help").OnChange(func(ctx app.Context, _ app.Event) {
				e.in.Live = ctx.JSSrc().Get("checked").Bool()
				e.schedulePreview(ctx)
			}),
			app.Text(" live preview"),
		),
		app.Span().ID("live-help").Class("hint").Text(fmt.Sprintf("%d restarts after each stroke", PreviewRestarts)),
	}
}

// answerFirst holds back the page's render of a new stroke (the set cleared, the link, the status) until the
// stroke's amortised answers have come (onWorker renders once they are painted), or holdRender has passed: that
// render and the browser's layout of it are 10–25 ms of the page's thread, and on two cores they delayed the
// answers, which need the thread to be heard and a core to be made on, by as much. The entry shows the stroke
// meanwhile.
func (e *Explainer) answerFirst(ctx app.Context) {
	if e.in.InspectAt < 0 { // no answers on their way
		return
	}
	e.models.amortised.hold(ctx)
}

// showInEntry puts the input (a shared link's, a host page's) where it is entered, where it can be seen and
// edited (an image's pad).
func (e *Explainer) showInEntry() { e.in.Tab = served().input().Show(e.in.X0) }

// clearLink takes the share link out of the address: there is no input left to share.
func (e *Explainer) clearLink() {
	l := app.Window().Get("location")
	app.Window().Get("history").Call("replaceState", nil, "", l.Get("pathname").String()+l.Get("search").String())
}

// newInput is no input, on the first of its kind's tabs (for models whose inputs one would not draw,
// weights.Input.PickFirst, their test items or the upload).
func newInput() core.Input { return core.NewInput(served().input().Tabs()[0].ID) }

// setInput makes an input, as a link carries it (its kind's Carry), the input, and asks a worker for the models' view of it, first of all:
// its amortised answers are what the visitor sees next (a stroke's, within a frame).
func (e *Explainer) setInput(ctx app.Context, q []uint8, source string) {
	e.in.Take(served().input().Carried(q), source)
	e.requestInspect()
	e.tookInput(ctx)
}

// takeInput makes an input, as a link carries it, the input, asking the workers nothing yet.
func (e *Explainer) takeInput(ctx app.Context, q []uint8, source string) {
	e.in.Take(served().input().Carried(q), source)
	e.tookInput(ctx)
}

// tookInput drops what belonged to the input before: its run, results, sweep and link.
func (e *Explainer) tookInput(ctx app.Context) {
	e.resolveCostly() // a new input answers the question
	e.dropRun()
	e.clearResults(ctx)
	e.dropSweep()
	e.updateLink()
	x0 := e.in.X0
	ctx.Defer(func(ctx app.Context) {
		served().input().Fill("preview", x0, inputkind.Card)
		e.repaintAmortised(ctx) // the last input's answers, dimmed until this one's come
	})
}

func (e *Explainer) requestInspect() {
	if e.workers.pool == nil {
		return
	}
	if ask, ok := e.in.Ask(e.work.ReadyWorkers()); ok {
		e.workers.pool.post(ask.Worker, ask.Request)
	}
}
