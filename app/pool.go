package app

import (
	"fmt"
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/app/webjs"
	"github.com/deltaclue/deltaclue/wasm/worker/searchworker"
)

// searchWorkers is the search workers as the page holds them (what it knows of them is work, package core's).
type searchWorkers struct {
	pool  *pool     // the workers themselves; nil until the models' assets are loaded
	err   string    // why the pool failed, if it did
	early *earlyRun // the loader's run of the address's link, until the page opens the link (early.go)
}

// pool runs the search workers: one dedicated Web Worker each, every one its own Go WASM instance
// (web/worker.js starting worker.wasm). Messages are searchworker's binary wire format, one transferred
// ArrayBuffer each.
type pool struct {
	script  string    // URL of worker.js, with the build version
	assets  app.Value // {module, kernel, models}: compiled once for the page, posted to each worker as it starts
	workers []*poolWorker
	// onMessage is called on the JS event loop with worker k's message, when it came (ms since navigation) and
	// the message as it came (its ArrayBuffer); dispatch to the UI from it. What the page knows of each worker is
	// package core's.
	onMessage func(k int, r searchworker.Response, at float64, raw app.Value)
}

type poolWorker struct {
	js    app.Value
	funcs []app.Func
}

func newPool(n int, script string, assets app.Value, onMessage func(int, searchworker.Response, float64, app.Value)) *pool {
	p := &pool{script: script, assets: assets, onMessage: onMessage, workers: make([]*poolWorker, n)}
	for k := range p.workers {
		p.spawn(k)
	}
	return p
}

// spawn starts worker k (again).
func (p *pool) spawn(k int) {
	js := app.Window().Get("Worker").New(p.script, map[string]any{"name": fmt.Sprintf("search-%d", k)})
	p.attach(k, js)
	js.Call("postMessage", p.assets) // structured clone: the modules are shared, the bundle copied
}

// adoptPool takes over the workers web/loader.js started before the page ran (deltaclueEarlyPool), with the
// messages they sent meanwhile, which it passes on as if they had just come (with the times they came). The
// workers hold the loader's run of a shared link, if the address had one.
func adoptPool(early app.Value, script string, assets app.Value, onMessage func(int, searchworker.Response, float64, app.Value)) *pool {
	workers := early.Get("workers")
	p := &pool{script: script, assets: assets, onMessage: onMessage, workers: make([]*poolWorker, workers.Length())}
	for k := range p.workers {
		p.attach(k, workers.Index(k))
	}
	queued := early.Call("adopt")
	for i := 0; i < queued.Length(); i++ {
		m := queued.Index(i)
		k, at := m.Index(0).Int(), m.Index(3).Float()
		if k < 0 || k >= len(p.workers) {
			continue
		}
		if m.Index(1).String() == "message" {
			p.receive(k, m.Index(2), at)
		} else {
			p.failed(k, m.Index(2).String())
		}
	}
	return p
}

// attach listens to worker k's messages and errors.
func (p *pool) attach(k int, js app.Value) *poolWorker {
	w := &poolWorker{js: js}
	onMessage := webjs.FuncOf(func(_ app.Value, args []app.Value) any {
		p.receive(k, args[0].Get("data"), now())
		return nil
	})
	onError := webjs.FuncOf(func(_ app.Value, args []app.Value) any {
		msg := ""
		if m := args[0].Get("message"); !m.IsUndefined() {
			msg = m.String()
		}
		p.failed(k, msg)
		return nil
	})
	js.Call("addEventListener", "message", onMessage)
	js.Call("addEventListener", "error", onError)
	w.funcs = []app.Func{onMessage, onError}
	p.workers[k] = w
	// The workers, for the console and the end-to-end test (which terminates one to check recovery).
	list := app.Window().Get("deltaclueWorkers")
	if list.IsUndefined() {
		list = app.Window().Get("Array").New()
		app.Window().Set("deltaclueWorkers", list)
	}
	list.Set(strconv.Itoa(k), js) // Set, not SetIndex: only Set converts an app.Value
	return w
}

// receive takes worker k's message (an ArrayBuffer) that came at the page's time at (ms since navigation).
func (p *pool) receive(k int, data app.Value, at float64) {
	r, err := searchworker.UnmarshalResponse(webjs.Bytes(data))
	if err != nil {
		r = searchworker.Response{Type: "error", Error: "a malformed message from a search worker: " + err.Error()}
	}
	p.onMessage(k, r, at, data)
}

// failed reports worker k's error event (it could not start, or its script failed).
func (p *pool) failed(k int, message string) {
	msg := "a search worker failed to start"
	if message != "" {
		msg += ": " + message
	}
	p.onMessage(k, searchworker.Response{Type: "error", Error: msg}, now(), nil)
}

// post sends a request to worker k.
func (p *pool) post(k int, req searchworker.Request) {
	b := searchworker.MarshalRequest(req)
	arr := app.Window().Get("Uint8Array").New(len(b))
	app.CopyBytesToJS(arr, b)
	buf := arr.Get("buffer")
	p.workers[k].js.Call("postMessage", buf, []any{buf})
}

// cancel asks the given workers to stop search id (each drops it at its next step, or skips it if still queued).
func (p *pool) cancel(id int, workers map[int]bool) {
	for k := range workers {
		p.post(k, searchworker.Request{Type: "cancel", ID: id})
	}
}

// restart terminates worker k (a search that ignores cancel) and starts a fresh one from the same compiled
// modules and bundle: nothing is downloaded again.
func (p *pool) restart(k int) {
	w := p.workers[k]
	w.js.Call("terminate")
	for _, f := range w.funcs {
		f.Release()
	}
	p.spawn(k)
}

// close terminates every worker.
func (p *pool) close() {
	for _, w := range p.workers {
		w.js.Call("terminate")
		for _, f := range w.funcs {
			f.Release()
		}
	}
}
