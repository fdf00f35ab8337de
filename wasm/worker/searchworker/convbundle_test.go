package searchworker

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/internal/testbundle"
	"github.com/deltaclue/deltaclue/weights"
)

// TestWorkerOnConvBundles: a worker handed a convolutional model's bundle (its own model.json, no anchors, no
// translations) says ready with the bundle's fingerprint, and answers an inspection and a search through the wire
// with the bits the engine gives natively; the warm-up runs on an image the model makes.
func TestWorkerOnConvBundles(t *testing.T) {
	shipped, _ := weights.ShippedFingerprint()
	for _, build := range []func(uint64) (*testbundle.Bundle, error){testbundle.Grey, testbundle.Colour} {
		b, err := build(3)
		if err != nil {
			t.Fatal(err)
		}
		name := b.Description.Name
		w, ready := NewFromBundle("v", b.Bytes)
		opened, err := weights.OpenBundleFiles(b.Bytes, false)
		if err != nil {
			t.Fatal(err)
		}
		if ready.Type != "ready" || ready.Fingerprint != opened.Fingerprint() || ready.Fingerprint == shipped {
			t.Fatalf("%s: %+v (the bundle's fingerprint %08x, the digits' %08x)", name, ready, opened.Fingerprint(), shipped)
		}
		w.WarmUp(4, 3, func(Response) {})
		x0 := w.models.VAE.DecodeImages(make([]float32, w.models.VAE.Latent))
		insp := roundTrip(t, w, Request{Type: "inspect", ID: 1, X0: x0})
		if len(insp) != 1 || insp[0].Inspection == nil || len(insp[0].Inspection.Reconstruction) != len(x0) {
			t.Fatalf("%s: the inspection: %+v", name, insp)
		}
		p := clue.Defaults()
		p.N, p.MaxSteps = 6, 10
		got := roundTrip(t, w, Request{Type: "explain", ID: 2, X0: x0, Params: &p})
		prob, err := clue.NewProblem(w.models, x0)
		if err != nil {
			t.Fatal(err)
		}
		want, err := clue.Search(context.Background(), prob, p, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		var exps []clue.Explanation
		for _, r := range got {
			exps = append(exps, r.Explanations...)
		}
		slices.SortFunc(exps, func(x, y clue.Explanation) int { return x.Restart - y.Restart }) // in the order they finished
		a, _ := json.Marshal(exps)
		c, _ := json.Marshal(want)
		if string(a) != string(c) {
			t.Errorf("%s: the worker's set through the wire differs from the native search:\n%.600s\n%.600s", name, a, c)
		}
		if last := got[len(got)-1]; last.Type != "done" {
			t.Errorf("%s: the search ended with %q", name, last.Type)
		}
	}
}
