package clue

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"testing"
	"time"

	"github.com/deltaclue/deltaclue/engine"
	"github.com/deltaclue/deltaclue/internal/testbundle"
)

// trainedBarsGolden is the SHA-256 of TestTrainedImageRegressor's search, first computed natively: the same
// test trains the same weights and finds the same bits under GOOS=js GOARCH=wasm, with and without the SIMD
// kernel, and on amd64 with every native kernel.
const trainedBarsGolden = "2b5207714b25711c28a5cb9ef07dd065e24b473b04fefdad166508874a2287fb"

// TestTrainedImageRegressor (issue 42, part 6): an image regressor trained here (internal/testbundle's bars:
// the row of a bar, measured worse the dimmer it is) has learnt its target and its noise, and a δ-CLUE search
// from the held-out bar it is least sure of gives the same bits on every platform.
func TestTrainedImageRegressor(t *testing.T) {
	start := time.Now()
	b, err := testbundle.TrainedBars(11, 512)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("trained in %v; τ %g px", time.Since(start).Round(time.Millisecond), b.Description.Regression.Sure)
	v, c, err := engine.Load(b.Description, b.Files)
	if err != nil {
		t.Fatal(err)
	}
	held := testbundle.BarImages(12, 200)
	x := make([]float32, 0, len(held)*testbundle.BarSize*testbundle.BarSize)
	for _, bar := range held {
		x = append(x, bar.Image...)
	}
	preds := c.Classify(x)
	var se, spread, mean float64
	for _, bar := range held {
		mean += bar.Row / float64(len(held))
	}
	var dim, bright []float64
	for i, bar := range held {
		d := float64(*preds[i].Mean) - bar.Row
		se += d * d
		spread += (bar.Row - mean) * (bar.Row - mean)
		switch {
		case bar.Ink < 0.5:
			dim = append(dim, float64(preds[i].Total))
		case bar.Ink > 0.8:
			bright = append(bright, float64(preds[i].Total))
		}
	}
	rmse, std := math.Sqrt(se/float64(len(held))), math.Sqrt(spread/float64(len(held)))
	sDim, sBright := stat(dim).Mean, stat(bright).Mean
	t.Logf("held-out bars: RMSE %.3f px (the rows' spread %.3f); mean σ %.3f px for dim bars, %.3f for bright ones", rmse, std, sDim, sBright)
	if rmse > 0.5*std {
		t.Errorf("the trained regressor's RMSE %.3f px is over half the rows' spread %.3f: it has not learnt the row", rmse, std)
	}
	if sDim < 1.5*sBright {
		t.Errorf("σ is %.3f px for dim bars and %.3f for bright ones: the regressor has not learnt that dim bars are measured worse", sDim, sBright)
	}

	i := MostUncertain(c, x, 1)[0]
	prob, err := NewProblem(&Models{VAE: v, BNN: c, desc: b.Description}, x[i*c.Input.Size():(i+1)*c.Input.Size()])
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	regressionSearch(t, h, prob, b.Description, 3)
	if got := hex.EncodeToString(h.Sum(nil)); got != trainedBarsGolden {
		t.Errorf("the trained bars' search hashes to %s, want %s", got, trainedBarsGolden)
	}
}
