// The input panel (1 · Your digit, or the models' noun): the drawing pad, the gallery of uncertain test inputs
// and the upload; its events make the image the input.

package app

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/app/core"
	"github.com/deltaclue/deltaclue/engine/clue/sharelink"
	"github.com/deltaclue/deltaclue/internal/picture"
	"github.com/deltaclue/deltaclue/mnist"
)

// inputView is what the input panel shows.
type inputView struct {
	Tab               string
	CanUndo, CanClear bool
	Live              bool
	Err               string
	Note              string
	Gallery           int    // the gallery's items, once loaded: the panel renders again when they come
	GalleryErr        string // why they could not be loaded
}

func (e *Explainer) inputView() inputView {
	return inputView{Tab: e.in.Tab, CanUndo: len(e.in.Strokes) > 0, CanClear: len(e.in.Strokes) > 0 || e.in.PadBase != nil,
		Live: e.in.Live, Err: e.in.Err, Note: e.in.Note, Gallery: len(e.models.gallery.items), GalleryErr: e.models.gallery.err}
}

// inputPanel is 1 · Your digit (the models' noun): the drawing pad, the gallery of uncertain test inputs and the
// upload.
type inputPanel struct {
	app.Compo
	Page *Explainer
	View inputView
}

func (p *inputPanel) Render() app.UI {
	defer rendered("input", time.Now())
	v, e := p.View, p.Page
	tab := func(id, label string) app.UI {
		return app.Button().Class("tab").ID("tab-"+id).Role("tab").Aria("selected", v.Tab == id).Text(label).
			OnClick(func(ctx app.Context, _ app.Event) {
				e.in.Tab = id
				if id == "gallery" {
					e.loadGallery(ctx)
				}
			})
	}
	m := served()
	pw, ph := padSize()
	return app.Section().ID("digit").Class("card digit").Body(
		app.H2().Text("1 · Your "+m.noun()),
		app.Div().Class("tabs").Role("tablist").Body(tabs(m, tab)...),
		app.Div().Class("tab-panel draw").Hidden(v.Tab != "draw").Body(
			app.Canvas().ID("pad").Class("pad").Width(pw).Height(ph).Aria("label", "drawing pad: draw "+m.aNoun()).
				On("pointerdown", e.padDown).On("pointermove", e.padMove).On("pointerup", e.padUp).On("pointercancel", e.padUp),
			app.Div().Class("row pad-tools").Body(
				app.If(m.colour(), func() app.UI {
					return app.Label().Class("check").Body(app.Text("ink "), app.Input().ID("ink").Type("color").Value(inkOr(e.in.Ink)).
						OnInput(func(ctx app.Context, _ app.Event) { e.in.Ink = ctx.JSSrc().Get("value").String() }))
				}),
				app.Button().ID("undo").Text("Undo").Disabled(!v.CanUndo).OnClick(e.undo),
				app.Button().ID("clear").Text("Clear").Disabled(!v.CanClear).OnClick(e.clearPad),
				app.Label().Class("check").Body(
					app.Input().ID("live").Type("checkbox").Checked(v.Live).Aria("describedby", "live-help").OnChange(func(ctx app.Context, _ app.Event) {
						e.in.Live = ctx.JSSrc().Get("checked").Bool()
						e.schedulePreview(ctx)
					}),
					app.Text(" live preview"),
				),
				app.Span().ID("live-help").Class("hint").Text(fmt.Sprintf("%d restarts after each stroke", PreviewRestarts)),
			),
		),
		// The gallery's thumbnails are made only while its tab is open: the prerendered page (index.html) would
		// otherwise carry them all for a tab a first visit may never open (7 KB of its 12 gzipped).
		app.Div().Class("tab-panel gallery").Hidden(v.Tab != "gallery").Body(
			app.If(v.Tab == "gallery", func() app.UI { return p.galleryThumbs() }),
		),
		app.Div().Class("tab-panel").Hidden(v.Tab != "upload").Body(
			app.Label().For("upload").Text(uploadHint(m)),
			app.Input().ID("upload").Type("file").Accept("image/*").OnChange(e.upload),
		),
		app.If(v.Err != "", func() app.UI { return app.P().ID("input-error").Class("error").Text(v.Err) }),
		app.If(v.Note != "", func() app.UI { return app.P().ID("input-note").Class("hint").Text(v.Note) }),
	)
}

