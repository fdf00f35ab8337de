package searchworker

import (
	"testing"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/weights"
)

// BenchmarkNewFromHashedBundle is a worker's start when the page matched the bundle's SHA-256 natively.
func BenchmarkNewFromHashedBundle(b *testing.B) {
	bundle := weights.ShippedBundle()
	for b.Loop() {
		if _, r := NewFromHashedBundle("bench", bundle); r.Type != "ready" {
			b.Fatal(r.Error)
		}
	}
}

// BenchmarkOpenBundle, BenchmarkLoadModels and BenchmarkFingerprint are the parts of a worker's start.
func BenchmarkOpenBundle(b *testing.B) {
	bundle := weights.ShippedBundle()
	for b.Loop() {
		if _, _, _, err := weights.OpenBundle(bundle); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLoadModels(b *testing.B) {
	vae, bnn, anchors, err := weights.OpenBundle(weights.ShippedBundle())
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := clue.LoadModels(vae, bnn, anchors); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFingerprint(b *testing.B) {
	vae, bnn, anchors, err := weights.OpenBundle(weights.ShippedBundle())
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		weights.Fingerprint(vae, bnn, anchors)
	}
}
