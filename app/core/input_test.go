package core

import (
	"testing"

	"github.com/deltaclue/deltaclue/engine/clue/kind"
	"github.com/deltaclue/deltaclue/engine/clue/sharelink"
	"github.com/deltaclue/deltaclue/wasm/worker/searchworker"
	"github.com/deltaclue/deltaclue/weights"
)

func TestInputAsksForTheModelsViewOnce(t *testing.T) {
	in := NewInput("draw")
	if _, ok := in.Ask([]int{0}); ok {
		t.Fatal("asked about no input")
	}
	var q [sharelink.Pixels]uint8
	q[100] = 255
	in.Take(image.Carried(q[:]), "a drawing")
	if in.X0[100] != 1 || in.Source != "a drawing" {
		t.Fatalf("taken: x0[100] %v, source %q", in.X0[100], in.Source)
	}
	if _, ok := in.Ask(nil); ok {
		t.Error("asked with no worker ready")
	}
	first, ok := in.Ask([]int{1, 0})
	if !ok || first.Worker != 1 || first.Request.Type != "inspect" || first.Request.ID >= 0 || in.InspectAt != 1 {
		t.Fatalf("the question: %+v, ok %v, at %d", first, ok, in.InspectAt)
	}
	// Worker 1 dies with the question out: its replacement is asked again, another worker is not.
	if in.AskAgain(0) || !in.AskAgain(1) {
		t.Errorf("ask again: worker 0 %v, worker 1 %v", in.AskAgain(0), in.AskAgain(1))
	}
	// A new input while the first question is out: the first answer is about another digit.
	q[200] = 128
	in.Take(image.Carried(q[:]), "a drawing")
	second, _ := in.Ask([]int{0})
	if in.Inspected(first.Request.ID, &searchworker.Inspection{}) || in.Inspect != nil {
		t.Error("an answer about the earlier input was taken")
	}
	if !in.Inspected(second.Request.ID, &searchworker.Inspection{}) || in.Inspect == nil || in.InspectAt != -1 {
		t.Errorf("the answer about this input: %+v", in)
	}
	if in.AskAgain(0) {
		t.Error("asked again with the view at hand")
	}
	// A refusal of the last question ends it and says why; a refusal of an older one only says why.
	in.Take(image.Carried(q[:]), "an upload")
	third, _ := in.Ask([]int{0})
	in.Refused(third.Request.ID-1, "older")
	if in.InspectAt != 0 || in.Err != "older" {
		t.Errorf("an older refusal: at %d, err %q", in.InspectAt, in.Err)
	}
	in.Refused(third.Request.ID, "refused")
	if in.InspectAt != -1 || in.Err != "refused" {
		t.Errorf("the refusal: at %d, err %q", in.InspectAt, in.Err)
	}
	in.Drop()
	if in.X0 != nil || in.Err != "" {
		t.Errorf("dropped: %+v", in)
	}
}

// image is the digits' kind of input, which the tests' inputs are.
var image = kind.ImageOf(weights.Input{Height: 28, Width: 28, Channels: 1})
