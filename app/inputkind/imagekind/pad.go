package imagekind

// The pad's state, in plain Go (no go-app, no JavaScript): tested natively, as the page's core is.

// Point is a point of a stroke on the pad, in the pad's pixels.
type Point struct{ X, Y float64 }

// Pad is what is drawn on the pad: strokes of ink over a base image (a shared link's, or none), kept as point
// lists so that Undo can redraw all but the last.
type Pad struct {
	Strokes [][]Point // in order (Undo takes the last)
	Inks    []string  // each stroke's colour (CSS), as Strokes
	Ink     string    // the colour the next stroke is drawn in ("": white)
	Base    []float32 // a shared link's image, under the strokes (nil: a blank pad)
	Drawing bool      // a stroke is under way
}

// PenDown starts a stroke at p.
func (p *Pad) PenDown(at Point) {
	p.Drawing = true
	p.Strokes = append(p.Strokes, []Point{at})
	p.Inks = append(p.Inks, p.Ink)
}

// PenMove extends the stroke under way to at, and says whether there is one.
func (p *Pad) PenMove(at Point) bool {
	if !p.Drawing || len(p.Strokes) == 0 {
		return false
	}
	last := &p.Strokes[len(p.Strokes)-1]
	*last = append(*last, at)
	return true
}

// PenUp ends the stroke under way, and says whether there was one.
func (p *Pad) PenUp() bool {
	was := p.Drawing
	p.Drawing = false
	return was
}

// Undo takes the last stroke back, and says whether there was one.
func (p *Pad) Undo() bool {
	if len(p.Strokes) == 0 {
		return false
	}
	p.Strokes = p.Strokes[:len(p.Strokes)-1]
	p.Inks = p.Inks[:len(p.Strokes)]
	return true
}

// Clear takes every stroke and the shared link's image off the pad.
func (p *Pad) Clear() { p.Strokes, p.Inks, p.Base = nil, nil, nil }

// Show puts an image (a shared link's) on the pad, where it can be seen and drawn on.
func (p *Pad) Show(x []float32) { p.Strokes, p.Inks, p.Base = nil, nil, x }

// BackToBase says whether the pad shows the shared link's image with nothing drawn on it: the input is then
// that image itself, not a redrawing of it.
func (p *Pad) BackToBase() bool { return len(p.Strokes) == 0 && p.Base != nil }

// CanUndo and CanClear say whether Undo and Clear have anything to take.
func (p *Pad) CanUndo() bool  { return len(p.Strokes) > 0 }
func (p *Pad) CanClear() bool { return len(p.Strokes) > 0 || p.Base != nil }

// DrawnSource is the source of an image drawn on the pad.
func (p *Pad) DrawnSource() string {
	if p.Base != nil {
		return "the shared link's image, redrawn"
	}
	return "a drawing"
}
