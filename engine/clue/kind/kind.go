// Package kind is what the CLI, the share link and the figures know of a kind of input: how an input is
// carried in a share link and how it, and what an explanation changes in it, are drawn in a PNG. Images are
// its one kind today; a table's row is the next (docs/input-kinds.md). The page's own view of a kind
// (app/inputkind) adds how an input is entered and shown in the browser, and embeds this one.
package kind

import (
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
}

// Of is the kind of the inputs a model description takes.
func Of(in weights.Input) Kind { return ImageOf(in) }

// Image is the kind of images of a shape: drawn pixel by pixel, carried as k/255 intensities.
type Image struct{ raster.Shape }

// ImageOf is the kind of a description's images.
func ImageOf(in weights.Input) Image {
	return Image{raster.Shape{Height: in.Height, Width: in.Width, Channels: in.Channels}}
}

// Carry quantises x to k/255 (sharelink.Quantize).
func (Image) Carry(x []float32) []uint8 { return sharelink.Quantize(x) }

// Carried is the image of a link's k/255 intensities.
func (Image) Carried(q []uint8) []float32 {
	s := sharelink.State{Image: q}
	return s.Float()
}
