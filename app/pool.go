package app

import (
	"fmt"
	"strconv"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/app/searchworker"
)

// pool runs the search workers: one dedicated Web Worker each, every one its own Go WASM instance
// (web/worker.js starting worker.wasm). Messages are searchworker's binary wire format, one transferred
// ArrayBuffer each.
type pool struct {
	script    string    // URL of worker.js, with the build version
	assets    app.Value // {module, kernel, models}: compiled once for the page, posted to each worker as it starts
	workers   []*poolWorker
	onMessage func(k int, r searchworker.Response) // called on the JS event loop; dispatch to the UI from it
}

type poolWorker struct {
	js       app.Value
	ready    bool
	version  string
	funcs    []app.Func
	lastSeen time.Time // its last message, or its start
	stepped  bool      // it has sent news from within a search (a heartbeat or results): its code is warm
	starts   int       // how many times the page started it again because it never said ready
	readyAt  float64   // when it said ready, ms since navigation
	early    bool      // started by web/loader.js before the page ran (adoptPool)
}

func newPool(n int, script string, assets app.Value, onMessage func(int, searchworker.Response)) *pool {
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
// messages they sent meanwhile, which it passes on as if they had just come. The workers are marked early:
// they hold the loader's run of a shared link, if the address had one.
func adoptPool(early app.Value, script string, assets app.Value, onMessage func(int, searchworker.Response)) *pool {
	workers := early.Get("workers")
	p := &pool{script: script, assets: assets, onMessage: onMessage, workers: make([]*poolWorker, workers.Length())}
	for k := range p.workers {
		p.attach(k, workers.Index(k)).early = true
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
	w := &poolWorker{js: js, lastSeen: time.Now()}
	onMessage := funcOf(func(_ app.Value, args []app.Value) any {
		p.receive(k, args[0].Get("data"), now())
		return nil
	})
	onError := funcOf(func(_ app.Value, args []app.Value) any {
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
	w := p.workers[k]
	w.lastSeen = time.Now()
	r, err := searchworker.UnmarshalResponse(bytesOf(data))
	if err != nil {
		r = searchworker.Response{Type: "error", Error: "a malformed message from a search worker: " + err.Error()}
	}
	switch r.Type {
	case "ready":
		w.ready, w.version, w.readyAt = true, r.Version, at
	case "alive", "results":
		w.stepped = true
	}
	p.onMessage(k, r)
}

// failed reports worker k's error event (it could not start, or its script failed).
func (p *pool) failed(k int, message string) {
	msg := "a search worker failed to start"
	if message != "" {
		msg += ": " + message
	}
	p.onMessage(k, searchworker.Response{Type: "error", Error: msg})
}

// readySpan is when the first and the last of the workers said ready (ms since navigation; 0 if none did).
func (p *pool) readySpan() (first, last float64) {
	for _, w := range p.workers {
		if w.ready && (first == 0 || w.readyAt < first) {
			first = w.readyAt
		}
		if w.ready && w.readyAt > last {
			last = w.readyAt
		}
	}
	return first, last
}

// allEarly says whether every worker is one the loader started (none has been replaced since).
func (p *pool) allEarly() bool {
	for _, w := range p.workers {
		if !w.early {
			return false
		}
	}
	return true
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

// bytesOf copies an ArrayBuffer into Go.
func bytesOf(buf app.Value) []byte {
	if buf.IsUndefined() || buf.IsNull() || buf.Get("byteLength").IsUndefined() {
		return nil
	}
	arr := app.Window().Get("Uint8Array").New(buf)
	b := make([]byte, arr.Length())
	app.CopyBytesToGo(b, arr)
	return b
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

// silent is how long worker k has said nothing (since it started, if it never did).
func (p *pool) silent(k int) time.Duration { return time.Since(p.workers[k].lastSeen) }

// silenceLimit is how long worker k, which has work, may say nothing before it is taken for dead. A worker
// that has sent news from within a search gets WorkerSilence, doubled for each failure the run has had
// without progress since (a starved machine, not a dead worker, is then the likelier cause), up to
// ColdSilence. One that has not yet, since it started, gets ColdSilence: its first steps run code the browser
// has not compiled yet (WebKit compiles a module's functions when they are first called, which on a loaded
// machine took over 3 s before the first heartbeat), and a replacement starts up before it says anything.
func (p *pool) silenceLimit(k, failures int) time.Duration {
	if !p.workers[k].stepped {
		return ColdSilence
	}
	return min(WorkerSilence<<min(failures, 8), ColdSilence)
}

// heard restarts the silence clocks of workers ks: the page could not have heard them while it was held up.
func (p *pool) heard(ks map[int]bool) {
	for k := range ks {
		p.workers[k].lastSeen = time.Now()
	}
}

// givenUp counts the workers that never said ready in StartTries starts.
func (p *pool) givenUp() int {
	n := 0
	for _, w := range p.workers {
		if !w.ready && w.starts >= StartTries {
			n++
		}
	}
	return n
}

// ready lists the workers that have said ready.
func (p *pool) ready() []int {
	var ks []int
	for k, w := range p.workers {
		if w.ready {
			ks = append(ks, k)
		}
	}
	return ks
}

// shares splits the restarts 0..n-1 among the given workers, restart i to worker i mod len(workers), so each
// gets the same mix of early and late restarts (S2 and S5 order them by class).
func shares(n int, workers []int) map[int][]int {
	out := map[int][]int{}
	for i := 0; i < n; i++ {
		k := workers[i%len(workers)]
		out[k] = append(out[k], i)
	}
	return out
}
