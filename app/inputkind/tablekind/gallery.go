package tablekind

// The gallery (package gallery, web/…/gallery.json): the test rows the models are least sure of, fetched when
// its tab is first opened, each a button naming its entropy, the model's reading and the true label.

import (
	"encoding/json"
	"fmt"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/app/inputkind"
	"github.com/deltaclue/deltaclue/app/webjs"
	"github.com/deltaclue/deltaclue/internal/gallery"
)

// galleryState is the gallery as the page has it.
type galleryState struct {
	loading bool
	err     string
	items   []gallery.Item
	rows    [][]float32 // the items' flattened rows
}

// loadGallery fetches the gallery once.
func (k *Table) loadGallery(ctx app.Context) {
	g := &k.gallery
	if g.loading || g.items != nil || k.m.Gallery == "" {
		return
	}
	g.loading, g.err = true, ""
	webjs.FetchText(ctx, ctx.ResolveStaticResource(k.m.Gallery), func(ctx app.Context, text string, err error) {
		g.loading = false
		var items []gallery.Item
		if err == nil {
			err = json.Unmarshal([]byte(text), &items)
		}
		var rows [][]float32
		for _, d := range items {
			if err != nil {
				break
			}
			x := k.t.Carried(d.Carried())
			if x == nil || d.Pred < 0 || d.Pred >= k.m.Classes || d.Label < 0 || d.Label >= k.m.Classes {
				err = fmt.Errorf("test %s %d is not a row of these models", k.m.Noun, d.Index)
			}
			rows = append(rows, x)
		}
		if err != nil {
			g.err = "The gallery could not be loaded: " + err.Error() + "."
			return
		}
		g.items, g.rows = items, rows
	})
}

// galleryList is the gallery: a button per uncertain test row, with its entropy, the model's reading and the
// true label, and a few of its fields.
func (k *Table) galleryList(host inputkind.Host) app.UI {
	g := &k.gallery
	switch {
	case g.err != "":
		return app.P().ID("gallery-error").Class("error").Text(g.err)
	case g.items == nil:
		return app.P().Class("hint").Text("Loading the test " + k.nouns() + " the model is least sure of …")
	}
	return app.Range(g.items).Slice(func(j int) app.UI {
		d, x := g.items[j], g.rows[j]
		what := fmt.Sprintf("test %s %d", k.m.Noun, d.Index)
		title := fmt.Sprintf("%s: true label %s, the model says %s with H = %.2f", what, k.m.Class(d.Label), k.m.Class(d.Pred), d.H)
		head, reads := fmt.Sprintf("#%d · H %.2f", d.Index, d.H), fmt.Sprintf(" reads %s, is %s · ", k.m.Class(d.Pred), k.m.Class(d.Label))
		if k.m.Regression { // its classes are ranges of the prediction, its uncertainty σ
			title = fmt.Sprintf("%s: measured %s, the model predicts %s with σ = %.2f", what, k.m.Class(d.Label), k.m.Class(d.Pred), d.H)
			head, reads = fmt.Sprintf("#%d · σ %.2f", d.Index, d.H), fmt.Sprintf(" predicts %s, measured %s · ", k.m.Class(d.Pred), k.m.Class(d.Label))
		}
		return app.Button().Class("row-pick").Title(title).
			OnClick(func(ctx app.Context, _ app.Event) {
				k.Show(x)
				host.Take(ctx, x, fmt.Sprintf("%s (true label %s)", what, k.m.Class(d.Label)))
			}).Body(
			app.Strong().Text(head),
			app.Span().Text(reads+k.brief(x)),
		)
	})
}

// brief is a row's first few fields: "Seniority 9, Home rent, Time 60, …".
func (k *Table) brief(x []float32) string {
	row := k.t.Row(x)
	s := ""
	for i := 0; i < len(row) && i < 4; i++ {
		if i > 0 {
			s += ", "
		}
		s += k.m.Columns[i].Name + " " + k.t.Value(i, row[i])
	}
	if len(row) > 4 {
		s += ", …"
	}
	return s
}
