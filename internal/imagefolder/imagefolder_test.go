//go:build !js

package imagefolder

import (
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writePNG(t *testing.T, path string, img image.Image) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
}

func grey(w, h int, v uint8) image.Image {
	img := image.NewGray(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = v
	}
	return img
}

// TestRead: folders sorted as ImageFolder sorts them, or the order -classes gives; grey and RGB values
// channel-major; and the refusals.
func TestRead(t *testing.T) {
	dir := t.TempDir()
	writePNG(t, filepath.Join(dir, "shirt", "a.png"), grey(3, 2, 200))
	writePNG(t, filepath.Join(dir, "coat", "b.png"), grey(3, 2, 10))
	rgb := image.NewRGBA(image.Rect(0, 0, 3, 2))
	for i := 0; i < 6; i++ {
		rgb.Set(i%3, i/3, color.RGBA{R: 255, G: 0, B: 51, A: 255})
	}
	writePNG(t, filepath.Join(dir, "coat", "c.png"), rgb)
	os.WriteFile(filepath.Join(dir, "coat", "notes.txt"), []byte("not an image"), 0o644)

	d, err := Read(dir, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(d.Classes, ",") != "coat,shirt" || d.Items.Len() != 3 || d.Items.Input.Height != 2 || d.Items.Input.Width != 3 {
		t.Fatalf("classes %v, %d items of %+v", d.Classes, d.Items.Len(), d.Items.Input)
	}
	if d.Items.Labels[0] != 0 || d.Items.Labels[2] != 1 || d.Items.Values[0] != 10 || d.Items.Values[12] != 200 {
		t.Errorf("labels %v, values %v", d.Items.Labels, d.Items.Values)
	}
	// Red 255, blue 51 as grey: 0.299·255 + 0.114·51 ≈ 82.
	if v := d.Items.Values[6]; v < 81 || v > 83 {
		t.Errorf("the RGB image's grey %d, want about 82", v)
	}
	c, err := Read(dir, []string{"shirt", "coat", "dress"}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if c.Items.Labels[0] != 1 || c.Items.Input.Channels != 3 || c.Items.Values[18] != 255 || c.Items.Values[18+6] != 0 || c.Items.Values[18+12] != 51 {
		t.Errorf("with -classes and RGB: labels %v, values %v", c.Items.Labels, c.Items.Values[18:])
	}

	odd := t.TempDir()
	writePNG(t, filepath.Join(odd, "a", "1.png"), grey(3, 2, 0))
	writePNG(t, filepath.Join(odd, "a", "2.png"), grey(4, 2, 0))
	empty := t.TempDir()
	os.MkdirAll(filepath.Join(empty, "a"), 0o755)
	broken := t.TempDir()
	os.MkdirAll(filepath.Join(broken, "a"), 0o755)
	os.WriteFile(filepath.Join(broken, "a", "x.png"), []byte("\x89PNG\r\n\x1a\nbroken"), 0o644)
	for name, c := range map[string]struct {
		err  error
		want string
	}{
		"a folder not among the classes": {func() error { _, err := Read(dir, []string{"shirt", "dress"}, 1); return err }(), `"coat" is not among the classes`},
		"mixed sizes":                    {func() error { _, err := Read(odd, nil, 1); return err }(), "must all have one size"},
		"no images":                      {func() error { _, err := Read(empty, nil, 1); return err }(), "hold no images"},
		"no class folders":               {func() error { _, err := Read(filepath.Join(dir, "coat"), nil, 1); return err }(), "no class folders"},
		"a broken image":                 {func() error { _, err := Read(broken, nil, 1); return err }(), "x.png is not an image"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, c.err, c.want)
		}
	}
}
