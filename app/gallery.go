package app

import (
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/raster"
	"github.com/deltaclue/deltaclue/internal/dataset"
)

// The gallery: the served models' test items they are least sure of, offered on the page. cmd/site makes it
// from the models' test items (the digits': the shipped test split) as web/gallery.json, which the page
// fetches when the gallery's tab is first opened (and the service worker keeps for offline use): the page's
// binary carries no data of any one model.

// GalleryFile is where the site serves the gallery.
const GalleryFile = "/web/gallery.json"

// GallerySize is how many test items the gallery offers.
const GallerySize = 24

// GalleryItem is a test item the classifier is unsure about.
type GalleryItem struct {
	Index  int     `json:"index"`  // in the models' test items
	Label  int     `json:"label"`  // the true label
	Pred   int     `json:"pred"`   // the classifier's label
	H      float32 `json:"h"`      // the classifier's predictive entropy, nats
	Pixels string  `json:"pixels"` // the item's values as bytes (k/255), channel by channel, base64
}

// Image returns the item's values in [0, 1].
func (d GalleryItem) Image() []float32 {
	b, _ := base64.StdEncoding.DecodeString(d.Pixels)
	x := make([]float32, len(b))
	for i, v := range b {
		x[i] = float32(v) / 255
	}
	return x
}

// MakeGallery is the n test items the models are least sure of (clue.MostUncertain), most uncertain first, as
// web/gallery.json holds them.
func MakeGallery(m *clue.Models, items dataset.Items, n int) ([]byte, error) {
	size := items.Size()
	if size != m.BNN.Input.Size() {
		return nil, fmt.Errorf("the test items have %d values each, the models take %d", size, m.BNN.Input.Size())
	}
	x := make([]float32, items.Len()*size)
	for i := 0; i < items.Len(); i++ {
		items.Float(i, x[i*size:(i+1)*size])
	}
	preds := m.BNN.Classify(x)
	out := []GalleryItem{}
	for _, i := range clue.MostUncertain(m.BNN, x, n) {
		q := make([]byte, size)
		for j, v := range x[i*size : (i+1)*size] {
			q[j] = byte(v*255 + 0.5)
		}
		out = append(out, GalleryItem{Index: i, Label: items.Label(i), Pred: preds[i].Label(), H: preds[i].Total,
			Pixels: base64.StdEncoding.EncodeToString(q)})
	}
	js, err := json.MarshalIndent(out, "", " ")
	return append(js, '\n'), err
}

// galleryState is the gallery as the page has it: fetched when its tab is first opened.
type galleryState struct {
	loading bool
	err     string
	items   []GalleryItem
	thumbs  []string // the items as PNG data URLs, dark on light (engine/clue/raster's writer)
}

// loadGallery fetches web/gallery.json once, and draws its thumbnails.
func (e *Explainer) loadGallery(ctx app.Context) {
	g := &e.models.gallery
	if g.loading || g.items != nil || !served().hasGallery() {
		return
	}
	g.loading, g.err = true, ""
	fetchText(ctx, ctx.ResolveStaticResource(served().file("gallery.json")), func(ctx app.Context, text string, err error) {
		g.loading = false
		var items []GalleryItem
		if err == nil {
			err = json.Unmarshal([]byte(text), &items)
		}
		m := served()
		for _, d := range items {
			if err == nil && (len(d.Image()) != m.Size() || d.Pred < 0 || d.Pred >= len(m.classes)) {
				err = fmt.Errorf("test %s %d is not an input of these models", m.noun(), d.Index)
			}
		}
		if err != nil {
			g.err = "The gallery could not be loaded: " + err.Error() + "."
			return
		}
		for _, d := range items {
			img := raster.New(m.Width, m.Height)
			raster.DrawInput(img, 0, 0, d.Image(), m.rasterShape(), 1)
			g.thumbs = append(g.thumbs, "data:image/png;base64,"+base64.StdEncoding.EncodeToString(raster.PNG(img)))
		}
		g.items = items
	})
}
