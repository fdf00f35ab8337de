package app

import (
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"sync"

	"github.com/deltaclue/deltaclue/app/raster"
	"github.com/deltaclue/deltaclue/mnist"
)

// GalleryDigit is a test digit the BNN is unsure about, offered on the page.
type GalleryDigit struct {
	Index  int     `json:"index"`  // in the shipped test split
	Label  int     `json:"label"`  // the true label
	Pred   int     `json:"pred"`   // the BNN's label
	H      float32 `json:"h"`      // the BNN's predictive entropy, nats
	Pixels string  `json:"pixels"` // the digit's mnist.Pixels bytes (intensity k/255), base64
}

// Image returns the digit's mnist.Pixels intensities.
func (d GalleryDigit) Image() []float32 {
	b, _ := base64.StdEncoding.DecodeString(d.Pixels)
	x := make([]float32, len(b))
	for i, v := range b {
		x[i] = float32(v) / 255
	}
	return x
}

// gallery.json holds the 24 most uncertain digits of the shipped test split under the shipped BNN, most
// uncertain first; gallery_test.go checks it against the models (and rewrites it with -update-gallery), so the
// page needs neither the test split nor the models to show it.
//
//go:embed gallery.json
var galleryJSON []byte

// gallery is gallery.json's digits, parsed once: the page renders the gallery (24 buttons, each of which asked
// for the list again) at every render of the page, and parsing 37 KB of JSON 49 times made each render a
// blocking task of about 0.4 s during a search. Callers must not change the slice.
var gallery = sync.OnceValue(func() []GalleryDigit {
	var g []GalleryDigit
	json.Unmarshal(galleryJSON, &g)
	return g
})

// galleryThumbs are the gallery's digits as PNG data URLs, dark on light, drawn once when the gallery's tab is
// first opened (app/raster's writer: gallery.json carried them before, 6 KB gzipped of app.wasm).
var galleryThumbs = sync.OnceValue(func() []string {
	var out []string
	for _, d := range gallery() {
		img := raster.New(mnist.Side, mnist.Side)
		raster.DrawInput(img, 0, 0, d.Image(), raster.Digits, 1)
		out = append(out, "data:image/png;base64,"+base64.StdEncoding.EncodeToString(raster.PNG(img)))
	}
	return out
})
