//go:build js && wasm

// Command worker is the search worker's WebAssembly binary (web/worker.js starts it in a dedicated Web Worker).
// It holds the engine, the search and the shipped models, and nothing of the page: no go-app, no gomlx.
// Messages are package searchworker's binary wire format, one ArrayBuffer each (transferred, not copied).
package main

import (
	"runtime"
	"runtime/debug"
	"time"

	"github.com/hack-pad/safejs"

	"github.com/deltaclue/deltaclue/wasm/worker/searchworker"
)

// The warm-up search's size: a worker's share of the default set with two workers (50 restarts), 20 steps of
// it, about 0.1 s of an optimised worker's time, so that its batches are as large as the first real search's.
// Measured (Chromium, this project's 2-core machine, the workers' own seconds): the first Explain after a cold
// load took 1.3–1.6× the seconds of the next with 16 restarts, 1.2–1.4× with 50 through the real path.
const (
	WarmUpRestarts = 50
	WarmUpSteps    = 20
)

// Version is the build's content hash, stamped by cmd/site (-ldflags -X); the page compares it with its own.
var Version = "dev"

// ModelsSHA256 is the SHA-256 (hex) of the models bundle the build serves, stamped by cmd/site like Version.
var ModelsSHA256 = ""

// models takes the models bundle that worker.js received from the page (self.deltaclueModels, a Uint8Array) into
// Go's memory and drops the JavaScript copy. Any problem is left to the bundle's own checks to report.
func models(self safejs.Value) []byte {
	arr, err := self.Get("deltaclueModels")
	if err != nil {
		return nil
	}
	n, err := arr.Length()
	if err != nil || n <= 0 {
		return nil
	}
	b := make([]byte, n)
	if _, err := safejs.CopyBytesToGo(b, arr); err != nil {
		return nil
	}
	self.Delete("deltaclueModels")
	return b
}

// hashed says whether worker.js handed over the bundle with a SHA-256 (self.deltaclueModelsDigest, worked out
// natively by the page's loader with SubtleCrypto) that is the one this build serves: then its files' payload
// hashes need not be worked out again here, in code the browser has not optimised yet (most of a worker's start).
// Without SubtleCrypto (a page served over plain HTTP from another machine) every hash is checked in Go.
func hashed(self safejs.Value) bool {
	v, err := self.Get("deltaclueModelsDigest")
	if err != nil || v.Type() != safejs.TypeString {
		return false
	}
	self.Delete("deltaclueModelsDigest")
	s, err := v.String()
	return err == nil && ModelsSHA256 != "" && s == ModelsSHA256
}

// yielder returns the search's yield. While Go computes, the worker's event loop is blocked and no message (a
// cancel) can arrive, so between steps Go gives the event loop a turn through web/worker.js's deltaclueYield,
// which calls back once the tasks queued before it have run (on a channel message or a zero-delay timer,
// whichever comes first; see there for why both). A Pacer spaces the yields by what they cost: every 5 ms
// where a yield is nearly free (Chromium, Firefox), up to every 100 ms where it takes the timer's 4 ms
// (WebKit). Without deltaclueYield (another host), a yield is a millisecond's sleep, through setTimeout.
func yielder(self safejs.Value) func() {
	var pace searchworker.Pacer
	wait := func() { time.Sleep(time.Millisecond) }
	if fn, err := self.Get("deltaclueYield"); err == nil && fn.Type() == safejs.TypeFunction {
		wake := make(chan struct{}, 1)
		onWake, err := safejs.FuncOf(func(safejs.Value, []safejs.Value) any {
			select {
			case wake <- struct{}{}:
			default:
			}
			return nil
		})
		if err == nil {
			wait = func() {
				if _, err := fn.Invoke(onWake.Value()); err == nil {
					<-wake
				}
			}
		}
	}
	return func() {
		if !pace.Due(time.Now()) {
			return
		}
		start := time.Now()
		wait()
		pace.Yielded(start, time.Now())
	}
}

// clock is the worker's clock in ms since the Unix epoch (performance.timeOrigin + performance.now()), which the
// page turns into its own (its timeOrigin differs), or 0 where the worker has no performance object.
func clock(self safejs.Value) float64 {
	perf, err := self.Get("performance")
	if err != nil || perf.Type() != safejs.TypeObject {
		return 0
	}
	origin, err := perf.Get("timeOrigin")
	if err != nil || origin.Type() != safejs.TypeNumber {
		return 0
	}
	now, err := perf.Call("now")
	if err != nil || now.Type() != safejs.TypeNumber {
		return 0
	}
	o, _ := origin.Float()
	n, _ := now.Float()
	return o + n
}

