package imagekind

// The upload: an image file read, decoded off the page's thread and made the input.

import (
	"errors"
	"fmt"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/app/inputkind"
	"github.com/deltaclue/deltaclue/app/webjs"
	"github.com/deltaclue/deltaclue/internal/picture"
	"github.com/deltaclue/deltaclue/mnist"
)

// Limits on an upload. A digit needs a few thousand pixels; a decoded image takes 4 bytes a pixel.
const (
	MaxUploadBytes  = 50 << 20
	MaxUploadPixels = 25_000_000
)

// upload reads an image file: its size and header first (so that an empty, foreign or huge file is refused with
// a sentence before anything is decoded), then the image, decoded and shrunk off the page's thread.
func (i *Image) upload(ctx app.Context, host inputkind.Host) {
	files := ctx.JSSrc().Get("files")
	if files.Length() == 0 {
		return
	}
	file := files.Index(0)
	name := file.Get("name").String()
	switch size := file.Get("size").Int(); {
	case size == 0:
		host.Fault(name + " is empty (0 bytes): choose an image of " + i.aNoun() + ".")
		return
	case size > MaxUploadBytes:
		host.Fault(fmt.Sprintf("%s is %.0f MB, more than the %d MB this page reads: %s needs far less, so crop or shrink it.",
			name, float64(size)/(1<<20), MaxUploadBytes>>20, i.aNoun()))
		return
	}
	host.Fault("")
	webjs.Promise(file.Call("slice", 0, 256<<10).Call("arrayBuffer"), func(buf app.Value) {
		w, h, format, err := mnist.ImageSize(webjs.Bytes(buf))
		ctx.Dispatch(func(ctx app.Context) {
			switch {
			case err != nil:
				host.Fault((&mnist.FileError{Name: name, Err: err, Noun: i.noun()}).Error())
			case int64(w)*int64(h) > MaxUploadPixels:
				host.Fault(fmt.Sprintf("%s is a %s of %d×%d pixels, too large to decode here (at most %d megapixels): "+
					"%s needs far fewer, so crop or shrink it.", name, strings.ToUpper(format), w, h, MaxUploadPixels/1_000_000, i.aNoun()))
			default:
				i.decodeUpload(ctx, host, file, name, w, h)
			}
		})
	}, func(msg string) {
		ctx.Dispatch(func(app.Context) {
			host.Fault((&mnist.FileError{Name: name, Err: errors.New(msg), Noun: i.noun()}).Error())
		})
	})
}

// decodeUpload decodes an image of w×h pixels shrunk to at most 1024 on a side (createImageBitmap works off the
// page's thread), and makes it the input (picture.Fit: the digits' is MNIST's preprocessing).
func (i *Image) decodeUpload(ctx app.Context, host inputkind.Host, file app.Value, name string, w, h int) {
	scale := min(1, 1024/float64(max(w, h)))
	cw, ch := max(1, int(float64(w)*scale)), max(1, int(float64(h)*scale))
	opts := map[string]any{"resizeWidth": cw, "resizeHeight": ch, "resizeQuality": "high"}
	webjs.Promise(app.Window().Call("createImageBitmap", file, opts), func(bitmap app.Value) {
		c := app.Window().Get("document").Call("createElement", "canvas")
		c.Set("width", cw)
		c.Set("height", ch)
		c2d := webjs.ReadableCanvas2d(c)
		c2d.Call("drawImage", bitmap, 0, 0)
		bitmap.Call("close")
		x, steps, err := picture.FitSteps(webjs.CanvasImage(c2d, cw, ch), cw, ch, i.m.Input)
		steps.From = [2]int{w, h} // the file's size, before it was shrunk to decode
		ctx.Dispatch(func(ctx app.Context) {
			if err != nil {
				host.Fault((&mnist.FileError{Name: name, Err: err, Noun: i.noun()}).Error())
				return
			}
			host.Take(ctx, x, name)
			host.Note(steps.Sentence(name, i.noun()))
		})
	}, func(string) {
		ctx.Dispatch(func(app.Context) {
			host.Fault(name + " could not be decoded: it is damaged, or in a form this browser cannot read.")
		})
	})
}

// uploadHint says what an upload should be for the models.
func (i *Image) uploadHint() string {
	if i.colour() {
		return "An image of " + i.aNoun() + ", any size (it is resized to " + fmt.Sprintf("%d×%d", i.m.Input.Width, i.m.Input.Height) + "):"
	}
	return "An image of one " + i.noun() + ", any size; dark on light or light on dark:"
}
