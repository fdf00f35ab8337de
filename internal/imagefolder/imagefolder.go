//go:build !js

// Package imagefolder reads labelled images the way PyTorch users keep them: a folder per class,
// DIR/<class name>/*.png (torchvision's ImageFolder layout; JPEG and GIF too), into test items of one shape.
// Classes are numbered as the classifier's outputs are: in the order given, or, without one, the folders'
// names sorted as ImageFolder sorts them. Every image must have the size of the first; each becomes grey
// (ITU-R 601 luma, Go's color.GrayModel) or RGB as the model takes it, its values k/255.
package imagefolder

import (
	"fmt"
	"image"
	"image/color"
	_ "image/gif" // decoders ImageFolder's images may use
	_ "image/jpeg"
	_ "image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/deltaclue/deltaclue/internal/idx"
	"github.com/deltaclue/deltaclue/weights"
)

// MaxImages bounds how many images a folder may hold, and MaxSide an image's side.
const (
	MaxImages = 1 << 20
	MaxSide   = weights.MaxInputSide
)

// Data are the images read: the items, the class names in label order, and each item's file.
type Data struct {
	Items   *idx.Items
	Classes []string
	Files   []string
}

// Read reads dir's class folders. classes, when not nil, names the classifier's outputs in order: a folder
// whose name is not among them is refused (a class may have no folder). channels is the model's input's: 1
// (grey) or 3 (RGB); 0 takes the first image's (grey when it is, else RGB).
func Read(dir string, classes []string, channels int) (*Data, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var folders []string
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			folders = append(folders, e.Name())
		}
	}
	if len(folders) == 0 {
		return nil, fmt.Errorf("%s has no class folders: the data are a folder per class, %s/<class name>/*.png", dir, dir)
	}
	slices.Sort(folders) // ImageFolder's order
	if classes == nil {
		classes = folders
	}
	if len(classes) > 256 {
		return nil, fmt.Errorf("%d classes; the explainer takes at most 256", len(classes))
	}
	label := map[string]int{}
	for i, c := range classes {
		if _, dup := label[c]; dup {
			return nil, fmt.Errorf("the class %q is named twice", c)
		}
		label[c] = i
	}
	d := &Data{Classes: classes, Items: &idx.Items{}}
	var first string
	for _, f := range folders {
		l, ok := label[f]
		if !ok {
			return nil, fmt.Errorf("the folder %q is not among the classes (%s): name the classifier's outputs with -classes, in order", f, strings.Join(classes, ", "))
		}
		files, err := os.ReadDir(filepath.Join(dir, f))
		if err != nil {
			return nil, err
		}
		for _, e := range files {
			if e.IsDir() || !isImage(e.Name()) {
				continue
			}
			if len(d.Files) >= MaxImages {
				return nil, fmt.Errorf("%s holds more than %d images", dir, MaxImages)
			}
			path := filepath.Join(dir, f, e.Name())
			img, err := decode(path)
			if err != nil {
				return nil, err
			}
			b := img.Bounds()
			if first == "" {
				first = path
				if b.Dx() > MaxSide || b.Dy() > MaxSide {
					return nil, fmt.Errorf("%s is %d×%d; the explainer takes images of at most %d×%d", path, b.Dx(), b.Dy(), MaxSide, MaxSide)
				}
				if channels == 0 {
					channels = 3
					if m := img.ColorModel(); m == color.GrayModel || m == color.Gray16Model {
						channels = 1
					}
				}
				d.Items.Input = weights.Input{Height: b.Dy(), Width: b.Dx(), Channels: channels}
			} else if b.Dx() != d.Items.Input.Width || b.Dy() != d.Items.Input.Height {
				return nil, fmt.Errorf("%s is %d×%d and %s %d×%d: the images must all have one size (resize them as the model was trained)",
					path, b.Dx(), b.Dy(), first, d.Items.Input.Width, d.Items.Input.Height)
			}
			d.Items.Values = appendValues(d.Items.Values, img, channels)
			d.Items.Labels = append(d.Items.Labels, uint8(l))
			d.Files = append(d.Files, path)
		}
	}
	if len(d.Files) == 0 {
		return nil, fmt.Errorf("%s's class folders hold no images (.png, .jpg, .gif)", dir)
	}
	return d, nil
}

func isImage(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".png", ".jpg", ".jpeg", ".gif":
		return true
	}
	return false
}

func decode(path string) (image.Image, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cfg, _, err := image.DecodeConfig(f)
	if err != nil {
		return nil, fmt.Errorf("%s is not an image this tool reads (PNG, JPEG, GIF): %v", path, err)
	}
	if cfg.Width < 1 || cfg.Height < 1 || cfg.Width > MaxSide || cfg.Height > MaxSide {
		return nil, fmt.Errorf("%s is %d×%d; the explainer takes images of 1 to %d pixels a side", path, cfg.Width, cfg.Height, MaxSide)
	}
	if _, err := f.Seek(0, 0); err != nil {
		return nil, err
	}
	img, _, err := image.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("%s is damaged: %v", path, err)
	}
	return img, nil
}

// appendValues appends img's values channel-major: grey (luma) for one channel, R, G and B planes for three.
func appendValues(dst []uint8, img image.Image, channels int) []uint8 {
	b := img.Bounds()
	at := len(dst)
	dst = append(dst, make([]uint8, channels*b.Dx()*b.Dy())...)
	plane := b.Dx() * b.Dy()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			i := (y-b.Min.Y)*b.Dx() + (x - b.Min.X)
			c := img.At(x, y)
			if channels == 1 {
				dst[at+i] = color.GrayModel.Convert(c).(color.Gray).Y
				continue
			}
			r, g, bl, _ := c.RGBA()
			dst[at+i], dst[at+plane+i], dst[at+2*plane+i] = uint8(r>>8), uint8(g>>8), uint8(bl>>8)
		}
	}
	return dst
}
