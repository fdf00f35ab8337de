package main

import (
	"flag"
	"fmt"
	"image"
	"image/draw"
	_ "image/jpeg"
	_ "image/png"
	"os"

	"github.com/deltaclue/deltaclue/app/sharelink"
	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/mnist"
	"github.com/deltaclue/deltaclue/weights"
)

// inputFlags are the flags that say what to explain, shared by explain and sweep: a test digit, an image file
// or a share link.
type inputFlags struct {
	digit *int
	png   *string
	link  *string
}

// addInputFlags registers -digit, -png and -link; linkHelp says what the link sets.
func addInputFlags(fs *flag.FlagSet, linkHelp string) *inputFlags {
	return &inputFlags{
		digit: fs.Int("digit", -1, "explain this digit of the shipped 2,000-digit test split (0..1999)"),
		png:   fs.String("png", "", "explain the digit in this image file (PNG or JPEG, any size; preprocessed like MNIST)"),
		link:  fs.String("link", "", linkHelp),
	}
}

// load returns the image to explain and a description of where it came from. From a share link it also
// replaces *p with the link's parameters and returns the link's state (nil otherwise).
func (in *inputFlags) load(p *clue.Params) ([]float32, string, *sharelink.State, error) {
	if *in.link == "" {
		x0, input, err := loadInput(*in.digit, *in.png)
		return x0, input, nil, err
	}
	if *in.digit >= 0 || *in.png != "" {
		return nil, "", nil, fmt.Errorf("give one of -digit, -png and -link")
	}
	s, err := fromLink(*in.link)
	if err != nil {
		return nil, "", nil, err
	}
	*p = s.Params
	return s.Float(), "the shared link", &s, nil
}

// loadInput returns the image to explain and a description of where it came from.
func loadInput(digit int, pngPath string) ([]float32, string, error) {
	switch {
	case digit >= 0 && pngPath != "":
		return nil, "", fmt.Errorf("give one of -digit and -png, not both")
	case digit >= 0:
		set, err := mnist.HeldOut()
		if err != nil {
			return nil, "", err
		}
		if digit >= set.Len() {
			return nil, "", fmt.Errorf("-digit %d: the test split has digits 0..%d", digit, set.Len()-1)
		}
		return set.Float(digit, nil), fmt.Sprintf("test digit %d (true label %d)", digit, set.Labels[digit]), nil
	case pngPath != "":
		f, err := os.Open(pngPath)
		if err != nil {
			return nil, "", err
		}
		defer f.Close()
		img, _, err := image.Decode(f)
		if err != nil {
			return nil, "", &mnist.FileError{Name: pngPath, Err: unreadable{err}}
		}
		b := img.Bounds()
		rgba := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
		draw.Draw(rgba, rgba.Bounds(), img, b.Min, draw.Src)
		x, err := mnist.Preprocess(mnist.Intensities(rgba.Pix, b.Dx(), b.Dy()), b.Dx(), b.Dy())
		if err != nil {
			return nil, "", &mnist.FileError{Name: pngPath, Err: err}
		}
		return x, pngPath, nil
	}
	return nil, "", fmt.Errorf("say what to explain: -digit N (a test digit), -png FILE or -link LINK")
}

// fromLink decodes a share link and checks it was made with the shipped models.
func fromLink(link string) (sharelink.State, error) {
	s, err := sharelink.Decode(link)
	if err != nil {
		return sharelink.State{}, err
	}
	fingerprint, err := weights.ShippedFingerprint()
	if err != nil {
		return sharelink.State{}, err
	}
	if err := sharelink.CheckModel(s, sharelink.DigitsModels, fingerprint); err != nil { // the CLI runs the shipped digits
		return sharelink.State{}, err
	}
	return s, nil
}

// unreadable is an image decoder's error (image.ErrFormat, a png.FormatError …) said without the decoder's
// package prefix ("png: invalid format: …"); errors.Is and errors.As still reach it.
type unreadable struct{ err error }

func (u unreadable) Error() string {
	return "it is damaged, or not an image this command reads (PNG or JPEG)"
}

func (u unreadable) Unwrap() error { return u.err }
