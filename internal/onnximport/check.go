//go:build !js

package onnximport

import (
	"context"
	"fmt"
	"math"

	"github.com/deltaclue/deltaclue/engine"
	"github.com/deltaclue/deltaclue/internal/onnxfile"
	"github.com/deltaclue/deltaclue/internal/ortnode"
	"github.com/deltaclue/deltaclue/training"
	"github.com/deltaclue/deltaclue/weights"
)

// Tolerance is how far the engine's float32 forward may be from the independent runtime's, per value: the
// classifier's probabilities, the encoder's means and the decoded images.
const Tolerance = 1e-4

// File is one ONNX file the import converted, for the check.
type File struct {
	Role string // "the classifier", "the ensemble's member 2", "the encoder", "the decoder"
	Path string
	Net  *Network
}

// Agreement is one graph's check: which runtime ran it and the largest difference from the engine.
type Agreement struct {
	Role, Runtime string
	Values        int
	MaxDiff       float64
}

// Check runs each graph in an independent runtime, onnx-gomlx in process where it runs every op of the graph,
// else onnxruntime-web under Node (ort; nil when it is not installed), on the inputs x (n items of the
// classifier's input), and compares the outputs with the engine's float32 forward of the description d over
// files: the classifiers' probabilities (each member alone, dropout off, as an eval-mode export runs; a
// regression's standardised mean and standard deviation per input instead, the engine's predictive of the member
// alone against the σ its form declares of the runtime's second output), the
// encoder's means of x, and the decoder's images of those means. It returns every graph's agreement, and an
// error naming the first graph that differs by more than Tolerance or that no runtime could run.
func Check(ctx context.Context, d *weights.Description, files map[string]*weights.File, graphs []File, x []float32, n int, ort *ortnode.Runtime) ([]Agreement, error) {
	return check(ctx, d, files, graphs, x, n, []runner{func(ctx context.Context, path string, x []float32, dims []int) ([]float32, string, error) {
		return runReference(ctx, path, x, dims, ort)
	}})
}

// CheckBoth is Check in each runtime in turn: onnx-gomlx wherever it runs every op of a graph, and
// onnxruntime-web too when it is installed (ort not nil). A table's networks are small MLPs, so checking them
// twice costs a second or two.
func CheckBoth(ctx context.Context, d *weights.Description, files map[string]*weights.File, graphs []File, x []float32, n int, ort *ortnode.Runtime) ([]Agreement, error) {
	runners := []runner{func(ctx context.Context, path string, x []float32, dims []int) ([]float32, string, error) {
		m, err := onnxfile.ReadFile(path)
		if err != nil {
			return nil, "", err
		}
		if lacks := ReferenceLacks(m); lacks != "" || ort == nil {
			return runReference(ctx, path, x, dims, ort) // onnxruntime-web alone, or the error saying it is missing
		}
		y, err := runGomlx(path, x, dims)
		return y, "onnx-gomlx", err
	}}
	if ort != nil {
		runners = append(runners, func(ctx context.Context, path string, x []float32, dims []int) ([]float32, string, error) {
			y, _, err := ort.Run(ctx, path, x, dims...)
			return y, "onnxruntime-web " + ortnode.Version, err
		})
	}
	return check(ctx, d, files, graphs, x, n, runners)
}

// runner runs an ONNX file on inputs x of dims, and names its runtime.
type runner func(ctx context.Context, path string, x []float32, dims []int) ([]float32, string, error)

