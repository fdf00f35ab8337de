package app

import "github.com/maxence-charriere/go-app/v10/pkg/app"

// liveFuncs counts the JavaScript callbacks the page has made for one use (a message listener, a promise's
// handlers) and not released: the soak test checks that a page used for an afternoon does not pile them up.
// Callbacks made once for the page's life (pageFuncOf) are not counted: one is made whenever the page first
// needs it, which may be after any number of searches.
var liveFuncs int

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

// funcOf is app.FuncOf, counted in liveFuncs until released.
func funcOf(fn func(this app.Value, args []app.Value) any) app.Func {
	liveFuncs++
	return &countedFunc{Func: app.FuncOf(fn)}
}

// pageFuncOf is app.FuncOf for a callback that lives as long as the page and is made once (an animation
// frame's painter, an observer, a window listener): it is never released, and not counted in liveFuncs.
func pageFuncOf(fn func(this app.Value, args []app.Value) any) app.Func {
	return app.FuncOf(fn)
}
