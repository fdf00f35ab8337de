// Package fashion reads Fashion-MNIST as Debian's dataset-fashion-mnist package installs it: four gzipped IDX
// files (60,000 training and 10,000 test images, 28×28 grey, ten classes), each checked against the SHA-256
// this package records before it is read. The images become package mnist's sets (the digit-file format holds
// any 28×28 grey images with ten labels), so that the split, the training and the tools read them as they read
// the digits.
package fashion

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"github.com/deltaclue/deltaclue/internal/idx"
	"github.com/deltaclue/deltaclue/mnist"
)

// Dir is where Debian's dataset-fashion-mnist installs the files.
const Dir = "/usr/share/datasets/fashion-mnist"

// Classes are Fashion-MNIST's labels 0–9, as Zalando names them.
var Classes = []string{"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"}

// The files and their SHA-256, as dataset-fashion-mnist installs them.
var files = map[string]string{
	"train-images-idx3-ubyte.gz": "b0564c3eedabfbf835052cff8503ea422014ce006caf5b757f851416ee8300c7",
	"train-labels-idx1-ubyte.gz": "0ae29f65d86684f32d1b9c85147786c547b9c6aebcaf235f0400a0cce308b056",
	"t10k-images-idx3-ubyte.gz":  "cc1d090a38ace84dfa1aa66e3ada7c336ef481a96936906477e6dd344da56eaa",
	"t10k-labels-idx1-ubyte.gz":  "8d3605d196f4be44669e46906da9733c8131fef761fdbfec72c424d5222f1a05",
}

// Read reads the training and test sets from dir (Dir, where Debian puts them), each file checked against its
// recorded SHA-256 first.
func Read(dir string) (train, test *mnist.Set, err error) {
	if train, err = readSet(dir, "train"); err != nil {
		return nil, nil, err
	}
	if test, err = readSet(dir, "t10k"); err != nil {
		return nil, nil, err
	}
	return train, test, nil
}

// readSet reads one split's images and labels.
func readSet(dir, split string) (*mnist.Set, error) {
	images, err := readArray(dir, split+"-images-idx3-ubyte.gz")
	if err != nil {
		return nil, err
	}
	labels, err := readArray(dir, split+"-labels-idx1-ubyte.gz")
	if err != nil {
		return nil, err
	}
	switch {
	case len(images.Dims) != 3 || images.Dims[1] != mnist.Side || images.Dims[2] != mnist.Side:
		return nil, fmt.Errorf("%s's images are %s, not N×28×28", split, idx.Shape(images.Dims))
	case len(labels.Dims) != 1 || labels.Dims[0] != images.Dims[0]:
		return nil, fmt.Errorf("%s has %d images and %s labels", split, images.Dims[0], idx.Shape(labels.Dims))
	}
	s := &mnist.Set{Labels: labels.Data, Pixels: images.Data}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", split, err)
	}
	return s, nil
}

// readArray checks a file's SHA-256 and reads its gzipped IDX array.
func readArray(dir, name string) (*idx.Array, error) {
	path := filepath.Join(dir, name)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w (Debian: apt-get install dataset-fashion-mnist)", err)
	}
	sum := sha256.Sum256(b)
	if got := hex.EncodeToString(sum[:]); got != files[name] {
		return nil, fmt.Errorf("%s has SHA-256 %.12s…, not the %.12s… of dataset-fashion-mnist's file: it is another or a damaged file", path, got, files[name])
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	a, err := idx.Read(zr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return a, nil
}