func check(ctx context.Context, d *weights.Description, files map[string]*weights.File, graphs []File, x []float32, n int, runners []runner) ([]Agreement, error) {
	in := d.InputShape()
	dims := []int{n, in.C, in.H, in.W}
	if in.Flat { // a table's flattened rows
		dims = []int{n, in.Size()}
	}
	vae, _, err := engine.Load(d, files)
	if err != nil {
		return nil, err
	}
	z := vae.Encode(x)
	var out []Agreement
	member := 0
	for _, g := range graphs {
		var got, input []float32
		var gdims []int
		switch g.Role {
		case "the encoder":
			got, input, gdims = z, x, dims
		case "the decoder":
			got, input, gdims = vae.DecodeImages(z), z, []int{n, d.VAE.Latent}
		default: // a classifier: this member alone, without dropout
			if got, err = memberOutputs(d, files, member, x); err != nil {
				return out, fmt.Errorf("%s: %w", g.Role, err)
			}
			member++
			input, gdims = x, dims
		}
		for _, run := range runners {
			a, err := agreeIn(ctx, run, g, d, got, input, gdims, n)
			if a.Runtime != "" {
				out = append(out, a)
			}
			if err != nil {
				return out, err
			}
		}
	}
	return out, nil
}

// agreeIn runs graph g in one runtime and compares its output with the engine's, got.
func agreeIn(ctx context.Context, run runner, g File, d *weights.Description, got, input []float32, gdims []int, n int) (Agreement, error) {
	want, runtime, err := run(ctx, g.Path, input, gdims)
	if err != nil {
		return Agreement{}, fmt.Errorf("%s (%s): %w", g.Role, g.Path, err)
	}
	if g.Role != "the encoder" && g.Role != "the decoder" {
		if d.IsRegression() {
			if want, err = regressionOutputs(want, d.Regression, g.Role, runtime); err != nil {
				return Agreement{}, err
			}
		} else {
			want = probabilities(want, len(d.Classes), g.Net.Final)
		}
	}
	if len(want) != len(got) {
		return Agreement{}, fmt.Errorf("%s: %s gives %d values for %d items, the engine %d", g.Role, runtime, len(want), n, len(got))
	}
	a := Agreement{Role: g.Role, Runtime: runtime, Values: len(got)}
	for i := range got {
		diff := math.Abs(float64(got[i]) - float64(want[i]))
		if diff != diff || diff > a.MaxDiff {
			a.MaxDiff = diff
			if diff != diff {
				a.MaxDiff = math.Inf(1)
			}
		}
	}
	if a.MaxDiff > Tolerance {
		return a, fmt.Errorf("%s: the engine's float32 forward differs from %s's by %.3g (over %d values; at most %g is accepted): the conversion does not agree, so nothing is written",
			g.Role, runtime, a.MaxDiff, a.Values, Tolerance)
	}
	return a, nil
}

// memberOutputs is what classifier network k alone gives, its dropout layers left out, for the n inputs x: a
// classifier's softmax, or a regression's standardised mean and standard deviation per input (RegressionValues).
func memberOutputs(d *weights.Description, files map[string]*weights.File, k int, x []float32) ([]float32, error) {
	one := *d
	one.Classifier.Networks = d.Classifier.Networks[k : k+1]
	_, bnn, err := engine.Load(EvalMode(&one), files)
	if err != nil {
		return nil, err
	}
	var out []float32
	for _, u := range bnn.Classify(x) {
		if d.IsRegression() {
			r := d.Regression
			out = append(out, float32((float64(*u.Mean)-r.Mean)/r.Std), float32(float64(u.Total)/r.Std))
			continue
		}
		out = append(out, u.Probs...)
	}
	return out, nil
}

// regressionOutputs turns a regression network's raw ONNX outputs (o0, o1 per input) into what the check
// compares, per input: the standardised mean o0 and the standardised standard deviation, softplus(o1) or
// e^{o1/2} (float64), so that both are of the order of 1 whatever the target's unit. A σ that is not a positive
// number is refused in a sentence naming the graph, the runtime and the input.
func regressionOutputs(y []float32, r *weights.Regression, role, runtime string) ([]float32, error) {
	out := make([]float32, len(y))
	for i := 0; i+1 < len(y); i += 2 {
		o1 := float64(y[i+1])
		sigma := math.Exp(o1 / 2)
		if r.Sigma == weights.SigmaSoftplus {
			sigma = math.Max(o1, 0) + math.Log1p(math.Exp(-math.Abs(o1)))
		}
		mean := float64(y[i])
		if math.IsNaN(mean) || math.IsInf(mean, 0) || math.IsNaN(sigma) || math.IsInf(sigma, 0) || sigma <= 0 {
			return nil, fmt.Errorf("%s gives input %d, in %s, a mean of %g and a σ of %g (%s of its second output, %g): a regression's σ must be a positive number, so nothing is written",
				role, i/2, runtime, r.Mean+r.Std*mean, r.Std*sigma, r.Sigma, o1)
		}
		out[i], out[i+1] = float32(mean), float32(sigma)
	}
	return out, nil
}

