package raster

// Drawer draws one kind of input in a figure: an image as its pixels (Shape), a table's row, next, as its
// fields in words. Summary and the CLI's figures draw inputs only through it (docs/input-kinds.md).
type Drawer interface {
	// Fit is the magnification that draws an input about side px on its longer side (at least 1).
	Fit(side int) int
	// Size is an input's size drawn at magnification scale.
	Size(scale int) (w, h int)
	// Draw paints input x at (x0, y0), magnified by scale.
	Draw(img *Image, x0, y0 int, x []float32, scale int)
	// DrawDiff paints what e changes in orig at (x0, y0), magnified by scale, in two colours (AddedColour and
	// RemovedColour).
	DrawDiff(img *Image, x0, y0 int, orig, e []float32, scale int)
	// Changes names DrawDiff's two colours, for a legend: what e adds to the input and what it takes away.
	Changes() (added, removed string)
}

// Shape draws images: ink (one channel) dark on white, colour as it is; the change as ink added and removed.
var _ Drawer = Shape{}

// Fit is the whole factor that shows an image about side px on its longer side (at least 1).
func (s Shape) Fit(side int) int {
	longer := max(s.Height, s.Width)
	return max(1, (side+longer/2)/longer)
}

// Size is the image magnified by scale.
func (s Shape) Size(scale int) (w, h int) { return s.Width * scale, s.Height * scale }

// Draw is DrawInput.
func (s Shape) Draw(img *Image, x0, y0 int, x []float32, scale int) {
	DrawInput(img, x0, y0, x, s, scale)
}

// DrawDiff is DrawDiff.
func (s Shape) DrawDiff(img *Image, x0, y0 int, orig, e []float32, scale int) {
	DrawDiff(img, x0, y0, orig, e, s, scale)
}

// Changes are ink added and ink removed.
func (Shape) Changes() (added, removed string) { return "ink added", "ink removed" }

// AddedColour and RemovedColour are DrawDiff's colours (a pair colour-blind readers tell apart).
var AddedColour, RemovedColour = addedInk, removedInk
