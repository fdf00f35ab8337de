package app

import (
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"sync"
)

// GalleryDigit is a test digit the BNN is unsure about, offered on the page.
type GalleryDigit struct {
	Index  int     `json:"index"`  // in the shipped test split
	Label  int     `json:"label"`  // the true label
	Pred   int     `json:"pred"`   // the BNN's label
	H      float32 `json:"h"`      // the BNN's predictive entropy, nats
	Pixels string  `json:"pixels"` // 784 bytes (intensity k/255), base64
	Thumb  string  `json:"thumb"`  // the digit as a PNG data URL, dark on light
}

// Image returns the digit's 784 intensities.
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

// galleryThumbs are the gallery's PNG data URLs, listed once.
var galleryThumbs = sync.OnceValue(func() []string {
	var out []string
	for _, d := range gallery() {
		out = append(out, d.Thumb)
	}
	return out
})
