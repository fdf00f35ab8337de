package idx

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"

	"github.com/deltaclue/deltaclue/internal/dataset"
	"github.com/deltaclue/deltaclue/weights"
)

// A models folder's test items are two IDX files beside its model.json: ImagesFile, the inputs, of dimensions
// [N, H, W] for one channel or [N, C, H, W] (channel-major, as the engine reads them), each value k meaning
// k/255; and LabelsFile, of dimensions [N], each item's class index.
const (
	ImagesFile = "test-images.idx"
	LabelsFile = "test-labels.idx"
)

// ErrNoItems is what ReadItems returns for a folder that holds neither file.
var ErrNoItems = errors.New("no test items")

// Items are labelled inputs of one shape, read from or written to IDX files; they are a dataset.Items.
type Items struct {
	Input  weights.Input // the shape (height, width, channels)
	Labels []uint8
	Values []uint8 // Len()·Size() bytes, item after item, each channel-major; a value is byte/255
}

var _ dataset.Items = (*Items)(nil)

// Len is the number of items.
func (s *Items) Len() int { return len(s.Labels) }

// Size is the number of values of one item.
func (s *Items) Size() int { return s.Input.Size() }

// Label is item i's class index.
func (s *Items) Label(i int) int { return int(s.Labels[i]) }

// Float writes item i's values (byte/255) into dst (allocated when nil) and returns it.
func (s *Items) Float(i int, dst []float32) []float32 {
	n := s.Size()
	if dst == nil {
		dst = make([]float32, n)
	}
	for j, v := range s.Values[i*n : (i+1)*n] {
		dst[j] = float32(v) / 255
	}
	return dst
}

// NewItems checks that images and labels are test items for a model with input in and classes classes (as
// the two files of a folder: their errors name them by ImagesFile and LabelsFile) and returns them.
func NewItems(images, labels *Array, in weights.Input, classes int) (*Items, error) {
	var c, h, w int
	switch d := images.Dims; len(d) {
	case 3:
		c, h, w = 1, d[1], d[2]
	case 4:
		c, h, w = d[1], d[2], d[3]
	default:
		return nil, fmt.Errorf("%s has dimensions %s: want [N, H, W] for one channel or [N, C, H, W]", ImagesFile, Shape(images.Dims))
	}
	if c != in.Channels || h != in.Height || w != in.Width {
		return nil, fmt.Errorf("%s holds %d×%d×%d items (C×H×W), and the models take %d×%d×%d (their model.json's input)",
			ImagesFile, c, h, w, in.Channels, in.Height, in.Width)
	}
	if len(labels.Dims) != 1 {
		return nil, fmt.Errorf("%s has dimensions %s: want [N], one label per item", LabelsFile, Shape(labels.Dims))
	}
	if n, m := images.Dims[0], labels.Dims[0]; n != m {
		return nil, fmt.Errorf("%s holds %d items and %s %d labels: want one label per item", ImagesFile, n, LabelsFile, m)
	}
	for i, l := range labels.Data {
		if int(l) >= classes {
			return nil, fmt.Errorf("%s: item %d's label is %d, and the models have %d classes (0..%d)", LabelsFile, i, l, classes, classes-1)
		}
	}
	return &Items{Input: weights.Input{Height: h, Width: w, Channels: c}, Labels: labels.Data, Values: images.Data}, nil
}

// ReadItems reads dir's test items for a model with input in and classes classes; ErrNoItems when dir holds
// neither file. Errors name the file and say what is wrong.
func ReadItems(dir string, in weights.Input, classes int) (*Items, error) {
	return ReadItemsFS(os.DirFS(dir), dir, in, classes)
}

// ReadItemsFS is ReadItems from the root of fsys, which errors call dir.
func ReadItemsFS(fsys fs.FS, dir string, in weights.Input, classes int) (*Items, error) {
	imagesPath, labelsPath := filepath.Join(dir, ImagesFile), filepath.Join(dir, LabelsFile)
	_, errI := fs.Stat(fsys, ImagesFile)
	_, errL := fs.Stat(fsys, LabelsFile)
	switch {
	case errors.Is(errI, fs.ErrNotExist) && errors.Is(errL, fs.ErrNotExist):
		return nil, ErrNoItems
	case errors.Is(errI, fs.ErrNotExist):
		return nil, fmt.Errorf("%s has %s but no %s: test items are the two together", dir, LabelsFile, ImagesFile)
	case errors.Is(errL, fs.ErrNotExist):
		return nil, fmt.Errorf("%s has %s but no %s: test items are the two together", dir, ImagesFile, LabelsFile)
	}
	read := func(name, path string) (*Array, error) {
		f, err := fsys.Open(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		a, err := Read(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return a, nil
	}
	images, err := read(ImagesFile, imagesPath)
	if err != nil {
		return nil, err
	}
	labels, err := read(LabelsFile, labelsPath)
	if err != nil {
		return nil, err
	}
	items, err := NewItems(images, labels, in, classes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	return items, nil
}

// WriteItems writes items into dir as test items for a model with input in (ImagesFile and LabelsFile, which
// ReadItems reads back): each value is rounded to the nearest k/255, and each label must be 0 to 255.
func WriteItems(dir string, in weights.Input, items dataset.Items) error {
	n := items.Len()
	if n < 1 {
		return errors.New("test items: there are none to write")
	}
	if items.Size() != in.Size() {
		return fmt.Errorf("test items of %d values, and the input %d×%d×%d has %d", items.Size(), in.Channels, in.Height, in.Width, in.Size())
	}
	dims := []int{n, in.Height, in.Width}
	if in.Channels != 1 {
		dims = []int{n, in.Channels, in.Height, in.Width}
	}
	images := &Array{Dims: dims, Data: make([]uint8, 0, n*in.Size())}
	labels := &Array{Dims: []int{n}, Data: make([]uint8, n)}
	x := make([]float32, in.Size())
	for i := range n {
		for _, v := range items.Float(i, x) {
			if !(v >= 0) { // NaN too
				v = 0
			}
			images.Data = append(images.Data, uint8(math.Round(float64(min(v, 1))*255)))
		}
		l := items.Label(i)
		if l < 0 || l > 255 {
			return fmt.Errorf("test item %d's label is %d: an IDX label is 0 to 255", i, l)
		}
		labels.Data[i] = uint8(l)
	}
	for name, a := range map[string]*Array{ImagesFile: images, LabelsFile: labels} {
		b, err := Encode(a)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}
