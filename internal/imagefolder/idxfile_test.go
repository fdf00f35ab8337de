//go:build !js

package imagefolder

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltaclue/deltaclue/internal/idx"
)

func writeIDX(t *testing.T, path string, a *idx.Array, zip bool) {
	t.Helper()
	b, err := idx.Encode(a)
	if err != nil {
		t.Fatal(err)
	}
	if zip {
		var z bytes.Buffer
		w := gzip.NewWriter(&z)
		w.Write(b)
		w.Close()
		b = z.Bytes()
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestReadIDX: MNIST's file pair (gzipped, the labels found beside the images) is read as items of its shape,
// the classes named by -classes or by number; what does not fit is refused in a sentence naming the file.
func TestReadIDX(t *testing.T) {
	dir := t.TempDir()
	images := &idx.Array{Dims: []int{3, 2, 4}, Data: []uint8{0, 1, 2, 3, 4, 5, 6, 7, 10, 11, 12, 13, 14, 15, 16, 17, 255, 254, 253, 252, 251, 250, 249, 248}}
	labels := &idx.Array{Dims: []int{3}, Data: []uint8{2, 0, 1}}
	path := filepath.Join(dir, "train-images-idx3-ubyte.gz")
	writeIDX(t, path, images, true)
	writeIDX(t, filepath.Join(dir, "train-labels-idx1-ubyte.gz"), labels, true)
	d, err := ReadAny(path, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	in := d.Items.Input
	if d.Items.Len() != 3 || in.Height != 2 || in.Width != 4 || in.Channels != 1 || strings.Join(d.Classes, ",") != "0,1,2" ||
		d.Items.Label(0) != 2 || d.Items.Float(2, nil)[0] != 1 || d.Files[1] != path+"#1" {
		t.Errorf("read %+v, classes %v", d.Items, d.Classes)
	}
	if d, err := ReadAny(path, []string{"a", "b", "c", "d"}, 0); err != nil || d.Classes[3] != "d" {
		t.Errorf("with four names: %v", err)
	}
	for _, c := range []struct {
		classes  []string
		channels int
		want     string
	}{
		{[]string{"a", "b"}, 1, "the label 2, and there are 2 classes"},
		{nil, 3, "1 channels, and the model takes 3"},
	} {
		if _, err := ReadAny(path, c.classes, c.channels); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v, %d channels: %v, want %q", c.classes, c.channels, err, c.want)
		}
	}
	alone := filepath.Join(dir, "other-images.idx")
	writeIDX(t, alone, images, false)
	if _, err := ReadAny(alone, nil, 1); err == nil || !strings.Contains(err.Error(), "other-labels.idx") {
		t.Errorf("images without labels: %v", err)
	}
	writeIDX(t, filepath.Join(dir, "other-labels.idx"), &idx.Array{Dims: []int{2}, Data: []uint8{0, 1}}, false)
	if _, err := ReadAny(alone, nil, 1); err == nil || !strings.Contains(err.Error(), "3 items") {
		t.Errorf("two labels for three images: %v", err)
	}
	if _, err := ReadAny(filepath.Join(dir, "train-labels-idx1-ubyte.gz"), nil, 1); err == nil {
		t.Errorf("a labels file as images was read")
	}
}
