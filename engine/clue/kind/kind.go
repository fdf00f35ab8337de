// Package kind is what the CLI, the share link and the figures know of a kind of input: how an input is
// carried in a share link and how it, and what an explanation changes in it, are drawn in a PNG. Images are
// its one kind today; a table's row is the next (docs/input-kinds.md). The page's own view of a kind
// (app/inputkind) adds how an input is entered and shown in the browser, and embeds this one.
package kind

import (
	"fmt"

	"github.com/deltaclue/deltaclue/engine"
	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/raster"
	"github.com/deltaclue/deltaclue/engine/clue/sharelink"
	"github.com/deltaclue/deltaclue/weights"
)

// Kind is a kind of input outside the page.
type Kind interface {
	// Drawer draws an input, and an explanation's change to it, in the PNG figures.
	raster.Drawer
	// Carry is input x as a share link carries it; Carried is the input a link's bytes give. Carried(Carry(x))
	// is what the page explains, so that a link opens on the very same input, bit for bit.
	Carry(x []float32) []uint8
	Carried(q []uint8) []float32
	// Check says why q cannot be an input of this kind as a link carries it (a row that does not fit the
	// table), or nil.
	Check(q []uint8) error
	// Describe says a set of explanations of x0 in words (clue.Words.Describe for an image; a row's changes
	// named for a table).
	Describe(w clue.Words, x0 []float32, pred0 engine.Uncertainty, exps []clue.Explanation, s clue.Summary, p clue.Params) string
}

// Of is the kind of the inputs a model description takes.
func Of(in weights.Input) Kind {
	if in.IsTable() {
		return TableOf(in)
	}
	return ImageOf(in)
}

// Image is the kind of images of a shape: drawn pixel by pixel, carried as k/255 intensities.
type Image struct{ raster.Shape }

// ImageOf is the kind of a description's images.
func ImageOf(in weights.Input) Image {
	return Image{raster.Shape{Height: in.Height, Width: in.Width, Channels: in.Channels}}
}

// Carry quantises x to k/255 (sharelink.Quantize).
func (Image) Carry(x []float32) []uint8 { return sharelink.Quantize(x) }

// Check says why q is not an image of this shape.
func (i Image) Check(q []uint8) error {
	if n := i.Height * i.Width * i.Channels; len(q) != n {
		return fmt.Errorf("its image has %d values where the models' has %d", len(q), n)
	}
	return nil
}

// Describe is clue.Words.Describe.
func (Image) Describe(w clue.Words, _ []float32, pred0 engine.Uncertainty, exps []clue.Explanation, s clue.Summary, p clue.Params) string {
	return w.Describe(pred0, exps, s, p)
}

// Carried is the image of a link's k/255 intensities.
func (Image) Carried(q []uint8) []float32 {
	s := sharelink.State{Image: q}
	return s.Float()
}
