package mnist

import (
	"bytes"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"
)

func TestImageSizeOfRealFiles(t *testing.T) {
	img := image.NewGray(image.Rect(0, 0, 123, 45))
	img.Set(3, 4, color.Gray{200})
	enc := map[string]func(*bytes.Buffer) error{
		"png":  func(b *bytes.Buffer) error { return png.Encode(b, img) },
		"jpeg": func(b *bytes.Buffer) error { return jpeg.Encode(b, img, nil) },
		"gif":  func(b *bytes.Buffer) error { return gif.Encode(b, img, nil) },
	}
	for format, f := range enc {
		var b bytes.Buffer
		if err := f(&b); err != nil {
			t.Fatal(err)
		}
		w, h, got, err := ImageSize(b.Bytes())
		if err != nil || w != 123 || h != 45 || got != format {
			t.Errorf("%s: %d×%d %q %v", format, w, h, got, err)
		}
		// The header alone is enough.
		if w, h, _, err := ImageSize(b.Bytes()[:min(b.Len(), 700)]); err != nil || w != 123 || h != 45 {
			t.Errorf("%s from its first bytes: %d×%d %v", format, w, h, err)
		}
	}
	bmp := make([]byte, 54)
	copy(bmp, "BM")
	bmp[18], bmp[22], bmp[23], bmp[24], bmp[25] = 64, 0xff, 0xff, 0xff, 0xff // 64 wide, −1 (top-down 1 high)
	if w, h, f, err := ImageSize(bmp); err != nil || w != 64 || h != 1 || f != "bmp" {
		t.Errorf("bmp: %d×%d %q %v", w, h, f, err)
	}
	webp := []byte("RIFF\x00\x00\x00\x00WEBPVP8X\x0a\x00\x00\x00\x00\x00\x00\x00\x3f\x1f\x00\x3f\x1f\x00")
	if w, h, f, err := ImageSize(webp); err != nil || w != 8000 || h != 8000 || f != "webp" {
		t.Errorf("webp: %d×%d %q %v", w, h, f, err)
	}
}

func TestImageSizeRefusesWhatIsNotAnImage(t *testing.T) {
	for name, b := range map[string][]byte{
		"empty":       nil,
		"text":        []byte("hello, this is not an image at all"),
		"png no IHDR": []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dXXXX\x00\x00\x00\x01\x00\x00\x00\x01"),
		"png 0 wide":  []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR\x00\x00\x00\x00\x00\x00\x00\x01"),
		"jpeg cut":    {0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 'J', 'F'},
	} {
		if _, _, _, err := ImageSize(b); err == nil {
			t.Errorf("%s: accepted", name)
		} else if strings.Contains(err.Error(), "%!") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// FuzzImageSize: no header makes ImageSize panic, and a size it returns is positive.
func FuzzImageSize(f *testing.F) {
	var b bytes.Buffer
	png.Encode(&b, image.NewGray(image.Rect(0, 0, 3, 2)))
	f.Add(b.Bytes())
	b.Reset()
	jpeg.Encode(&b, image.NewGray(image.Rect(0, 0, 3, 2)), nil)
	f.Add(b.Bytes())
	f.Add([]byte("GIF89a\x03\x00\x02\x00"))
	f.Add([]byte("RIFF\x00\x00\x00\x00WEBPVP8L\x00\x00\x00\x00\x2f\x00\x00\x00\x00\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		w, h, _, err := ImageSize(data)
		if err == nil && (w <= 0 || h <= 0) {
			t.Fatalf("accepted a %d×%d image", w, h)
		}
	})
}