// EvalMode is the description with its classifier as PyTorch's eval mode runs it: every network without its
// dropout layers (in a graph, each an identity of its name and inputs, which other layers may read), an
// ensemble of them (the mean of their softmaxes, as a deep ensemble's prediction is); one network becomes an
// ensemble of two copies of itself, whose mean is its softmax to the bit.
func EvalMode(d *weights.Description) *weights.Description {
	out := *d
	var nets []weights.Network
	for _, n := range d.Classifier.Networks {
		var layers []weights.Layer
		graph := n.UsesGraphs()
		for _, l := range n.Layers {
			switch {
			case l.Op != weights.OpDropout:
				layers = append(layers, l)
			case graph:
				layers = append(layers, weights.Layer{Op: weights.OpIdentity, Name: l.Name, Inputs: l.Inputs})
			}
		}
		n.Layers = layers
		nets = append(nets, n)
	}
	if len(nets) == 1 {
		nets = append(nets, nets[0])
	}
	out.Classifier = weights.Classifier{Uncertainty: weights.UncertaintyEnsemble, Samples: len(nets), Networks: nets}
	return &out
}

// probabilities turns a classifier's raw ONNX outputs into probabilities, as the import took its final op off:
// a softmax's are already, log-probabilities are exponentiated, logits go through a softmax (float64).
func probabilities(y []float32, classes int, final string) []float32 {
	if final == "Softmax" || classes == 0 {
		return y
	}
	out := make([]float32, len(y))
	for i := 0; i+classes <= len(y); i += classes {
		row := y[i : i+classes]
		if final == "LogSoftmax" {
			for j, v := range row {
				out[i+j] = float32(math.Exp(float64(v)))
			}
			continue
		}
		m := math.Inf(-1)
		for _, v := range row {
			m = math.Max(m, float64(v))
		}
		var sum float64
		for _, v := range row {
			sum += math.Exp(float64(v) - m)
		}
		for j, v := range row {
			out[i+j] = float32(math.Exp(float64(v)-m) / sum)
		}
	}
	return out
}

// runReference runs the ONNX file at path on x: in onnx-gomlx when it runs every op, else in onnxruntime-web.
func runReference(ctx context.Context, path string, x []float32, dims []int, ort *ortnode.Runtime) ([]float32, string, error) {
	m, err := onnxfile.ReadFile(path)
	if err != nil {
		return nil, "", err
	}
	lacks := ReferenceLacks(m)
	if lacks == "" {
		y, err := runGomlx(path, x, dims)
		if err == nil {
			return y, "onnx-gomlx", nil
		}
		if ort == nil {
			return nil, "", err
		}
	}
	if ort == nil {
		return nil, "", fmt.Errorf("onnx-gomlx does not run its %s node, and onnxruntime-web, the second checker, is not installed (make onnxruntime, or deltaclue import -setup): the import checks every graph before it writes", lacks)
	}
	y, _, err := ort.Run(ctx, path, x, dims...)
	if err != nil {
		return nil, "", err
	}
	return y, "onnxruntime-web " + ortnode.Version, nil
}

func runGomlx(path string, x []float32, dims []int) ([]float32, error) {
	ref, err := NewReference(training.Backend(), path)
	if err != nil {
		return nil, err
	}
	return ref.Run(x, dims...)
}
