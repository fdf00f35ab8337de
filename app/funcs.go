package app

import "github.com/maxence-charriere/go-app/v10/pkg/app"

// liveFuncs counts the JavaScript callbacks the page has made and not released: the soak test checks that a
// page used for an afternoon does not pile them up.
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
