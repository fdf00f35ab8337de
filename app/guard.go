package app

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/app/address"
)

// go-app reads the page's address with url.Parse (at start-up, and on every popstate, which a change of the
// fragment fires) and dereferences the nil URL that an invalid percent-escape gives: the Go program would
// exit. GuardAddress keeps the address parseable: it repairs it before go-app starts, and again first thing
// on every popstate, from a listener registered before go-app's window.onpopstate (listeners run in the order
// they were added). What was wrong is kept for the page to say.

// lastAddress is the guard's last reading, with the repaired address it wrote.
var lastAddress address.Reading

// GuardAddress repairs the address now and on every later popstate. Call it before app.RunWhenOnBrowser.
func GuardAddress() {
	if app.IsServer {
		return
	}
	checkAddress()
	app.Window().Call("addEventListener", "popstate", app.FuncOf(func(app.Value, []app.Value) any {
		checkAddress()
		return nil
	}))
}

// checkAddress reads location.href, writes its repaired form back if it differs, and remembers the reading.
func checkAddress() address.Reading {
	href := app.Window().Get("location").Get("href").String()
	r := address.Read(href)
	if r.Href != href {
		app.Window().Get("history").Call("replaceState", nil, "", r.Href)
	}
	lastAddress = r
	return r
}

// currentAddress is the reading of the address as it is now: the guard's, with the fault it repaired, if the
// address is still the one it wrote; else a new one. A fault is told once: the reading is then forgotten.
func currentAddress() address.Reading {
	r := lastAddress
	if app.Window().Get("location").Get("href").String() != r.Href || r.Href == "" {
		r = checkAddress()
	}
	lastAddress = address.Reading{}
	return r
}
