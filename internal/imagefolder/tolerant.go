//go:build !js

package imagefolder

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/deltaclue/deltaclue/internal/idx"
	"github.com/deltaclue/deltaclue/weights"
)

// Skipped is an image ReadFor could not take, and why.
type Skipped struct {
	File, Reason string
}

// ReadFor reads dir's class folders (or an IDX file, as ReadAny) as inputs of shape in, with the classes named
// in order: an image that cannot be decoded, or that is not in's size, is skipped with its reason instead of
// stopping the read (what an audit of a whole dataset needs). A folder whose name is not among the classes is
// still refused.
func ReadFor(path string, classes []string, in weights.Input) (*Data, []Skipped, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if !st.IsDir() {
		d, err := ReadIDX(path, classes, in.Channels)
		if err == nil && (d.Items.Input.Height != in.Height || d.Items.Input.Width != in.Width) {
			err = fmt.Errorf("%s holds %d×%d images, and the model takes %d×%d", path, d.Items.Input.Width, d.Items.Input.Height, in.Width, in.Height)
		}
		return d, nil, err
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, nil, err
	}
	label := map[string]int{}
	for i, c := range classes {
		label[c] = i
	}
	var folders []string
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			if _, ok := label[e.Name()]; !ok {
				return nil, nil, fmt.Errorf("the folder %q is not among the classes (%s)", e.Name(), strings.Join(classes, ", "))
			}
			folders = append(folders, e.Name())
		}
	}
	slices.Sort(folders)
	d := &Data{Classes: classes, Items: &idx.Items{Input: weights.Input{Height: in.Height, Width: in.Width, Channels: in.Channels}}}
	var skipped []Skipped
	for _, f := range folders {
		files, err := os.ReadDir(filepath.Join(path, f))
		if err != nil {
			return nil, nil, err
		}
		for _, e := range files {
			if e.IsDir() || !isImage(e.Name()) {
				continue
			}
			if len(d.Files)+len(skipped) >= MaxImages {
				return nil, nil, fmt.Errorf("%s holds more than %d images", path, MaxImages)
			}
			file := filepath.Join(path, f, e.Name())
			img, err := decode(file)
			if err != nil {
				skipped = append(skipped, Skipped{File: file, Reason: err.Error()})
				continue
			}
			if b := img.Bounds(); b.Dx() != in.Width || b.Dy() != in.Height {
				skipped = append(skipped, Skipped{File: file, Reason: fmt.Sprintf("%s is %d×%d, and the model takes %d×%d", file, b.Dx(), b.Dy(), in.Width, in.Height)})
				continue
			}
			d.Items.Values = appendValues(d.Items.Values, img, in.Channels)
			d.Items.Labels = append(d.Items.Labels, uint8(label[f]))
			d.Files = append(d.Files, file)
		}
	}
	return d, skipped, nil
}
