package training

import (
	"fmt"
	"math"
	"slices"

	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"

	"github.com/deltaclue/deltaclue/engine/rng"
	"github.com/deltaclue/deltaclue/internal/dataset"
	"github.com/deltaclue/deltaclue/weights"
)

// A regression's networks (issue 42; weights.Regression) end in two outputs per row, o0 and o1: in the target's
// standardised units, a Gaussian's mean o0 and standard deviation softplus(o1) (or exp(o1/2), a log variance's).
// They are trained as a classifier is (TrainClassifier: the same MC-dropout masks, the same loop), on the
// Gaussian negative log-likelihood of the standardised target (CLUE's heteroscedastic BNN), and measured on the
// predictive mixture of their posterior samples.

// AsRegression makes d's classifier (an MC-dropout network or an ensemble, as TableDescription describes it) a
// predictor of the number r declares: format 4, the classes r's ranges' names, each network's last layer two
// outputs. It returns d.
func AsRegression(d *weights.Description, r *weights.Regression) *weights.Description {
	d.Format, d.Regression, d.Classes = weights.FormatRegression, r, r.RangeNames()
	for i := range d.Classifier.Networks {
		layers := d.Classifier.Networks[i].Layers
		layers[len(layers)-1].Out = weights.RegressionOutputs
	}
	return d
}

// regressionSigma is the standardised standard deviation a regression network's second output o1 declares.
func regressionSigma(sigma string, o1 *Node) *Node {
	if sigma == weights.SigmaLogVariance {
		return Exp(MulScalar(o1, 0.5))
	}
	return Softplus(o1)
}

// RegressionNLL is the Gaussian negative log-likelihood per row [N] of standardised targets y [N] under a
// regression network's outputs out [N, 2] (sigma says how o1 is the standard deviation σ):
// log σ + (y − o0)²/(2σ²) + log(2π)/2.
func RegressionNLL(sigma string, out, y *Node) *Node {
	o0 := Reshape(Slice(out, AxisRange(), AxisElem(0)), -1)
	s := regressionSigma(sigma, Reshape(Slice(out, AxisRange(), AxisElem(1)), -1))
	z := Div(Sub(y, o0), s)
	return AddScalar(Add(Log(s), MulScalar(Square(z), 0.5)), 0.5*math.Log(2*math.Pi))
}

// RegressionSamplesGraph returns the regression's posterior samples (SampleOutputs: the fixed MC-dropout masks,
// or an ensemble's members) for rows x [N, F], in the target's unit: each sample's mean μ_k = Mean + Std·o0 and
// standard deviation σ_k = Std·softplus(o1) (or Std·exp(o1/2)), both [K, N].
func RegressionSamplesGraph(p Tensors, d *weights.Description, x *Node) (mu, sigma *Node) {
	r := d.Regression
	var mus, sigmas []*Node
	for _, o := range SampleOutputs(p, d, x) { // [2, N]
		mus = append(mus, AddScalar(MulScalar(Slice(o, AxisElem(0), AxisRange()), r.Std), r.Mean))
		sigmas = append(sigmas, MulScalar(regressionSigma(r.Sigma, Slice(o, AxisElem(1), AxisRange())), r.Std))
	}
	return Concatenate(mus, 0), Concatenate(sigmas, 0)
}

// RegressionPrediction is a regression's predictive for one row, in the target's unit: the mean of its samples'
// means, and the total standard deviation √(mean σ_k² + var μ_k), whose two parts are the aleatoric (the mean
// of the samples' variances) and the epistemic (the variance of their means), each given as a standard
// deviation.
type RegressionPrediction struct {
	Mean, Sigma, Aleatoric, Epistemic float64
}

// Predictive combines one row's posterior samples' means and standard deviations.
func Predictive(mu, sigma []float64) RegressionPrediction {
	k := float64(len(mu))
	var mean, alea, epi float64
	for i := range mu {
		mean += mu[i] / k
		alea += sigma[i] * sigma[i] / k
	}
	for _, m := range mu {
		epi += (m - mean) * (m - mean) / k
	}
	return RegressionPrediction{Mean: mean, Sigma: math.Sqrt(alea + epi), Aleatoric: math.Sqrt(alea), Epistemic: math.Sqrt(epi)}
}

