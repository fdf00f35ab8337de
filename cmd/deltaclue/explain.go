package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"image"
	"image/draw"
	_ "image/jpeg"
	_ "image/png"
	"os"
	"path/filepath"
	"time"

	"github.com/deltaclue/deltaclue/app/sharelink"
	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/mnist"
	"github.com/deltaclue/deltaclue/weights"
)

func explain(args []string) error {
	fs := flag.NewFlagSet("explain", flag.ContinueOnError)
	p := clue.Defaults()
	finish := paramFlags(fs, &p)
	digit := fs.Int("digit", -1, "explain this digit of the shipped 2,000-digit test split (0..1999)")
	pngPath := fs.String("png", "", "explain the digit in this image file (PNG or JPEG, any size; preprocessed like MNIST)")
	link := fs.String("link", "", "explain what a share link from the page holds: its image, parameters and seed (other flags are ignored)")
	out := fs.String("out", "explain-out", "folder for grid.png, labels.png and explain.json")
	cols := fs.Int("cols", 10, "columns of the grid")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := finish(); err != nil {
		return err
	}
	models, err := clue.ShippedModels()
	if err != nil {
		return err
	}
	var x0 []float32
	var input string
	if *link != "" {
		if *digit >= 0 || *pngPath != "" {
			return fmt.Errorf("give one of -digit, -png and -link")
		}
		if x0, p, err = fromLink(*link); err != nil {
			return err
		}
		input = "a share link"
	} else if x0, input, err = loadInput(*digit, *pngPath); err != nil {
		return err
	}
	prob, err := clue.NewProblem(models, x0)
	if err != nil {
		return err
	}
	start := time.Now()
	done := 0
	exps, err := clue.Search(context.Background(), prob, p, nil, func(e clue.Explanation) {
		done++
		fmt.Fprintf(os.Stderr, "\r%d/%d restarts done", done, p.Restarts())
	})
	fmt.Fprintln(os.Stderr)
	if err != nil {
		return err
	}
	sum := clue.Summarize(prob.X0, prob.Z0, prob.Models().BNN.Classes, p, exps)
	rep := clue.Report{Input: input, Params: p, X0: x0, Z0: prob.Z0, Prediction: prob.Pred0, Label: prob.Pred0.Label(),
		Summary: sum, Explanations: exps, Seconds: time.Since(start).Seconds()}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	js, err := json.MarshalIndent(rep, "", " ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(*out, "explain.json"), js, 0o644); err != nil {
		return err
	}
	if err := writePNG(filepath.Join(*out, "grid.png"), renderGrid(x0, rep.Label, prob.Pred0.Total, exps, *cols)); err != nil {
		return err
	}
	if err := writePNG(filepath.Join(*out, "labels.png"), renderLabelChart(prob.Pred0.Probs, sum.LabelDistribution)); err != nil {
		return err
	}
	fmt.Printf("%s: the BNN says %d with H = %.3f nats (aleatoric %.3f, epistemic %.3f)\n", input, rep.Label,
		prob.Pred0.Total, prob.Pred0.Aleatoric, prob.Pred0.Epistemic)
	fmt.Printf("%d of %d restarts accepted in %.1fs: labels %v, H %.3f..%.3f, d %.1f..%.1f, shell fraction %.2f, %d duplicates, modes %v\n",
		sum.Accepted, sum.Restarts, rep.Seconds, sum.LabelCounts, sum.H.Min, sum.H.Max, sum.D.Min, sum.D.Max, sum.ShellFraction, sum.Duplicates, sum.Modes)
	fmt.Printf("wrote %s/{grid.png,labels.png,explain.json}\n", *out)
	return nil
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
			return nil, "", fmt.Errorf("%s: %v", pngPath, err)
		}
		b := img.Bounds()
		rgba := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
		draw.Draw(rgba, rgba.Bounds(), img, b.Min, draw.Src)
		x, err := mnist.Preprocess(mnist.Intensities(rgba.Pix, b.Dx(), b.Dy()), b.Dx(), b.Dy())
		if err != nil {
			return nil, "", fmt.Errorf("%s: %v", pngPath, err)
		}
		return x, pngPath, nil
	}
	return nil, "", fmt.Errorf("say what to explain: -digit N (a test digit) or -png FILE")
}

// fromLink decodes a share link and checks it was made with the shipped models.
func fromLink(link string) ([]float32, clue.Params, error) {
	s, err := sharelink.Decode(link)
	if err != nil {
		return nil, clue.Params{}, err
	}
	fingerprint, err := weights.ShippedFingerprint()
	if err != nil {
		return nil, clue.Params{}, err
	}
	if err := sharelink.CheckModel(s, fingerprint); err != nil {
		return nil, clue.Params{}, err
	}
	return s.Float(), s.Params, nil
}
