//go:build js && wasm

// Command worker is the search worker's WebAssembly binary (web/worker.js starts it in a dedicated Web Worker).
// It holds the engine, the search and the shipped models, and nothing of the page: no go-app, no gomlx.
// Messages are package searchworker's binary wire format, one ArrayBuffer each (transferred, not copied).
package main

import (
	"time"

	"github.com/hack-pad/safejs"

	"github.com/deltaclue/deltaclue/app/searchworker"
)

// Version is the build's content hash, stamped by cmd/site (-ldflags -X); the page compares it with its own.
var Version = "dev"

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

// yielder returns the search's yield: while Go computes, the worker's event loop is blocked and no message (a
// cancel) can arrive, so between steps Go waits for a message it posts to itself on a MessageChannel, which
// lets the event loop run the messages queued before it. A sleep would do the same through setTimeout, which
// browsers stretch to 4 ms when nested: at a yield every 25 ms that cost 15 % of a search (the "fixed 160–250 ms
// per worker" measured in Chromium). A channel message costs a few microseconds, so it can yield every 5 ms.
func yielder(self safejs.Value) func() {
	last := time.Now()
	sleep := func() { // where there is no MessageChannel
		if time.Since(last) > 25*time.Millisecond {
			time.Sleep(time.Millisecond)
			last = time.Now()
		}
	}
	ctor, err := self.Get("MessageChannel")
	if err != nil || ctor.IsUndefined() {
		return sleep
	}
	mc, err := ctor.New()
	if err != nil {
		return sleep
	}
	in, err1 := mc.Get("port1")
	out, err2 := mc.Get("port2")
	wake := make(chan struct{}, 1)
	onWake, err3 := safejs.FuncOf(func(safejs.Value, []safejs.Value) any {
		select {
		case wake <- struct{}{}:
		default:
		}
		return nil
	})
	if err1 != nil || err2 != nil || err3 != nil || in.Set("onmessage", onWake.Value()) != nil {
		return sleep
	}
	return func() {
		if time.Since(last) < 5*time.Millisecond {
			return
		}
		if _, err := out.Call("postMessage", 0); err != nil {
			return
		}
		<-wake
		last = time.Now()
	}
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
	bundle := models(self)
	w, ready := searchworker.NewSummarizer(Version)
	if len(bundle) > 0 {
		w, ready = searchworker.NewFromBundle(Version, bundle)
	}
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
	post(ready)
	for req := range queue {
		w.Handle(req, post)
	}
}