// early reads the link the page's loader gave this worker to run as the page loads (self.deltaclueEarly), if any.
func early(self safejs.Value) (searchworker.Early, bool) {
	v, err := self.Get("deltaclueEarly")
	if err != nil || v.Type() != safejs.TypeObject {
		return searchworker.Early{}, false
	}
	self.Delete("deltaclueEarly")
	var e searchworker.Early
	str := func(name string) string {
		if f, err := v.Get(name); err == nil && f.Type() == safejs.TypeString {
			s, _ := f.String()
			return s
		}
		return ""
	}
	num := func(name string) int {
		if f, err := v.Get(name); err == nil && f.Type() == safejs.TypeNumber {
			n, _ := f.Int()
			return n
		}
		return -1
	}
	e.Link, e.Worker, e.Workers, e.ID = str("link"), num("worker"), num("workers"), num("id")
	return e, e.Link != ""
}

func main() {
	self := safejs.Global()
	uint8Array, _ := safejs.Global().Get("Uint8Array")
	post := func(r searchworker.Response) {
		b := searchworker.MarshalResponse(r)
		arr, err := uint8Array.New(len(b))
		if err == nil {
			_, err = safejs.CopyBytesToJS(arr, b)
		}
		if err == nil {
			buf, _ := arr.Get("buffer")
			_, err = self.Call("postMessage", buf, []any{buf})
		}
		if err != nil {
			println("worker: postMessage:", err.Error())
		}
	}
	// The page starts its summary worker with an empty bundle: it only summarises, and loads no models.
	// Loading the models allocates about 16 MB, nearly all of it kept: collections during it would free next
	// to nothing, and cost a tenth of the worker's start in code the browser has not optimised yet.
	gc := debug.SetGCPercent(-1)
	bundle := models(self)
	w, ready := searchworker.NewSummarizer(Version)
	switch {
	case len(bundle) > 0 && hashed(self):
		w, ready = searchworker.NewFromHashedBundle(Version, bundle)
	case len(bundle) > 0:
		w, ready = searchworker.NewFromBundle(Version, bundle)
	}
	debug.SetGCPercent(gc)
	w.Yield = yielder(self)
	queue := make(chan searchworker.Request, 64)
	onMessage, err := safejs.FuncOf(func(_ safejs.Value, args []safejs.Value) any {
		data, err := args[0].Get("data")
		if err != nil {
			return nil
		}
		arr, err := uint8Array.New(data)
		var n int
		if err == nil {
			n, err = arr.Length()
		}
		if err != nil {
			post(searchworker.Response{Type: "error", Error: "a request that is not an ArrayBuffer"})
			return nil
		}
		b := make([]byte, n)
		safejs.CopyBytesToGo(b, arr)
		req, err := searchworker.UnmarshalRequest(b)
		if err != nil {
			post(searchworker.Response{Type: "error", Error: err.Error()})
			return nil
		}
		if req.Type == "cancel" {
			w.Handle(req, post) // at once, while a search may be running
			return nil
		}
		w.StopWarmUp()               // a request never waits for the warm-up
		go func() { queue <- req }() // never block the event loop
		return nil
	})
	if err != nil {
		post(searchworker.Response{Type: "error", Error: "cannot listen for messages: " + err.Error()})
		return
	}
	if _, err := self.Call("addEventListener", "message", onMessage.Value()); err != nil {
		post(searchworker.Response{Type: "error", Error: "cannot listen for messages: " + err.Error()})
		return
	}
	ready.At = clock(self)
	post(ready)
	// A link the page's loader started this worker for runs first; otherwise a small search warms the code up
	// while the visitor draws. Requests wait in the queue meanwhile (a cancel gets in at once).
	if e, ok := early(self); !ok || !w.EarlyLink(e, post) {
		w.WarmUp(WarmUpRestarts, WarmUpSteps, post)
	}
	for req := range queue {
		w.Handle(req, post)
		if req.Type == "explain" && len(queue) == 0 {
			// A search leaves garbage behind. Collected now, while the worker waits, rather than when the next
			// request's allocations force it: a collection that fell in a stroke's inspection held its amortised
			// answers back (measured in Chromium, 23 strokes twice: the answers in the page 28–30 ms after pen-up
			// at the median without this, 22 ms with it).
			runtime.GC()
		}
	}
}
