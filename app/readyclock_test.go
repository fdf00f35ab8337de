package app

import (
	"testing"

	"github.com/deltaclue/deltaclue/wasm/worker/searchworker"
)

// TestSaidAt checks how a ready message's own clock becomes the page's: the worker's time is taken only when
// it is after navigation and before the page heard it; anything else (no clock, a clock from before the page,
// a clock from the future, no origin) leaves the time the page heard it.
func TestSaidAt(t *testing.T) {
	const origin = 1_764_072_000_000.0
	for _, c := range []struct {
		name   string
		r      searchworker.Response
		at     float64
		origin float64
		want   float64
	}{
		{"the worker's clock", searchworker.Response{Type: "ready", At: origin + 640.5}, 1190, origin, 640.5},
		{"no clock", searchworker.Response{Type: "ready"}, 1190, origin, 1190},
		{"before the page", searchworker.Response{Type: "ready", At: origin - 5}, 1190, origin, 1190},
		{"after the page heard it", searchworker.Response{Type: "ready", At: origin + 1200}, 1190, origin, 1190},
		{"no origin", searchworker.Response{Type: "ready", At: origin + 640}, 1190, 0, 1190},
	} {
		if got := saidAt(c.r, c.at, c.origin); got != c.want {
			t.Errorf("%s: saidAt = %v, want %v", c.name, got, c.want)
		}
	}
}
