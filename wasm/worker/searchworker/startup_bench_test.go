package searchworker

import (
	"testing"

	"github.com/deltaclue/deltaclue/mnist"
	"github.com/deltaclue/deltaclue/weights"
)

// BenchmarkNewFromBundle is a worker's start-up work once its modules are instantiated: the models from the
// bundle, checked and decoded, and the engine built on them; "hashed" when the page matched the bundle's SHA-256
// natively (NewFromHashedBundle), as it does where the browser has SubtleCrypto. Natively the two are alike
// (SHA-256 has machine instructions); in WebAssembly the hashing was most of it.
func BenchmarkNewFromBundle(b *testing.B) {
	bundle := weights.ShippedBundle()
	for _, c := range []struct {
		name  string
		start func(string, []byte) (*Worker, Response)
	}{{"checked", NewFromBundle}, {"hashed", NewFromHashedBundle}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, r := c.start("bench", bundle); r.Type != "ready" {
					b.Fatal(r.Error)
				}
			}
		})
	}
}

// BenchmarkInspect is a worker's answer to a stroke: the models' view of test digit 1735 (its code, the BNN's
// p̄, the reconstruction and its label) and GLAM-CLUE's amortised answers, marshalled for the page.
func BenchmarkInspect(b *testing.B) {
	w, ready := NewFromBundle("bench", weights.ShippedBundle())
	if ready.Type != "ready" {
		b.Fatal(ready.Error)
	}
	set, err := mnist.HeldOut()
	if err != nil {
		b.Fatal(err)
	}
	req := Request{Type: "inspect", ID: 1, X0: set.Float(1735, nil)}
	for b.Loop() {
		w.Handle(req, func(r Response) {
			if r.Type != "inspected" || len(r.Inspection.Amortised) == 0 {
				b.Fatalf("%s %s: no amortised answers", r.Type, r.Error)
			}
			MarshalResponse(r)
		})
	}
}
