package raster

import (
	"bytes"
	"image/png"
	"testing"
)

// TestPNGReadsBack: Go's own PNG decoder reads PNG's output back to the same pixels, for images of odd sizes and
// for one large enough that the deflated stream spans many blocks.
func TestPNGReadsBack(t *testing.T) {
	for _, size := range [][2]int{{1, 1}, {37, 5}, {640, 480}} {
		m := New(size[0], size[1])
		for i := range m.Pix {
			m.Pix[i] = uint8((i*i + 7*i) >> 3) // no run long enough to compress away
		}
		FillRect(m, 3, 1, 20, 4, RGB{10, 200, 30})
		DrawText(m, 2, 2, "δ-CLUE 0.25", 2, Grey)
		img, err := png.Decode(bytes.NewReader(PNG(m)))
		if err != nil {
			t.Fatalf("%v: %v", size, err)
		}
		if b := img.Bounds(); b.Dx() != m.W || b.Dy() != m.H {
			t.Fatalf("%v: decoded %v", size, b)
		}
		for y := 0; y < m.H; y++ {
			for x := 0; x < m.W; x++ {
				r, g, b, a := img.At(x, y).RGBA()
				if c := m.At(x, y); uint8(r>>8) != c.R || uint8(g>>8) != c.G || uint8(b>>8) != c.B || a != 0xffff {
					t.Fatalf("%v: pixel (%d, %d) decodes to %d %d %d %d, drawn %v", size, x, y, r>>8, g>>8, b>>8, a>>8, c)
				}
			}
		}
	}
}
