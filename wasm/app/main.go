//go:build js && wasm

// Command app is the page's WebAssembly binary: the go-app components of package app. cmd/site builds it
// and generates the static site around it.
package main

import (
	"runtime/debug"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	deltaclue "github.com/deltaclue/deltaclue/app"
)

// The page's garbage collector runs on its one thread, inside whatever task allocates: at Go's default (a
// collection each time the heap doubles, from 4 MB) opening a link or taking a batch of results often paid for
// a whole collection, tens of ms of the page's thread. A goal of nine times the live heap makes them an eighth as
// frequent (gctrace: a fresh page and its first run of 1000 restarts meet one collection, at 30 MB, where GOGC
// 400 made two); the limit keeps a page holding a very large set from growing without bound. During a search
// the page holds collections altogether, and restores this goal once the answer is painted (app/collector.go).
const (
	gcPercent   = 800
	memoryLimit = 256 << 20
)

func main() {
	debug.SetGCPercent(gcPercent)
	debug.SetMemoryLimit(memoryLimit)
	deltaclue.Routes()
	deltaclue.GuardAddress() // before go-app reads the address: it cannot survive an invalid escape in it
	app.RunWhenOnBrowser()
}
