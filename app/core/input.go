// The input: what is being explained (an image today), where it came from, and the models' view of it, asked of
// a worker. How it is entered (an image's pad and its strokes) is its kind's (app/inputkind), not the core's.

package core

import (
	"github.com/deltaclue/deltaclue/wasm/worker/searchworker"
)

// Input is the input the page explains.
type Input struct {
	Tab     string                   // the way it is being entered (its kind's tab: "draw", "gallery" or "upload")
	Live    bool                     // a preview after every edit (a stroke)
	X0      []float32                // the input, as a share link carries it (its kind's Carried); nil: none
	Source  string                   // where it came from, in words
	Err     string                   // why the last image could not be the input
	Note    string                   // what was done to an upload to make it the input ("" for none)
	Inspect *searchworker.Inspection // the models' view of X0, once a worker answered

	InspectSeq int // inspect requests carry ID −InspectSeq: an answer about an earlier input is ignored
	InspectAt  int // the worker asked and not answered yet, or −1: if it is replaced, the question goes again
}

// NewInput is no input, entered first by tab, live previews on.
func NewInput(tab string) Input { return Input{Tab: tab, Live: true, InspectAt: -1} }

// Take makes x the input (as a share link carries it: its kind's Carried): the models' view of the previous
// one no longer holds.
func (in *Input) Take(x []float32, source string) {
	in.X0, in.Source, in.Inspect, in.Err, in.Note = x, source, nil, "", ""
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
