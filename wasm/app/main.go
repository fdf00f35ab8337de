//go:build js && wasm

// Command app is the page's WebAssembly binary: the go-app components of package app. cmd/site builds it
// and generates the static site around it.
package main

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	deltaclue "github.com/deltaclue/deltaclue/app"
)

func main() {
	deltaclue.Routes()
	deltaclue.GuardAddress() // before go-app reads the address: it cannot survive an invalid escape in it
	app.RunWhenOnBrowser()
}
