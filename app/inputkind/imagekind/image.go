// Package imagekind is the page's one kind of input today (package inputkind): images, drawn on a pad, picked
// among the test items the models are least sure of, or uploaded; shown as pixels on canvases. The pad's state
// is plain Go (pad.go), tested natively.
package imagekind

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/app/hostmsg"
	"github.com/deltaclue/deltaclue/app/inputkind"
	"github.com/deltaclue/deltaclue/engine"
	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/kind"
	"github.com/deltaclue/deltaclue/engine/clue/raster"
	"github.com/deltaclue/deltaclue/internal/plural"
	"github.com/deltaclue/deltaclue/weights"
)

// Models is what the kind needs to know of the served models.
type Models struct {
	Input weights.Input
	inputkind.Served
}

// Image is the images' kind: the pad, the gallery and the upload, and the canvases that show images.
type Image struct {
	shape raster.Shape // what it draws in the PNG figures (kind.Image's methods, written out: embedded, their
	// promoted copies at every level cost app.wasm several KB)
	m       Models
	pad     Pad
	gallery galleryState
	cell    []byte // the last grid cell's pixels (DrawCell), written over by the next
}

var _ inputkind.Kind = (*Image)(nil)

// New is the kind for the images of models m.
func New(m Models) *Image { return &Image{shape: kind.ImageOf(m.Input).Shape, m: m} }

// Carry and Carried are kind.Image's: an image is carried as its values quantised to k/255.
func (i *Image) Carry(x []float32) []uint8   { return kind.Image{}.Carry(x) }
func (i *Image) Carried(q []uint8) []float32 { return kind.Image{}.Carried(q) }

// Check finds nothing: a link's image was checked against its shape as the link was read. Describe is
// clue.Words.Describe.
func (i *Image) Check([]uint8) error { return nil }
func (i *Image) Describe(w clue.Words, x0 []float32, pred0 engine.Uncertainty, exps []clue.Explanation, s clue.Summary, p clue.Params) string {
	return w.Describe(pred0, exps, s, p)
}

// Fit, Size, Draw, DrawDiff and Changes draw images in the PNG figures (raster.Shape's).
func (i *Image) Fit(side int) int          { return i.shape.Fit(side) }
func (i *Image) Size(scale int) (w, h int) { return i.shape.Size(scale) }
func (i *Image) Draw(img *raster.Image, x0, y0 int, x []float32, scale int) {
	raster.DrawInput(img, x0, y0, x, i.shape, scale)
}
func (i *Image) DrawDiff(img *raster.Image, x0, y0 int, orig, e []float32, scale int) {
	raster.DrawDiff(img, x0, y0, orig, e, i.shape, scale)
}
func (i *Image) Changes() (added, removed string) { return i.shape.Changes() }

func (i *Image) noun() string  { return i.m.Noun }
func (i *Image) nouns() string { return plural.Word(2, i.m.Noun) }
func (i *Image) aNoun() string { return plural.A(i.m.Noun) }
func (i *Image) colour() bool  { return i.m.Input.Channels == 3 }
func (i *Image) size() int     { return i.m.Input.Height * i.m.Input.Width * i.m.Input.Channels }

// Tabs are Draw, the gallery (when the site has one) and Upload; models whose inputs one would not draw with a
// mouse (a shoe; weights.Input.PickFirst) offer their test items and uploads before the pad.
func (i *Image) Tabs() []inputkind.Tab {
	var ts []inputkind.Tab
	if !i.m.Input.PickFirst {
		ts = append(ts, inputkind.Tab{ID: "draw", Label: "Draw"})
	}
	if i.m.Gallery != "" {
		ts = append(ts, inputkind.Tab{ID: "gallery", Label: "Uncertain " + i.nouns()})
	}
	ts = append(ts, inputkind.Tab{ID: "upload", Label: "Upload"})
	if i.m.Input.PickFirst {
		ts = append(ts, inputkind.Tab{ID: "draw", Label: "Draw"})
	}
	return ts
}

// Open loads the gallery when its tab is opened.
func (i *Image) Open(ctx app.Context, tab string) {
	if tab == "gallery" {
		i.loadGallery(ctx)
	}
}

// Entry is the pad, the gallery and the upload, the open one shown.
func (i *Image) Entry(host inputkind.Host, open string) []app.UI {
	return []app.UI{
		i.drawPanel(host, open == "draw"),
		// The gallery's thumbnails are made only while its tab is open: the prerendered page (index.html) would
		// otherwise carry them all for a tab a first visit may never open (7 KB of its 12 gzipped).
		app.Div().Class("tab-panel gallery").Hidden(open != "gallery").Body(
			app.If(open == "gallery", func() app.UI { return i.galleryThumbs(host) }),
		),
		app.Div().Class("tab-panel").Hidden(open != "upload").Body(
			app.Label().For("upload").Text(i.uploadHint()),
			app.Input().ID("upload").Type("file").Accept("image/*").OnChange(func(ctx app.Context, _ app.Event) { i.upload(ctx, host) }),
		),
	}
}

// entryState is what the entry shows beyond the input.
type entryState struct {
	CanUndo, CanClear bool
	Gallery           int    // the gallery's items, once loaded
	GalleryErr        string // why they could not be loaded
}

// EntryState is whether Undo and Clear have something to take, and the gallery's items.
func (i *Image) EntryState() any {
	return entryState{CanUndo: i.pad.CanUndo(), CanClear: i.pad.CanClear(), Gallery: len(i.gallery.items), GalleryErr: i.gallery.err}
}

// Show puts an image on the pad, where it can be seen and drawn on.
func (i *Image) Show(x []float32) string {
	i.pad.Show(x)
	i.redrawPad()
	return "draw"
}

// Blank paints the pad blank.
func (i *Image) Blank() { i.redrawPad() }

// Phrase is the images' words for the page's phrases.
func (i *Image) Phrase(p inputkind.Phrase) string {
	gallery := i.m.Gallery != ""
	switch p {
	case inputkind.AnswerHint:
		if !gallery {
			return "Draw or upload " + i.aNoun() + ": the answer comes here."
		}
		return "Draw " + i.aNoun() + ", or pick one of the test " + i.nouns() + " the model is least sure of: the answer comes here."
	case inputkind.ModelHint:
		if !gallery {
			return "Draw " + i.aNoun() + " or upload one."
		}
		return "Draw " + i.aNoun() + ", pick one or upload one."
	case inputkind.WhileLoading:
		return "draw, pick or upload " + i.aNoun()
	case inputkind.ChangeLegend:
		return "ink added in blue, removed in orange"
	}
	return ""
}

// ReadHost reads deltaclue:open, and deltaclue:digit or deltaclue:image for these models' images.
func (i *Image) ReadHost(text string) (hostmsg.Message, bool, error) {
	in := i.m.Input
	return hostmsg.Read(text, hostmsg.Shape{Height: in.Height, Width: in.Width, Channels: in.Channels})
}
