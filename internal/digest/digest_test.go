package digest

import (
	"bytes"
	"crypto/sha256"
	"testing"
)

// TestMatchesCryptoSHA256: the same sums as crypto/sha256 for every length around the block and padding
// boundaries, for a large input, and written in pieces of every size.
func TestMatchesCryptoSHA256(t *testing.T) {
	data := make([]byte, 1<<16+77)
	for i := range data {
		data[i] = byte(i*131 + i>>8)
	}
	for n := 0; n <= 300; n++ {
		if got, want := Sum256(data[:n]), sha256.Sum256(data[:n]); got != want {
			t.Fatalf("%d bytes: %x, want %x", n, got, want)
		}
	}
	if got, want := Sum256(data), sha256.Sum256(data); got != want {
		t.Fatalf("%d bytes: %x, want %x", len(data), got, want)
	}
	want := sha256.Sum256(data[:1000])
	for piece := 1; piece <= 130; piece++ {
		h := New()
		for i := 0; i < 1000; i += piece {
			h.Write(data[i:min(i+piece, 1000)])
		}
		if got := h.Sum(nil); !bytes.Equal(got, want[:]) {
			t.Fatalf("in pieces of %d: %x, want %x", piece, got, want)
		}
		if again := h.Sum([]byte{1}); !bytes.Equal(again[1:], want[:]) || again[0] != 1 {
			t.Fatalf("a second Sum, appended: %x", again)
		}
	}
	h := New()
	h.Write([]byte("something else"))
	h.Reset()
	h.Write(data[:1000])
	if got := h.Sum(nil); !bytes.Equal(got, want[:]) || h.Size() != Size || h.BlockSize() != BlockSize {
		t.Fatalf("after Reset: %x", got)
	}
}

// FuzzMatchesCryptoSHA256: any bytes, written whole and split at any point, sum as crypto/sha256 sums them.
func FuzzMatchesCryptoSHA256(f *testing.F) {
	f.Add([]byte("abc"), 1)
	f.Fuzz(func(t *testing.T, b []byte, cut int) {
		want := sha256.Sum256(b)
		if got := Sum256(b); got != want {
			t.Fatalf("%x: %x, want %x", b, got, want)
		}
		if cut < 0 || cut > len(b) {
			cut = len(b) / 2
		}
		h := New()
		h.Write(b[:cut])
		h.Write(b[cut:])
		if got := h.Sum(nil); !bytes.Equal(got, want[:]) {
			t.Fatalf("split at %d: %x, want %x", cut, got, want)
		}
	})
}
