package imagekind

// The gallery (package gallery, web/gallery.json): the test items the models are least sure of, fetched when its
// tab is first opened, each a button with its thumbnail and its entropy.

import (
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/app/inputkind"
	"github.com/deltaclue/deltaclue/app/webjs"
	"github.com/deltaclue/deltaclue/engine/clue/raster"
	"github.com/deltaclue/deltaclue/internal/gallery"
)

// galleryState is the gallery as the page has it.
type galleryState struct {
	loading bool
	err     string
	items   []gallery.Item
	thumbs  []string // the items as PNG data URLs, dark on light (engine/clue/raster's writer)
}

// loadGallery fetches the gallery once, and draws its thumbnails.
func (i *Image) loadGallery(ctx app.Context) {
	g := &i.gallery
	if g.loading || g.items != nil || i.m.Gallery == "" {
		return
	}
	g.loading, g.err = true, ""
	webjs.FetchText(ctx, ctx.ResolveStaticResource(i.m.Gallery), func(ctx app.Context, text string, err error) {
		g.loading = false
		var items []gallery.Item
		if err == nil {
			err = json.Unmarshal([]byte(text), &items)
		}
		for _, d := range items {
			if err == nil && (len(d.Carried()) != i.size() || d.Pred < 0 || d.Pred >= i.m.Classes) {
				err = fmt.Errorf("test %s %d is not an input of these models", i.noun(), d.Index)
			}
		}
		if err != nil {
			g.err = "The gallery could not be loaded: " + err.Error() + "."
			return
		}
		for _, d := range items {
			img := raster.New(i.m.Input.Width, i.m.Input.Height)
			i.Draw(img, 0, 0, i.Carried(d.Carried()), 1)
			g.thumbs = append(g.thumbs, "data:image/png;base64,"+base64.StdEncoding.EncodeToString(raster.PNG(img)))
		}
		g.items = items
	})
}

// galleryThumbs is the gallery: a button per uncertain test item, its thumbnail and its entropy.
func (i *Image) galleryThumbs(host inputkind.Host) app.UI {
	g := &i.gallery
	switch {
	case g.err != "":
		return app.P().ID("gallery-error").Class("error").Text(g.err)
	case g.items == nil:
		return app.P().Class("hint").Text("Loading the test " + i.nouns() + " the model is least sure of …")
	}
	return app.Range(g.items).Slice(func(k int) app.UI {
		d := g.items[k]
		what := fmt.Sprintf("test %s %d", i.noun(), d.Index)
		return app.Button().Class("thumb").Title(fmt.Sprintf("%s: true label %s, the model says %s with H = %.2f", what, i.m.Class(d.Label), i.m.Class(d.Pred), d.H)).
			OnClick(func(ctx app.Context, _ app.Event) {
				host.Take(ctx, i.Carried(d.Carried()), fmt.Sprintf("%s (true label %s)", what, i.m.Class(d.Label)))
			}).Body(app.Img().Src(g.thumbs[k]).Alt(what), app.Span().Text(fmt.Sprintf("H %.2f", d.H)))
	})
}
