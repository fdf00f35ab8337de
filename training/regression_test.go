package training

import (
	"math"
	"testing"

	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/deltaclue/deltaclue/engine/rng"
	"github.com/deltaclue/deltaclue/internal/dataset"
	"github.com/deltaclue/deltaclue/weights"
)

// TestRegressionNLL: the graph's Gaussian NLL is log σ + (y − o0)²/(2σ²) + log(2π)/2 with σ = softplus(o1) or
// exp(o1/2), as computed by hand.
func TestRegressionNLL(t *testing.T) {
	out := []float32{0.5, -1, 2, 0.3, -1, 2}
	y := []float32{1, 0, -3}
	for _, sigma := range []string{weights.SigmaSoftplus, weights.SigmaLogVariance} {
		exec := MustNewExec(Backend(), func(o, t *Node) *Node { return RegressionNLL(sigma, o, t) })
		got := tensors.MustCopyFlatData[float32](exec.MustExec(tensors.FromFlatDataAndDimensions(out, 3, 2), tensors.FromFlatDataAndDimensions(y, 3))[0])
		for i := range y {
			o0, o1 := float64(out[2*i]), float64(out[2*i+1])
			s := math.Log1p(math.Exp(o1))
			if sigma == weights.SigmaLogVariance {
				s = math.Exp(o1 / 2)
			}
			z := (float64(y[i]) - o0) / s
			want := math.Log(s) + z*z/2 + math.Log(2*math.Pi)/2
			if math.Abs(float64(got[i])-want) > 1e-5 {
				t.Errorf("%s, row %d: NLL %g, want %g", sigma, i, got[i], want)
			}
		}
	}
}

// TestPredictive: the predictive mean is the samples' mean; its variance the mean of their variances (aleatoric)
// plus the variance of their means (epistemic); the mixture's NLL of one sample is that Gaussian's.
func TestPredictive(t *testing.T) {
	p := Predictive([]float64{30, 34}, []float64{3, 4})
	if p.Mean != 32 || math.Abs(p.Aleatoric-math.Sqrt(12.5)) > 1e-12 || p.Epistemic != 2 || math.Abs(p.Sigma-math.Sqrt(16.5)) > 1e-12 {
		t.Errorf("predictive: %+v", p)
	}
	if got, want := MixtureNLL([]float64{30}, []float64{2}, 33), math.Log(2)+1.5*1.5/2+math.Log(2*math.Pi)/2; math.Abs(got-want) > 1e-12 {
		t.Errorf("one sample's NLL %g, want %g", got, want)
	}
	// Two samples far apart: the density at one's mean is half its Gaussian's.
	if got, want := MixtureNLL([]float64{0, 1000}, []float64{1, 1}, 0), math.Log(2)+math.Log(2*math.Pi)/2; math.Abs(got-want) > 1e-9 {
		t.Errorf("a mixture's NLL %g, want %g", got, want)
	}
	if m := largest([]float64{1, 5, 3, 5, 0}, 0.4); m[0] || !m[1] || m[2] || !m[3] || m[4] {
		t.Errorf("the largest 40 %%: %v", m)
	}
}

// TestTrainRegressor: an MC-dropout regression trained on rows whose noise grows with |x| (y = 2x + ε, ε's
// standard deviation 0.2 + 0.5|x|) learns the mean and that σ grows with |x|, calibrated on held-out rows; the
// same seed gives the same weights.
func TestTrainRegressor(t *testing.T) {
	cols := weights.Columns{{Name: "x", Kind: weights.ColumnNumber, Range: [2]float64{-2, 2}, Mean: 0, Std: 1, Change: weights.ChangeFree}}
	r := &weights.Regression{Target: "y", Mean: 0, Std: 2, Sigma: weights.SigmaSoftplus, Sure: 0.5, Ranges: []float64{-5, 0, 5}}
	describe := func(rate float64) *weights.Description {
		return AsRegression(TableDescription("synthetic", "Synthetic", "row", cols, r.RangeNames(), rate, 16, 2), r)
	}
	noise := func(x float64) float64 { return 0.2 + 0.5*math.Abs(x) }
	rows := func(n int, seed uint64) *dataset.Table {
		g := rng.New(seed)
		xs, labels, ys := make([][]float64, n), make([]int, n), make([]float64, n)
		for i := range n {
			x := 4*g.Float64() - 2
			xs[i], ys[i] = []float64{x}, 2*x+noise(x)*g.Norm()
			labels[i] = r.Range(ys[i])
		}
		tab, err := dataset.NewTable(cols, xs, labels)
		if err != nil {
			t.Fatal(err)
		}
		tab.Targets = ys
		return tab
	}
	train, val, test := rows(800, 1), rows(200, 2), rows(400, 3)
	cfg := ClassifierConfig{Loop: Loop{Seed: 5, Batch: 32, LR: 3e-3, MaxEpochs: 300, Patience: 60}, Dropouts: []float64{0.05}}
	named, d, _, err := TrainClassifier(Backend(), cfg, describe, train, val)
	if err != nil {
		t.Fatal(err)
	}
	q, err := MeasureRegression(Backend(), d, NamedTensors(named), test)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("held out: %+v", q)
	// The noise's RMS over x uniform in [−2, 2] is √(0.04 + 0.2 + 0.25·4/3) ≈ 0.76.
	if !(q.RMSE < 0.9) || !(q.Within2Sigma >= 0.9 && q.Within2Sigma <= 0.99) || !(q.Within1Sigma >= 0.6 && q.Within1Sigma <= 0.85) || !(q.AUROC > 0.6) {
		t.Errorf("held out: %+v", q)
	}
	probe, err := dataset.NewTable(cols, [][]float64{{0}, {1.8}, {-1.8}}, []int{0, 0, 0})
	if err != nil {
		t.Fatal(err)
	}
	preds := RegressionPredictions(Backend(), d, NamedTensors(named), probe)
	t.Logf("at 0, 1.8 and −1.8: %+v", preds)
	for i, x := range []float64{0, 1.8, -1.8} {
		if math.Abs(preds[i].Mean-2*x) > 0.5 || math.Abs(preds[i].Sigma-noise(x)) > 0.3 {
			t.Errorf("at x = %g: mean %.3f, σ %.3f; want about %g and %g", x, preds[i].Mean, preds[i].Sigma, 2*x, noise(x))
		}
	}
	if !(preds[1].Sigma > 2*preds[0].Sigma && preds[2].Sigma > 2*preds[0].Sigma) {
		t.Errorf("σ does not grow with |x|: %+v", preds)
	}
	again, _, _, err := TrainClassifier(Backend(), cfg, describe, train, val)
	if err != nil {
		t.Fatal(err)
	}
	for i := range named {
		for j, v := range named[i].Values {
			if again[i].Values[j] != v {
				t.Fatalf("a second training differs at %s[%d]", named[i].Name, j)
			}
		}
	}
}
