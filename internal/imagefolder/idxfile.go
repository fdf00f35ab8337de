//go:build !js

package imagefolder

import (
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/deltaclue/deltaclue/internal/idx"
	"github.com/deltaclue/deltaclue/weights"
)

// ReadAny reads labelled images from path: a folder per class (Read), or an IDX file of images, as MNIST and
// Fashion-MNIST are distributed (ReadIDX).
func ReadAny(path string, classes []string, channels int) (*Data, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return Read(path, classes, channels)
	}
	return ReadIDX(path, classes, channels)
}

// LabelsPath is the labels file beside an IDX images file: "images" becomes "labels" in its name, and MNIST's
// "idx3" (three dimensions) "idx1" (train-images-idx3-ubyte.gz → train-labels-idx1-ubyte.gz).
func LabelsPath(images string) string {
	dir, name := filepath.Split(images)
	name = strings.Replace(strings.Replace(name, "images", "labels", 1), "idx3", "idx1", 1)
	return filepath.Join(dir, name)
}

// ReadIDX reads an IDX file of images ([N, H, W] grey, or [N, C, H, W]), gzipped or not, and its labels file
// (LabelsPath). classes names the labels 0, 1, …; without it they are named by their numbers, as many as the
// largest label needs. channels, when not 0, must be the images' (an IDX file is not converted).
func ReadIDX(path string, classes []string, channels int) (*Data, error) {
	labelsPath := LabelsPath(path)
	if labelsPath == path {
		return nil, fmt.Errorf("%s: an IDX file of images has \"images\" in its name, and its labels the same name with \"labels\"", path)
	}
	images, err := readIDXFile(path)
	if err != nil {
		return nil, err
	}
	labels, err := readIDXFile(labelsPath)
	if err != nil {
		return nil, err
	}
	n := 0
	for _, l := range labels.Data {
		n = max(n, int(l)+1)
	}
	if classes == nil {
		for i := 0; i < n; i++ {
			classes = append(classes, strconv.Itoa(i))
		}
	} else if n > len(classes) {
		return nil, fmt.Errorf("%s holds the label %d, and there are %d classes (%s)", labelsPath, n-1, len(classes), strings.Join(classes, ", "))
	}
	c, h, w := 1, 0, 0
	switch d := images.Dims; len(d) {
	case 3:
		h, w = d[1], d[2]
	case 4:
		c, h, w = d[1], d[2], d[3]
	default:
		return nil, fmt.Errorf("%s has dimensions %s: want [N, H, W] or [N, C, H, W]", path, idx.Shape(images.Dims))
	}
	if channels != 0 && c != channels {
		return nil, fmt.Errorf("%s holds images of %d channels, and the model takes %d", path, c, channels)
	}
	if h < 1 || w < 1 || h > MaxSide || w > MaxSide {
		return nil, fmt.Errorf("%s holds %d×%d images; the explainer takes 1 to %d pixels a side", path, w, h, MaxSide)
	}
	in := weights.Input{Height: h, Width: w, Channels: c}
	items, err := idx.NewItems(images, labels, in, len(classes))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if items.Len() == 0 {
		return nil, fmt.Errorf("%s holds no images", path)
	}
	files := make([]string, items.Len())
	for i := range files {
		files[i] = path + "#" + strconv.Itoa(i)
	}
	return &Data{Items: items, Classes: classes, Files: files}, nil
}

// readIDXFile reads one IDX file, gunzipping a .gz one.
func readIDXFile(path string) (*idx.Array, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		z, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		defer z.Close()
		r = z
	}
	a, err := idx.Read(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return a, nil
}