// MixtureNLL is the negative log density (nats, in the target's unit) of y under the predictive mixture of the
// samples, (1/K) Σ_k N(y; μ_k, σ_k²).
func MixtureNLL(mu, sigma []float64, y float64) float64 {
	logs := make([]float64, len(mu))
	for i := range mu {
		z := (y - mu[i]) / sigma[i]
		logs[i] = -0.5*z*z - math.Log(sigma[i]) - 0.5*math.Log(2*math.Pi)
	}
	top := slices.Max(logs)
	var sum float64
	for _, l := range logs {
		sum += math.Exp(l - top)
	}
	return -(top + math.Log(sum/float64(len(mu))))
}

// LargestErrors is the share of rows whose absolute errors, the largest, are the positives of
// RegressionQuality.AUROC.
const LargestErrors = 0.2

// RegressionQuality is a regression measured on rows with targets, its predictive as Predictive combines it.
type RegressionQuality struct {
	Rows int     `json:"rows"`
	RMSE float64 `json:"rmse"` // of the predictive mean, in the target's unit
	// NLL is the mean negative log density of the targets under the predictive mixture (MixtureNLL), nats.
	NLL float64 `json:"nll"`
	// Within1Sigma and Within2Sigma are the shares of targets within the predictive mean ± 1 and 2 predictive
	// standard deviations (about 0.68 and 0.95 when σ is calibrated).
	Within1Sigma float64 `json:"within_1_sigma"`
	Within2Sigma float64 `json:"within_2_sigma"`
	// AUROC is σ's, for telling the rows of the largest absolute errors (the top LargestErrors of them) from the
	// rest.
	AUROC float64 `json:"auroc"`
	// MeanSigma, MeanAleatoric and MeanEpistemic are the predictive standard deviation and its two parts,
	// averaged over the rows, in the target's unit.
	MeanSigma     float64 `json:"mean_sigma"`
	MeanAleatoric float64 `json:"mean_aleatoric"`
	MeanEpistemic float64 `json:"mean_epistemic"`
}

// MeasureRegression measures d's regression (tensors from p) on rows with targets, with gomlx.
func MeasureRegression(backend compute.Backend, d *weights.Description, p Tensors, set *dataset.Table) (RegressionQuality, error) {
	if err := checkTargets(d, set); err != nil {
		return RegressionQuality{}, err
	}
	exec := regressionExec(backend, d, p)
	mu, sigma := regressionSamples(exec.MustExec, set)
	return regressionQuality(mu, sigma, set.Targets), nil
}

// RegressionPredictions are d's predictives (tensors from p) for rows, with gomlx.
func RegressionPredictions(backend compute.Backend, d *weights.Description, p Tensors, set dataset.Items) []RegressionPrediction {
	exec := regressionExec(backend, d, p)
	mu, sigma := regressionSamples(exec.MustExec, set)
	out := make([]RegressionPrediction, len(mu))
	for i := range mu {
		out[i] = Predictive(mu[i], sigma[i])
	}
	return out
}

// regressionExec compiles RegressionSamplesGraph: rows [n, F] → the samples' means and standard deviations, each
// [K, n].
func regressionExec(backend compute.Backend, d *weights.Description, p Tensors) *Exec {
	return MustNewExec(backend, func(x *Node) []*Node {
		mu, sigma := RegressionSamplesGraph(p, d, x)
		return []*Node{mu, sigma}
	})
}

// checkTargets checks that d is a regression and that every row of set has its target.
func checkTargets(d *weights.Description, set *dataset.Table) error {
	if !d.IsRegression() {
		return fmt.Errorf("the %q models are a classifier, not a regression", d.Name)
	}
	if len(set.Targets) != set.Len() {
		return fmt.Errorf("%d rows with %d targets", set.Len(), len(set.Targets))
	}
	return nil
}

// regressionSamples runs a graph of the samples' means and standard deviations (each [K, n]) on set in chunks,
// and returns them per row: mu[i][k], sigma[i][k].
func regressionSamples(run func(...any) []*tensors.Tensor, set dataset.Items) (mu, sigma [][]float64) {
	batchChunks(set.Len(), 500, func(lo, hi int) {
		m, s := samplesPerRow(run(itemFloats(set, lo, hi)))
		mu, sigma = append(mu, m...), append(sigma, s...)
	})
	return mu, sigma
}

// samplesPerRow reads the samples' means and standard deviations, out[0] and out[1] [K, n], per row.
func samplesPerRow(out []*tensors.Tensor) (mu, sigma [][]float64) {
	m, s := tensors.MustCopyFlatData[float32](out[0]), tensors.MustCopyFlatData[float32](out[1])
	k := out[0].Shape().Dimensions[0]
	n := len(m) / k
	mu, sigma = make([][]float64, n), make([][]float64, n)
	for i := range n {
		mu[i], sigma[i] = make([]float64, k), make([]float64, k)
		for j := range k {
			mu[i][j], sigma[i][j] = float64(m[j*n+i]), float64(s[j*n+i])
		}
	}
	return mu, sigma
}

