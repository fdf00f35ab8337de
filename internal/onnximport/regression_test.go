//go:build !js

package onnximport

import (
	"math"
	"strings"
	"testing"

	"github.com/deltaclue/deltaclue/weights"
)

// TestRegressionOutputs: a regression network's raw outputs become the standardised mean and σ its form
// declares (softplus, or e^{o/2} of a log variance), and a σ that is NaN, infinite or not above 0 is refused in
// a sentence naming the graph, the runtime, the input and the value.
func TestRegressionOutputs(t *testing.T) {
	soft := &weights.Regression{Target: "Strength", Unit: "MPa", Mean: 35, Std: 16, Sigma: weights.SigmaSoftplus}
	logVar := &weights.Regression{Target: "Strength", Unit: "MPa", Mean: 35, Std: 16, Sigma: weights.SigmaLogVariance}
	got, err := regressionOutputs([]float32{0.5, 0, -1, 2}, soft, "the classifier", "onnx-gomlx")
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0.5, math.Log(2), -1, 2 + math.Log1p(math.Exp(-2))}
	for i := range want {
		if math.Abs(float64(got[i])-want[i]) > 1e-6 {
			t.Errorf("softplus: %v, want %v", got, want)
		}
	}
	got, err = regressionOutputs([]float32{0.5, 2}, logVar, "the classifier", "onnx-gomlx")
	if err != nil || math.Abs(float64(got[1])-math.E) > 1e-6 {
		t.Errorf("log-variance: %v %v, want σ e", got, err)
	}
	nan := float32(math.NaN())
	for _, c := range []struct {
		r *weights.Regression
		y []float32
	}{{soft, []float32{0, 1, 0, nan}}, {logVar, []float32{0, 1, 0, -2000}}, {soft, []float32{0, 1, nan, 0}}} {
		_, err := regressionOutputs(c.y, c.r, "the classifier", "onnxruntime-web")
		if err == nil || !strings.Contains(err.Error(), "the classifier gives input 1, in onnxruntime-web,") || !strings.Contains(err.Error(), "σ must be a positive number, so nothing is written") {
			t.Errorf("%v (%s): %v", c.y, c.r.Sigma, err)
		}
	}
}

// TestRegressionOutputRefused: a network that does not end in a regression's two raw outputs is refused in one
// sentence naming what it ends in.
func TestRegressionOutputRefused(t *testing.T) {
	r := &weights.Regression{Target: "Strength", Sigma: weights.SigmaSoftplus}
	for _, c := range []struct {
		n    Network
		want string
	}{
		{Network{Out: weights.Vector(1)}, "the classifier ends in 1 output, and a regression of Strength declared with -target ends in 2 outputs: the standardised mean and the σ head"},
		{Network{Out: weights.Vector(3)}, "the classifier ends in 3 outputs, and a regression"},
		{Network{Out: weights.Vector(2), Final: "Softmax"}, "the classifier ends in a Softmax; a regression's network ends in its two raw outputs"},
	} {
		err := checkRegressionOutput("the classifier", &c.n, r)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || strings.Count(err.Error(), ". ") > 0 {
			t.Errorf("%v: %v, want %q…", c.n.Out, err, c.want)
		}
	}
	if err := checkRegressionOutput("the classifier", &Network{Out: weights.Vector(2)}, r); err != nil {
		t.Error(err)
	}
}
