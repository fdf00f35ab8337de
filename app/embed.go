// The page in another page's frame (?embed=1, docs/embed.md): its compact layout, and the messages it takes from
// the host page (a share link to open, a digit to explain) and sends to it (ready, each finished set, errors).

package app

import (
	"encoding/json"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/app/hostmsg"
	"github.com/deltaclue/deltaclue/app/webjs"
)

// embedState is the page's part in a host page's frame.
type embedState struct {
	on        bool             // ?embed=1: the compact layout
	readySent bool             // deltaclue:ready went to the host
	doneRun   int              // the run whose deltaclue:done went to the host
	pending   *hostmsg.Message // a digit that came before the workers were ready
	asker     app.Value        // the window that sent the last message, and its origin: what answers it goes there
	origin    string
	id        json.RawMessage // the last message's id: sent back with its error, or with the set it started
	awaiting  bool            // the last message asks for a set that has not started yet
	idRun     int             // the run the last message started (its done message carries the id)
}

// started notes a run's start: the first after a host's message is the one its id belongs to.
func (s *embedState) started(run int) {
	if s.awaiting {
		s.awaiting, s.idRun = false, run
	}
}

// listenToHost takes the host's messages from web/loader.js's inbox (those sent before the page ran first).
func (e *Explainer) listenToHost(ctx app.Context) {
	inbox := app.Window().Get("deltaclueInbox")
	if !inbox.Truthy() {
		return
	}
	deliver := webjs.PageFuncOf(func(_ app.Value, args []app.Value) any {
		text, origin, source := args[0].String(), args[1].String(), args[2]
		ctx.Dispatch(func(ctx app.Context) { e.onHostMessage(ctx, text, origin, source) })
		return nil
	})
	queue := inbox.Get("queue")
	inbox.Set("queue", app.Window().Get("Array").New())
	inbox.Set("deliver", deliver)
	for i := 0; i < queue.Length(); i++ {
		m := queue.Index(i)
		text, origin, source := m.Get("text").String(), m.Get("origin").String(), m.Get("source")
		ctx.Dispatch(func(ctx app.Context) { e.onHostMessage(ctx, text, origin, source) })
	}
}

// onHostMessage does what a host's message asks, or answers why it cannot. What is not meant for the frame is
// ignored.
func (e *Explainer) onHostMessage(ctx app.Context, text, origin string, source app.Value) {
	m, forFrame, err := served().input().ReadHost(text)
	if !forFrame {
		ctx.PreventUpdate()
		return
	}
	e.embed.asker, e.embed.origin, e.embed.id, e.embed.awaiting = source, origin, m.ID, false
	if text == "" || err != nil {
		reason := "the message could not be read as JSON"
		if err != nil {
			reason = err.Error()
		}
		e.tellHost(hostmsg.Error, map[string]any{"reason": reason}, true)
		ctx.PreventUpdate()
		return
	}
	e.embed.awaiting = true
	switch m.Type {
	case hostmsg.Open:
		e.openFragment(ctx, m.Link)
		if e.links.Err != "" {
			e.embed.awaiting = false
			e.tellHost(hostmsg.Error, map[string]any{"reason": e.links.Err}, true)
		}
	case hostmsg.Digit, hostmsg.Image, hostmsg.Row:
		e.embed.pending = &m
		e.runHostDigit(ctx)
	}
}

// runHostDigit explains the host's image (a deltaclue:digit or deltaclue:image) once a worker is ready.
func (e *Explainer) runHostDigit(ctx app.Context) {
	m := e.embed.pending
	if m == nil || e.workers.pool == nil || e.work.ReadyCount() == 0 {
		return
	}
	e.embed.pending = nil
	e.links.Err, e.links.Note = "", ""
	e.dropSweep()
	e.setInput(ctx, m.Input, "the host page's "+served().noun())
	e.showInEntry()
	e.run(ctx)
	e.publish()
}

// onWorkersReady tells the host the frame is ready, once, and runs an image it sent before.
func (e *Explainer) onWorkersReady(ctx app.Context) {
	if !e.embed.readySent {
		e.embed.readySent = true
		e.tellHost(hostmsg.Ready, nil, false)
	}
	e.runHostDigit(ctx)
}

