package app

import (
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/engine/clue/raster"
	"github.com/deltaclue/deltaclue/internal/gallery"
)

// galleryState is the gallery (package gallery, web/gallery.json) as the page has it: fetched when its tab is
// first opened.
type galleryState struct {
	loading bool
	err     string
	items   []gallery.Item
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
		var items []gallery.Item
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
