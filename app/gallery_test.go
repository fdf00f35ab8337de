//go:build !js

package app

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"flag"
	"image"
	"image/color"
	"image/png"
	"os"
	"testing"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/mnist"
)

var updateGallery = flag.Bool("update-gallery", false, "rewrite app/gallery.json from the shipped models")

// thumb is a digit as a PNG data URL, dark ink on white.
func thumb(x []float32) string {
	img := image.NewGray(image.Rect(0, 0, mnist.Side, mnist.Side))
	for i, v := range x {
		img.SetGray(i%mnist.Side, i/mnist.Side, color.Gray{uint8(255 - 255*v)})
	}
	var b bytes.Buffer
	png.Encode(&b, img)
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(b.Bytes())
}

func TestGalleryIsTheMostUncertainTestDigits(t *testing.T) {
	m, err := clue.ShippedModels()
	if err != nil {
		t.Fatal(err)
	}
	set, err := mnist.HeldOut()
	if err != nil {
		t.Fatal(err)
	}
	images := make([]float32, set.Len()*mnist.Pixels)
	for i := 0; i < set.Len(); i++ {
		set.Float(i, images[i*mnist.Pixels:(i+1)*mnist.Pixels])
	}
	preds := m.BNN.Classify(images)
	var want []GalleryDigit
	for _, i := range clue.MostUncertain(m.BNN, images, 24) {
		want = append(want, GalleryDigit{Index: i, Label: int(set.Labels[i]), Pred: preds[i].Label(), H: preds[i].Total,
			Pixels: base64.StdEncoding.EncodeToString(set.Image(i))})
	}
	js, _ := json.MarshalIndent(want, "", " ")
	js = append(js, '\n')
	if *updateGallery {
		if err := os.WriteFile("gallery.json", js, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(js, galleryJSON) {
		t.Fatal("app/gallery.json is stale: go test ./app -run Gallery -update-gallery")
	}
	if g := gallery(); len(g) != 24 || len(g[0].Image()) != 784 {
		t.Fatalf("gallery has %d digits", len(g))
	}
}
