// Package webjs holds the page's few helpers around the browser's JavaScript that the page and its input
// kinds share: callbacks counted until released, promises, fetches, bytes and canvases.
package webjs

import (
	"errors"
	"fmt"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// liveFuncs counts the JavaScript callbacks the page has made for one use (a message listener, a promise's
// handlers) and not released: the soak test checks that a page used for an afternoon does not pile them up.
// Callbacks made once for the page's life (PageFuncOf) are not counted: one is made whenever the page first
// needs it, which may be after any number of searches.
var liveFuncs int

// LiveFuncs is how many callbacks made with FuncOf are not released yet.
func LiveFuncs() int { return liveFuncs }

// countedFunc is an app.Func whose Release is counted (once, however often it is called).
type countedFunc struct {
	app.Func
	released bool
}

func (f *countedFunc) Release() {
	if !f.released {
		f.released = true
		liveFuncs--
		f.Func.Release()
	}
}

// FuncOf is app.FuncOf, counted in LiveFuncs until released.
func FuncOf(fn func(this app.Value, args []app.Value) any) app.Func {
	liveFuncs++
	return &countedFunc{Func: app.FuncOf(fn)}
}

// PageFuncOf is app.FuncOf for a callback that lives as long as the page and is made once (an animation
// frame's painter, an observer, a window listener): it is never released, and not counted in LiveFuncs.
func PageFuncOf(fn func(this app.Value, args []app.Value) any) app.Func {
	return app.FuncOf(fn)
}

// Promise calls ok with a JavaScript promise's value or fail with its error's text, releasing its callbacks.
func Promise(p app.Value, ok func(app.Value), fail func(string)) {
	var then, catch app.Func
	release := func() {
		then.Release()
		catch.Release()
	}
	then = FuncOf(func(_ app.Value, args []app.Value) any {
		defer release()
		ok(args[0])
		return nil
	})
	catch = FuncOf(func(_ app.Value, args []app.Value) any {
		defer release()
		msg := "unknown error"
		if len(args) > 0 && !args[0].IsUndefined() && !args[0].IsNull() {
			msg = args[0].Call("toString").String()
		}
		fail(msg)
		return nil
	})
	p.Call("then", then, catch)
}

// FetchText fetches a URL's text and calls done with it, or with why not, on the page's goroutine.
func FetchText(ctx app.Context, url string, done func(ctx app.Context, text string, err error)) {
	var onResponse, onText, onFail app.Func
	release := func() { onResponse.Release(); onText.Release(); onFail.Release() }
	finish := func(text string, err error) {
		release()
		ctx.Dispatch(func(ctx app.Context) { done(ctx, text, err) })
	}
	onText = FuncOf(func(_ app.Value, args []app.Value) any { finish(args[0].String(), nil); return nil })
	onFail = FuncOf(func(_ app.Value, args []app.Value) any {
		msg := "the network failed"
		if len(args) > 0 && args[0].Truthy() {
			msg = args[0].Call("toString").String()
		}
		finish("", errors.New(msg))
		return nil
	})
	onResponse = FuncOf(func(_ app.Value, args []app.Value) any {
		r := args[0]
		if !r.Get("ok").Bool() {
			finish("", fmt.Errorf("%s answered %d", url, r.Get("status").Int()))
			return nil
		}
		r.Call("text").Call("then", onText, onFail)
		return nil
	})
	app.Window().Call("fetch", url).Call("then", onResponse, onFail)
}

// Bytes copies an ArrayBuffer into Go.
func Bytes(buf app.Value) []byte {
	if buf.IsUndefined() || buf.IsNull() || buf.Get("byteLength").IsUndefined() {
		return nil
	}
	arr := app.Window().Get("Uint8Array").New(buf)
	b := make([]byte, arr.Length())
	app.CopyBytesToGo(b, arr)
	return b
}

// ReadableCanvas2d returns the 2-D context of a canvas whose pixels the page reads back (getImageData), made
// with willReadFrequently: Chromium then keeps it in memory rather than on the GPU, and does not warn on
// every run that repeated read-backs are slow. A canvas keeps the options of its first getContext, so every
// use of such a canvas goes through here.
func ReadableCanvas2d(c app.Value) app.Value {
	if c.IsNull() || c.IsUndefined() {
		return nil
	}
	return c.Call("getContext", "2d", map[string]any{"willReadFrequently": true})
}

// ImageData copies w×h RGBA pixels into a new ImageData.
func ImageData(rgba []byte, w, h int) app.Value {
	arr := app.Window().Get("Uint8ClampedArray").New(len(rgba))
	app.CopyBytesToJS(arr, rgba)
	return app.Window().Get("ImageData").New(arr, w, h)
}

// PutRGBA draws w×h RGBA pixels at (x, y) of a canvas 2-D context.
func PutRGBA(ctx2d app.Value, rgba []byte, w, h, x, y int) {
	ctx2d.Call("putImageData", ImageData(rgba, w, h), x, y)
}

// CanvasImage reads a canvas (or any image drawn onto a w×h canvas) as RGBA bytes.
func CanvasImage(ctx app.Value, w, h int) []byte {
	data := ctx.Call("getImageData", 0, 0, w, h).Get("data")
	rgba := make([]byte, w*h*4)
	app.CopyBytesToGo(rgba, data)
	return rgba
}

// UnlessShown returns the element with the given id, unless it already shows what key names (or there is no
// such element). The page redraws its cards' and detail's canvases at every redraw of the results, ten times
// a second while a set streams in. A canvas whose size changed since was cleared, so its size is part of the
// key.
func UnlessShown(id, key string) app.Value {
	c := app.Window().GetElementByID(id)
	if c.IsNull() || c.IsUndefined() {
		return nil
	}
	key = fmt.Sprintf("%s %dx%d", key, c.Get("width").Int(), c.Get("height").Int())
	if c.Get("deltaclueShows").String() == key {
		return nil
	}
	c.Set("deltaclueShows", key)
	return c
}
