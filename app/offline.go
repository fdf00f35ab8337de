package app

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/app/webjs"
)

// offlineUse is whether the browser lets the page be kept for offline use: a browser that denies the site its
// storage (a frame on another site's page, where the visitor's browser blocks third-party storage; a visitor who
// blocks site data) still runs the page, from memory (web/loader.js), but cannot keep it.
type offlineUse struct {
	Known  bool   // web/loader.js has found out
	Reason string // why it cannot be kept ("" when it can)
}

// Sentence is what the page says of it, quietly, where it says how it runs.
func (o offlineUse) Sentence() string {
	if o.Reason == "" {
		return "After one visit the page also works offline."
	}
	return "This browser does not let the site keep data here, so the page will not work offline; everything else does."
}

// watch learns the answer from web/loader.js (window.deltaclueOffline, a promise of the reason or "").
func (o *offlineUse) watch(ctx app.Context) {
	p := app.Window().Get("deltaclueOffline")
	if !p.Truthy() {
		return
	}
	webjs.Promise(p, func(v app.Value) {
		reason := "unknown"
		if v.Type() == app.TypeString {
			reason = v.String()
		}
		ctx.Dispatch(func(app.Context) { *o = offlineUse{Known: true, Reason: reason} })
	}, func(msg string) {
		ctx.Dispatch(func(app.Context) { *o = offlineUse{Known: true, Reason: msg} })
	})
}
