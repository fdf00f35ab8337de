package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/deltaclue/deltaclue/engine"
	"github.com/deltaclue/deltaclue/internal/onnximport"
	"github.com/deltaclue/deltaclue/internal/picture"
	"github.com/deltaclue/deltaclue/mnist"
	"github.com/deltaclue/deltaclue/weights"
)

// Prediction is what `deltaclue predict` prints: the classifier's predictive distribution for one image and
// its entropy, split into its aleatoric and epistemic parts (nats).
type Prediction struct {
	Probs     []float32 `json:"probs"`
	Label     int       `json:"label"`
	Class     string    `json:"class"`
	Entropy   float32   `json:"entropy"`
	Aleatoric float32   `json:"aleatoric"`
	Epistemic float32   `json:"epistemic"`
}

// predict classifies one image file with any bundle.
func predict(args []string) error {
	fs := flag.NewFlagSet("predict", flag.ContinueOnError)
	spec := modelsFlag(fs)
	pngPath := fs.String("png", "", "the image to classify (PNG, JPEG or GIF): one of the model's size is read as it is, pixel for pixel; any other is made into the input as the page makes an upload")
	eval := fs.Bool("eval", false, "classify as PyTorch's eval mode does: dropout off (an ensemble's members' mean), to compare with PyTorch's own probabilities")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *pngPath == "" {
		return fmt.Errorf("predict: -png names the image to classify")
	}
	p, said, err := predictFile(*spec, *pngPath, *eval)
	if err != nil {
		return err
	}
	if said != "" {
		fmt.Fprintln(os.Stderr, said)
	}
	b, err := json.Marshal(p)
	if err != nil {
		return err
	}
	fmt.Println(string(b))
	return nil
}

// predictFile classifies the image at path with the models spec names (in eval mode when eval), and says what
// was done to make the image the input ("" when nothing was).
func predictFile(spec, path string, eval bool) (*Prediction, string, error) {
	m, err := loadModels(spec)
	if err != nil {
		return nil, "", err
	}
	x, said, err := imageInput(path, m.input())
	if err != nil {
		return nil, "", err
	}
	bnn := m.search.BNN
	if eval {
		if _, bnn, err = engine.Load(onnximport.EvalMode(m.Description()), m.Bundle.Files); err != nil {
			return nil, "", err
		}
	}
	u := bnn.Classify(x)[0]
	u.Epistemic = max(u.Epistemic, 0) // H − its aleatoric part, which rounding may leave a hair below 0
	return &Prediction{Probs: u.Probs, Label: u.Label(), Class: m.Description().Classes[u.Label()], Entropy: u.Total,
		Aleatoric: u.Aleatoric, Epistemic: u.Epistemic}, said, nil
}

// imageInput reads an image file as the models' input: an image of the input's size, grey for a grey input,
// pixel for pixel (each value k/255, as the model's own data); any other as the page makes an upload into one
// (picture.FitSteps), saying what was done.
func imageInput(path string, in weights.Input) ([]float32, string, error) {
	rgba, err := decodeRGBA(path, in)
	if err != nil {
		return nil, "", err
	}
	b := rgba.Bounds()
	if b.Dx() == in.Width && b.Dy() == in.Height {
		grey := true
		for i := 0; i < len(rgba.Pix); i += 4 {
			grey = grey && rgba.Pix[i] == rgba.Pix[i+1] && rgba.Pix[i+1] == rgba.Pix[i+2]
		}
		if in.Channels == 3 || grey {
			x := make([]float32, in.Size())
			plane := in.Width * in.Height
			for c := 0; c < in.Channels; c++ {
				for j := 0; j < plane; j++ {
					x[c*plane+j] = float32(rgba.Pix[4*j+c]) / 255
				}
			}
			return x, "", nil
		}
	}
	x, steps, err := picture.FitSteps(rgba.Pix, b.Dx(), b.Dy(), in)
	if err != nil {
		return nil, "", &mnist.FileError{Name: path, Err: err, Noun: in.Noun}
	}
	return x, steps.Sentence(path, in.Noun), nil
}