// galleryThumbs is the gallery: a button per uncertain test item, its thumbnail and its entropy.
func (p *inputPanel) galleryThumbs() app.UI {
	e, m, g := p.Page, served(), &p.Page.models.gallery
	switch {
	case g.err != "":
		return app.P().ID("gallery-error").Class("error").Text(g.err)
	case g.items == nil:
		return app.P().Class("hint").Text("Loading the test " + m.nouns() + " the model is least sure of …")
	}
	return app.Range(g.items).Slice(func(i int) app.UI {
		d := g.items[i]
		what := fmt.Sprintf("test %s %d", m.noun(), d.Index)
		return app.Button().Class("thumb").Title(fmt.Sprintf("%s: true label %s, the model says %s with H = %.2f", what, m.class(d.Label), m.class(d.Pred), d.H)).
			OnClick(func(ctx app.Context, _ app.Event) {
				e.setInput(ctx, sharelink.Quantize(d.Image()), fmt.Sprintf("%s (true label %s)", what, m.class(d.Label)))
			}).Body(app.Img().Src(g.thumbs[i]).Alt(what), app.Span().Text(fmt.Sprintf("H %.2f", d.H)))
	})
}

// ---- event handlers ----

func (e *Explainer) padPoint(ev app.Event) core.Point {
	return core.Point{X: ev.Get("offsetX").Float(), Y: ev.Get("offsetY").Float()}
}

func (e *Explainer) padDown(ctx app.Context, ev app.Event) {
	ev.PreventDefault()
	ctx.JSSrc().Call("setPointerCapture", ev.Get("pointerId"))
	e.in.PenDown(e.padPoint(ev))
	redrawPad(e.in.PadBase, e.in.Strokes, e.in.Inks)
}

func (e *Explainer) padMove(ctx app.Context, ev app.Event) {
	ctx.PreventUpdate()
	if !e.in.PenMove(e.padPoint(ev)) {
		return
	}
	ev.PreventDefault()
	if c := padContext(); c != nil {
		s := e.in.Strokes[len(e.in.Strokes)-1]
		drawStroke(c, s[len(s)-2:], e.in.Ink)
	}
}

func (e *Explainer) padUp(ctx app.Context, ev app.Event) {
	if !e.in.PenUp() {
		ctx.PreventUpdate()
		return
	}
	e.padChanged(ctx)
}

func (e *Explainer) padChanged(ctx app.Context) {
	redrawPad(e.in.PadBase, e.in.Strokes, e.in.Inks)
	if e.in.BackToBase() { // back to the shared digit itself, not a redrawing of it
		e.setInput(ctx, sharelink.Quantize(e.in.PadBase), "the shared link")
		return
	}
	x, err := padInput()
	if err != nil {
		e.in.Drop()
		e.dropRun()
		e.clearResults(ctx)
		e.clearLink()
		ctx.Defer(e.repaintAmortised) // no input: no answers
		e.publish()
		return
	}
	e.setInput(ctx, sharelink.Quantize(x), e.in.DrawnSource())
	e.schedulePreview(ctx)
	e.answerFirst(ctx)
}

// answerFirst holds back the page's render of a new stroke (the set cleared, the link, the status) until the
// stroke's amortised answers have come (onWorker renders once they are painted), or holdRender has passed: that
// render and the browser's layout of it are 10–25 ms of the page's thread, and on two cores they delayed the
// answers, which need the thread to be heard and a core to be made on, by as much. The pad shows the stroke
// meanwhile.
func (e *Explainer) answerFirst(ctx app.Context) {
	if e.in.InspectAt < 0 { // no answers on their way
		return
	}
	e.models.amortised.hold(ctx)
}

func (e *Explainer) undo(ctx app.Context, _ app.Event) {
	if e.in.Undo() {
		e.padChanged(ctx)
	}
}

func (e *Explainer) clearPad(ctx app.Context, _ app.Event) {
	e.in.ClearPad()
	e.padChanged(ctx)
}

// showOnPad puts a shared link's digit on the pad, where it can be seen and drawn on.
func (e *Explainer) showOnPad(x []float32) {
	e.in.ShowOnPad(x)
	redrawPad(e.in.PadBase, nil, nil)
}

// clearLink takes the share link out of the address: there is no input left to share.
func (e *Explainer) clearLink() {
	l := app.Window().Get("location")
	app.Window().Get("history").Call("replaceState", nil, "", l.Get("pathname").String()+l.Get("search").String())
}

// Limits on an upload. A digit needs a few thousand pixels; a decoded image takes 4 bytes a pixel.
const (
	MaxUploadBytes  = 50 << 20
	MaxUploadPixels = 25_000_000
)