// regressionQuality measures the samples' predictive against the targets.
func regressionQuality(mu, sigma [][]float64, targets []float64) RegressionQuality {
	n := len(targets)
	q := RegressionQuality{Rows: n}
	scores, errs := make([]float64, n), make([]float64, n)
	for i, y := range targets {
		p := Predictive(mu[i], sigma[i])
		e := math.Abs(y - p.Mean)
		q.RMSE += e * e
		q.NLL += MixtureNLL(mu[i], sigma[i], y)
		if e <= p.Sigma {
			q.Within1Sigma++
		}
		if e <= 2*p.Sigma {
			q.Within2Sigma++
		}
		q.MeanSigma += p.Sigma
		q.MeanAleatoric += p.Aleatoric
		q.MeanEpistemic += p.Epistemic
		scores[i], errs[i] = p.Sigma, e
	}
	f := float64(n)
	q.RMSE = math.Sqrt(q.RMSE / f)
	q.NLL /= f
	q.Within1Sigma /= f
	q.Within2Sigma /= f
	q.MeanSigma /= f
	q.MeanAleatoric /= f
	q.MeanEpistemic /= f
	q.AUROC = AUROC(scores, largest(errs, LargestErrors))
	return q
}

// largest marks the share of values that are the largest (round(share·n) of them; of equal values, the first).
func largest(v []float64, share float64) []bool {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return -compareFloat(v[a], v[b]) })
	marked := make([]bool, len(v))
	for _, i := range idx[:int(math.Round(share*float64(len(v))))] {
		marked[i] = true
	}
	return marked
}

func compareFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// trainRegressorRate is trainClassifierRate for a regression: the same masks and loop, on the Gaussian negative
// log-likelihood of the standardised targets, stopped early on the validation rows' predictive NLL.
func trainRegressorRate(backend compute.Backend, c ClassifierConfig, d *weights.Description, rate float64, train, val dataset.Items) ([]weights.Named, float64, map[string]any, error) {
	trainRows, ok := train.(*dataset.Table)
	valRows, ok2 := val.(*dataset.Table)
	if !ok || !ok2 {
		return nil, 0, nil, fmt.Errorf("a regression trains on rows with targets")
	}
	if err := checkTargets(d, trainRows); err != nil {
		return nil, 0, nil, err
	}
	if err := checkTargets(d, valRows); err != nil {
		return nil, 0, nil, err
	}
	specs, err := networkTensors(d.Classifier.Networks[0].Layers, d.InputShape())
	if err != nil {
		return nil, 0, nil, err
	}
	store := newTensorStore(specs, rng.Derive(c.Seed, 0))
	p := StoreTensors(store)
	trainer, err := newClassifierTrainer(backend, store, d, c.LR)
	if err != nil {
		return nil, 0, nil, err
	}
	predict := model.MustNewExec(backend, store, func(scope *model.Scope, x *Node) []*Node {
		mu, sigma := RegressionSamplesGraph(p, d, x)
		return []*Node{mu, sigma}
	})
	maskRand := rng.New(rng.Derive(c.Seed, uint64(rate*1000)+10))
	validate := func() (float64, string) {
		mu, sigma := regressionSamples(predict.MustExec, valRows)
		q := regressionQuality(mu, sigma, valRows.Targets)
		return q.NLL, fmt.Sprintf("dropout %.2f  validation NLL %.4f RMSE %.3f within 1σ %.3f 2σ %.3f", rate, q.NLL, q.RMSE, q.Within1Sigma, q.Within2Sigma)
	}
	r := d.Regression
	targets := make([]float32, c.Batch)
	best, bestEpoch, history := c.run("regressor", func() []weights.Named { return snapshotTensors(store, specs) }, train,
		func(epoch int, batch []int, images []float32) {
			for k, i := range batch {
				targets[k] = float32((trainRows.Targets[i] - r.Mean) / r.Std)
			}
			trainer.stepTargets(images, targets[:len(batch)], maskRand)
		}, validate)
	q, err := MeasureRegression(backend, d, namedTensors(best), valRows)
	if err != nil {
		return nil, 0, nil, err
	}
	return best, q.NLL, map[string]any{"best_epoch": bestEpoch, "epochs": len(history), "validation": q, "history": history}, nil
}
