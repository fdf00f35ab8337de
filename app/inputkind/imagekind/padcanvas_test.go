package imagekind

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// padRGBAPerPixel is the pad's enlargement as first written, one pixel at a time with its four clamped
// neighbours: the reference the faster padRGBA must match byte for byte, since a stroke drawn over a shared
// digit is read back from these pixels into the input.
func padRGBAPerPixel(x []float32) []byte {
	const scale = PadSide / 28
	at := func(r, c int) float32 {
		if r < 0 || c < 0 || r >= 28 || c >= 28 {
			return 0
		}
		return min(max(x[r*28+c], 0), 1)
	}
	out := make([]byte, PadSide*PadSide*4)
	for py := 0; py < PadSide; py++ {
		v := (float32(py)+0.5)/scale - 0.5
		r := int(v+1) - 1
		fy := v - float32(r)
		for px := 0; px < PadSide; px++ {
			u := (float32(px)+0.5)/scale - 0.5
			c := int(u+1) - 1
			fx := u - float32(c)
			i := (1-fy)*((1-fx)*at(r, c)+fx*at(r, c+1)) + fy*((1-fx)*at(r+1, c)+fx*at(r+1, c+1))
			g := byte(255*i + 0.5)
			o := (py*PadSide + px) * 4
			out[o], out[o+1], out[o+2], out[o+3] = g, g, g, 255
		}
	}
	return out
}

func TestPadRGBAMatchesThePerPixelEnlargement(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for k := range 50 {
		x := make([]float32, 784)
		for i := range x {
			switch r.IntN(4) {
			case 0: // out of range both ways: the clamp
				x[i] = r.Float32()*3 - 1
			case 1:
				x[i] = float32(r.IntN(256)) / 255 // a quantised link's value
			default:
				x[i] = r.Float32()
			}
		}
		if k == 0 {
			for i := range x {
				x[i] = 1 // ink to the edges: the border of zeros
			}
		}
		if got, want := digits.padRGBA(x), padRGBAPerPixel(x); !bytes.Equal(got, want) {
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("image %d: byte %d (pixel %d, %d) is %d, want %d", k, i, i/4%PadSide, i/4/PadSide, got[i], want[i])
				}
			}
		}
	}
}

func BenchmarkPadRGBA(b *testing.B) {
	x := make([]float32, 784)
	for i := range x {
		x[i] = float32(i%256) / 255
	}
	b.Run("kept", func(b *testing.B) {
		for b.Loop() {
			digits.padRGBA(x)
		}
	})
	b.Run("per-pixel", func(b *testing.B) {
		for b.Loop() {
			padRGBAPerPixel(x)
		}
	})
}