// upload reads an image file: its size and header first (so that an empty, foreign or huge file is refused with
// a sentence before anything is decoded), then the image, decoded and shrunk off the page's thread.
func (e *Explainer) upload(ctx app.Context, ev app.Event) {
	files := ctx.JSSrc().Get("files")
	if files.Length() == 0 {
		return
	}
	file := files.Index(0)
	name, m := file.Get("name").String(), served()
	switch size := file.Get("size").Int(); {
	case size == 0:
		e.in.Err = name + " is empty (0 bytes): choose an image of " + m.aNoun() + "."
		return
	case size > MaxUploadBytes:
		e.in.Err = fmt.Sprintf("%s is %.0f MB, more than the %d MB this page reads: %s needs far less, so crop or shrink it.",
			name, float64(size)/(1<<20), MaxUploadBytes>>20, m.aNoun())
		return
	}
	e.in.Err = ""
	promise(file.Call("slice", 0, 256<<10).Call("arrayBuffer"), func(buf app.Value) {
		w, h, format, err := mnist.ImageSize(bytesOf(buf))
		ctx.Dispatch(func(ctx app.Context) {
			switch {
			case err != nil:
				e.in.Err = (&mnist.FileError{Name: name, Err: err, Noun: m.noun()}).Error()
			case int64(w)*int64(h) > MaxUploadPixels:
				e.in.Err = fmt.Sprintf("%s is a %s of %d×%d pixels, too large to decode here (at most %d megapixels): "+
					"%s needs far fewer, so crop or shrink it.", name, strings.ToUpper(format), w, h, MaxUploadPixels/1_000_000, m.aNoun())
			default:
				e.decodeUpload(ctx, file, name, w, h)
			}
		})
	}, func(msg string) {
		ctx.Dispatch(func(app.Context) {
			e.in.Err = (&mnist.FileError{Name: name, Err: errors.New(msg), Noun: m.noun()}).Error()
		})
	})
}

// decodeUpload decodes an image of w×h pixels shrunk to at most 1024 on a side (createImageBitmap works off the
// page's thread), and makes it the input (picture.Fit: the digits' is MNIST's preprocessing).
func (e *Explainer) decodeUpload(ctx app.Context, file app.Value, name string, w, h int) {
	scale := min(1, 1024/float64(max(w, h)))
	cw, ch := max(1, int(float64(w)*scale)), max(1, int(float64(h)*scale))
	opts := map[string]any{"resizeWidth": cw, "resizeHeight": ch, "resizeQuality": "high"}
	promise(app.Window().Call("createImageBitmap", file, opts), func(bitmap app.Value) {
		c := app.Window().Get("document").Call("createElement", "canvas")
		c.Set("width", cw)
		c.Set("height", ch)
		c2d := readableCanvas2d(c)
		c2d.Call("drawImage", bitmap, 0, 0)
		bitmap.Call("close")
		x, steps, err := picture.FitSteps(canvasImage(c2d, cw, ch), cw, ch, served().Input)
		steps.From = [2]int{w, h} // the file's size, before it was shrunk to decode
		ctx.Dispatch(func(ctx app.Context) {
			if err != nil {
				e.in.Err = (&mnist.FileError{Name: name, Err: err, Noun: served().noun()}).Error()
				return
			}
			e.setInput(ctx, sharelink.Quantize(x), name)
			e.in.Note = steps.Sentence(name, served().noun())
		})
	}, func(string) {
		ctx.Dispatch(func(app.Context) {
			e.in.Err = name + " could not be decoded: it is damaged, or in a form this browser cannot read."
		})
	})
}

// promise calls ok with a JavaScript promise's value or fail with its error's text, releasing its callbacks.
func promise(p app.Value, ok func(app.Value), fail func(string)) {
	var then, catch app.Func
	release := func() {
		then.Release()
		catch.Release()
	}
	then = funcOf(func(_ app.Value, args []app.Value) any {
		defer release()
		ok(args[0])
		return nil
	})
	catch = funcOf(func(_ app.Value, args []app.Value) any {
		defer release()
		msg := "unknown error"
		if len(args) > 0 && !args[0].IsUndefined() && !args[0].IsNull() {
			msg = args[0].Call("toString").String()
		}
		fail(msg)
		return nil
	})
	p.Call("then", then, catch)
}

// inkOr is the pad's ink colour, white when none was chosen.
func inkOr(ink string) string {
	if ink == "" {
		return "#ffffff"
	}
	return ink
}

// uploadHint says what an upload should be for the models.
func uploadHint(m *pageModel) string {
	if m.colour() {
		return "An image of " + m.aNoun() + ", any size (it is resized to " + fmt.Sprintf("%d×%d", m.Width, m.Height) + "):"
	}
	return "An image of one " + m.noun() + ", any size; dark on light or light on dark:"
}

// newInput is a blank input; for models whose inputs one would not draw (weights.Input.PickFirst), their test
// items are offered first (or the upload, when the site has none).
func newInput() core.Input {
	in, m := core.NewInput(), served()
	if m.PickFirst {
		in.Tab = "upload"
		if m.hasGallery() {
			in.Tab = "gallery"
		}
	}
	return in
}

// tabs are the input's tabs in the order the models want them: models whose inputs one would not draw with a
// mouse (a shoe; weights.Input.PickFirst) offer their test items and uploads before the pad.
func tabs(m *pageModel, tab func(id, label string) app.UI) []app.UI {
	var ts []app.UI
	if !m.PickFirst {
		ts = append(ts, tab("draw", "Draw"))
	}
	if m.hasGallery() {
		ts = append(ts, tab("gallery", "Uncertain "+m.nouns()))
	}
	ts = append(ts, tab("upload", "Upload"))
	if m.PickFirst {
		ts = append(ts, tab("draw", "Draw"))
	}
	return ts
}