// onSetDone tells the host a set is finished (once per run; not a live preview's): the sentence, the label the
// model reads, the accepted explanations per label, and the link that opens the set in the full explainer; for a
// regression also its prediction and σ.
func (e *Explainer) onSetDone() {
	r := &e.work.Run
	if r.Preview || r.ID == e.embed.doneRun || e.set.summary == nil || e.in.Inspect == nil {
		return
	}
	e.embed.doneRun = r.ID
	pred := e.in.Inspect.Prediction
	done := map[string]any{"sentence": e.set.sentence, "label": argmax(pred.Probs),
		"labels": intsAny(e.set.summary.LabelCounts), "link": fullExplainer()}
	if pred.Mean != nil { // a regression's: its prediction and σ, in the target's unit
		done["prediction"], done["sigma"] = float64(*pred.Mean), float64(pred.Total)
	}
	e.tellHost(hostmsg.Done, done, r.ID == e.embed.idRun)
}

// tellHost posts a message to the window that sent the last one (to its origin), or, before any, to the frame's
// parent (to any origin: what the frame says is what its link says), with the last message's id when it
// answers it. Outside a frame nothing is sent.
func (e *Explainer) tellHost(kind string, fields map[string]any, answers bool) {
	to, origin := e.embed.asker, e.embed.origin
	if to == nil || !to.Truthy() {
		parent := app.Window().Get("parent")
		if !parent.Truthy() || parent.Equal(app.Window().JSValue()) {
			return
		}
		to, origin = parent, "*"
	}
	if origin == "" || origin == "null" {
		origin = "*" // a host from a file: or a sandboxed frame has an opaque origin
	}
	msg := map[string]any{"type": kind}
	for k, v := range fields {
		msg[k] = v
	}
	if answers && len(e.embed.id) > 0 {
		var id any
		if json.Unmarshal(e.embed.id, &id) == nil {
			msg["id"] = id
		}
	}
	to.Call("postMessage", msg, origin)
}

// fullExplainer is the page's address without ?embed=1: the link to the same state in the full explainer.
func fullExplainer() string {
	loc := app.Window().Get("location")
	query := strings.TrimPrefix(loc.Get("search").String(), "?")
	var keep []string
	for _, kv := range strings.Split(query, "&") {
		if kv != "" && kv != "embed=1" {
			keep = append(keep, kv)
		}
	}
	href := loc.Get("origin").String() + loc.Get("pathname").String()
	if len(keep) > 0 {
		href += "?" + strings.Join(keep, "&")
	}
	return href + loc.Get("hash").String()
}

func intsAny(xs []int) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

// EmbedSnippet is the HTML that puts the explainer at page (its address, query and fragment dropped) with the
// share link fragment on another page: a compact frame, full width up to 760 px, loaded when it scrolls into
// view, for the page's models (&models=fashion; none for the site's default).
func EmbedSnippet(page, fragment string) string {
	page, _, _ = strings.Cut(page, "#")
	page, _, _ = strings.Cut(page, "?")
	src := page + "?embed=1"
	if m := served(); !m.isDefault {
		src += "&" + ModelsQuery + "=" + m.name
	}
	if fragment != "" {
		src += "#" + fragment
	}
	return `<iframe src="` + htmlAttr(src) + `" title="deltaclue: why is the model unsure about this ` + served().noun() + `?" loading="lazy" ` +
		`style="width: 100%; max-width: 760px; height: 720px; border: 1px solid #e5e7eb; border-radius: 10px"></iframe>`
}

func htmlAttr(s string) string {
	return strings.NewReplacer("&", "&amp;", `"`, "&quot;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// writeEmbedSnippet fills the Embed fold's snippet with the page's state as its address holds it now.
func (e *Explainer) writeEmbedSnippet(ctx app.Context, _ app.Event) {
	ctx.PreventUpdate()
	loc := app.Window().Get("location")
	frag := strings.TrimPrefix(loc.Get("hash").String(), "#")
	if t := app.Window().GetElementByID("embed-snippet"); t.Truthy() {
		t.Set("value", EmbedSnippet(loc.Get("href").String(), frag))
	}
}

// copyEmbedSnippet copies the snippet, or selects it for the visitor to copy where the browser refuses.
func (e *Explainer) copyEmbedSnippet(ctx app.Context, _ app.Event) {
	ctx.PreventUpdate()
	t := app.Window().GetElementByID("embed-snippet")
	if !t.Truthy() {
		return
	}
	t.Call("select")
	if cb := app.Window().Get("navigator").Get("clipboard"); cb.Truthy() {
		webjs.Promise(cb.Call("writeText", t.Get("value")), func(app.Value) {}, func(string) {})
	}
}
