package kind

import (
	"testing"

	"github.com/deltaclue/deltaclue/weights"
)

func TestImagesAreCarriedAsTheirQuantisedValues(t *testing.T) {
	k := Of(weights.Input{Height: 2, Width: 2, Channels: 1})
	x := []float32{0, 0.5, 1, 0.2}
	q := k.Carry(x)
	back := k.Carried(q)
	if len(q) != 4 || q[2] != 255 || back[2] != 1 || back[0] != 0 {
		t.Fatalf("carried %v, back %v", q, back)
	}
	if again := k.Carried(k.Carry(back)); again[1] != back[1] || again[3] != back[3] {
		t.Errorf("carrying a carried input changed it: %v, %v", back, again)
	}
	if w, h := k.Size(k.Fit(56)); w != 56 || h != 56 {
		t.Errorf("a 2×2 image at about 56 px: %d×%d", w, h)
	}
}
