// The input: the image being explained, how it was made (strokes on the pad over a shared link's image, a
// gallery image, an upload), and the models' view of it, asked of a worker.

package core

import (
	"github.com/deltaclue/deltaclue/engine/clue/sharelink"
	"github.com/deltaclue/deltaclue/wasm/worker/searchworker"
)

// Point is a point of a stroke on the pad, in the pad's pixels.
type Point struct{ X, Y float64 }

// Input is the image the page explains and the pad it may be drawn on.
type Input struct {
	Tab     string                   // "draw", "gallery" or "upload"
	Strokes [][]Point                // on the pad, in order (Undo takes the last)
	Inks    []string                 // each stroke's colour (CSS), as Strokes
	Ink     string                   // the colour the next stroke is drawn in ("": white)
	PadBase []float32                // a shared link's image, under the strokes on the pad (nil: a blank pad)
	Drawing bool                     // a stroke is under way
	Live    bool                     // a preview after every stroke
	X0      []float32                // the input, quantised to k/255 (what a share link carries); nil: none
	Source  string                   // where it came from, in words
	Err     string                   // why the last image could not be the input
	Note    string                   // what was done to an upload to make it the input ("" for none)
	Inspect *searchworker.Inspection // the models' view of X0, once a worker answered

	InspectSeq int // inspect requests carry ID −InspectSeq: an answer about an earlier input is ignored
	InspectAt  int // the worker asked and not answered yet, or −1: if it is replaced, the question goes again
}

// NewInput is a blank pad, live previews on.
func NewInput() Input { return Input{Tab: "draw", Live: true, InspectAt: -1} }

// Take makes a quantised image the input: the models' view of the previous one no longer holds.
func (in *Input) Take(q []uint8, source string) {
	s := sharelink.State{Image: q}
	in.X0, in.Source, in.Inspect, in.Err, in.Note = s.Float(), source, nil, "", ""
}

// Drop forgets the input (a pad cleared to nothing).
func (in *Input) Drop() {
	in.X0, in.Inspect, in.Err = nil, nil, ""
}

// Ask is the request for the models' view of the input, to worker k (the first ready one), if there is an
// input and a ready worker.
func (in *Input) Ask(ready []int) (Post, bool) {
	if in.X0 == nil || len(ready) == 0 {
		return Post{}, false
	}
	in.InspectSeq++
	in.InspectAt = ready[0]
	return Post{Worker: ready[0], Request: searchworker.Request{Type: "inspect", ID: -in.InspectSeq, X0: in.X0}}, true
}

// AskAgain says whether worker k, just ready, should be asked for the models' view: there is an input with no
// view, and no question is out, or the one out went to the worker k replaces.
func (in *Input) AskAgain(k int) bool {
	return in.X0 != nil && in.Inspect == nil && (in.InspectAt < 0 || in.InspectAt == k)
}

// Inspected takes a worker's view of the input answered under id; it says whether it is about this input.
func (in *Input) Inspected(id int, v *searchworker.Inspection) bool {
	if id != -in.InspectSeq || v == nil {
		return false
	}
	in.InspectAt, in.Inspect = -1, v
	return true
}

// Refused takes a worker's error about an input request (id < 0): the question is no longer out if it was the
// last one, and the message is shown.
func (in *Input) Refused(id int, msg string) {
	if id == -in.InspectSeq {
		in.InspectAt = -1
	}
	in.Err = msg
}

// PenDown starts a stroke at p.
func (in *Input) PenDown(p Point) {
	in.Drawing = true
	in.Strokes = append(in.Strokes, []Point{p})
	in.Inks = append(in.Inks, in.Ink)
}

// PenMove extends the stroke under way to p, and says whether there is one.
func (in *Input) PenMove(p Point) bool {
	if !in.Drawing || len(in.Strokes) == 0 {
		return false
	}
	last := &in.Strokes[len(in.Strokes)-1]
	*last = append(*last, p)
	return true
}

// PenUp ends the stroke under way, and says whether there was one.
func (in *Input) PenUp() bool {
	was := in.Drawing
	in.Drawing = false
	return was
}

// Undo takes the last stroke back, and says whether there was one.
func (in *Input) Undo() bool {
	if len(in.Strokes) == 0 {
		return false
	}
	in.Strokes = in.Strokes[:len(in.Strokes)-1]
	in.Inks = in.Inks[:len(in.Strokes)]
	return true
}

// ClearPad takes every stroke and the shared link's image off the pad.
func (in *Input) ClearPad() { in.Strokes, in.Inks, in.PadBase = nil, nil, nil }

// ShowOnPad puts an image (a shared link's) on the pad, where it can be seen and drawn on.
func (in *Input) ShowOnPad(x []float32) {
	in.Tab, in.Strokes, in.Inks, in.PadBase = "draw", nil, nil, x
}

// BackToBase says whether the pad shows the shared link's image with nothing drawn on it: the input is then
// that image itself, not a redrawing of it.
func (in *Input) BackToBase() bool { return len(in.Strokes) == 0 && in.PadBase != nil }

// DrawnSource is the source of an image drawn on the pad.
func (in *Input) DrawnSource() string {
	if in.PadBase != nil {
		return "the shared link's image, redrawn"
	}
	return "a drawing"
}
