package searchworker

import (
	"testing"

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
