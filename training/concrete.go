package training

import (
	"math"
	"slices"

	"github.com/deltaclue/deltaclue/internal/concrete"
	"github.com/deltaclue/deltaclue/internal/dataset"
	"github.com/deltaclue/deltaclue/weights"
)

// The concrete models (issue 42), a regression: a heteroscedastic MC-dropout MLP that predicts a mix's
// compressive strength as a Gaussian (weights.Regression: its mean and standard deviation in MPa), and a VAE of
// the mixes, both reading the row of 8 standardised numbers (internal/concrete's schema). They are the credit
// models' shapes (TableDescription): the MLP's dropout after each hidden activation, which the engine folds into
// the dense layer after it (K fixed masks from the mask seed), its last layer two outputs instead of a class's
// logits; the VAE's decoder the mixed likelihood, which for a row of numbers only is a unit-variance Gaussian
// about each standardised number. docs/regression.md has the choices and the measures.

// ConcreteName is the concrete models' name in links and on the command line.
const ConcreteName = "concrete"

// ConcreteHidden is the width of the concrete networks' two hidden layers.
const ConcreteHidden = 64

// ConcreteLatent is the concrete VAE's latent size. The seven ingredients add up to about the mass of a cubic
// metre of concrete, so a mix has about six degrees of freedom and its age a seventh: 6 dimensions reconstruct
// the validation mixes to about a tenth of a standard deviation, as 7 do, and 5 to about 0.15
// (docs/regression.md).
const ConcreteLatent = 6

// ConcreteRanges are the edges of the ranges of strength the modes are: 10 MPa wide from 20 to 60 MPa, below 20
// and 60 or more open-ended (the outer edges, 0 and 90, bound the data's 2.3 to 82.6 MPa for a plot). The inner
// edges are the training strengths' quintiles (20.7, 31.0, 39.2 and 49.0 MPa) rounded to 5 MPa, and the round
// strengths concrete is specified by; 60 MPa or more, high-strength concrete, is 8 % of the training mixes.
var ConcreteRanges = []float64{0, 20, 30, 40, 50, 60, 90}

// ConcreteSurePercentile is the percentile of the predictive σ over the training mixes that the threshold of
// sure, τ, is (ConcreteSure): a quarter of the training mixes are predicted surely.
const ConcreteSurePercentile = 25

// ConcreteSure is the threshold of sure chosen from the predictive standard deviations σ (MPa) of the training
// mixes: their ConcreteSurePercentile-th percentile (nearest rank), rounded to 0.1 MPa.
func ConcreteSure(sigmas []float64) float64 {
	s := slices.Sorted(slices.Values(sigmas))
	k := int(math.Ceil(ConcreteSurePercentile/100.0*float64(len(s)))) - 1
	return math.Round(s[max(k, 0)]*10) / 10
}

// ConcreteRegression is the concrete models' regression with the threshold of sure: the target Strength in MPa
// standardised by the training split's mean and standard deviation (internal/concrete's target.json), σ the
// softplus of the second output, the ranges ConcreteRanges.
func ConcreteRegression(sure float64) *weights.Regression {
	t := concrete.Target()
	return &weights.Regression{Target: t.Name, Unit: t.Unit, Mean: t.Mean, Std: t.Std, Sigma: weights.SigmaSoftplus, Sure: sure,
		Ranges: slices.Clone(ConcreteRanges)}
}

// ConcreteDescription is the concrete models' description with the regressor's dropout rate and the threshold of
// sure (τ, MPa; chosen after training, ConcreteSure: the description a regressor trains with may give 0).
func ConcreteDescription(rate, sure float64) *weights.Description {
	r := ConcreteRegression(sure)
	d := AsRegression(TableDescription(ConcreteName, "Concrete strength", "mix", concrete.Columns(), r.RangeNames(), rate, ConcreteHidden, ConcreteLatent), r)
	delta, lambda, dedup := ConcreteSearch.Delta, ConcreteSearch.LambdaX, ConcreteSearch.DedupL1
	d.Search = &weights.SearchDefaults{Delta: &delta, LambdaX: &lambda, DedupL1: &dedup}
	return d
}

// ConcreteSearch are the concrete models' search defaults (their threshold is τ, the regression's sure), measured
// with the shipped models on the 150 test mixes they are unsure of (σ > 3.1 MPa), 100 restarts each:
//   - δ 2: at δ 1, 72 % of them reach an explanation the model is sure of; at δ 2, 94 %; at δ 3, 98 %, the
//     cheapest no closer.
//   - λx 0.3: at δ 2 every λx of 0.03, 0.1 and 0.3 reaches the same 94 %, and 0.3 the closest (the cheapest sure
//     explanation's row distance 1.56 at the median, against 1.98 and 2.27).
//   - dedup_l1 0.25, as credit's, not the digits' 10 (which made nearly every explanation of a mix a duplicate of
//     another): between the sure explanations of ten mixes, the pairwise L1's first percentile is 0.22.
var ConcreteSearch = struct{ Delta, LambdaX, DedupL1 float64 }{2, 0.3, 0.25}

// DefaultConcreteRegressor is how the concrete regressor is trained: Adam, batches of 32, early stopping on the
// validation rows' predictive NLL, three candidate dropout rates.
var DefaultConcreteRegressor = ClassifierConfig{
	Loop:     Loop{Seed: 42, Batch: 32, LR: 1e-3, MaxEpochs: 1500, Patience: 150},
	Dropouts: []float64{0.05, 0.1, 0.2},
}

// DefaultConcreteVAE is how the concrete VAE is trained: Adam, batches of 32, early stopping on the validation
// objective, the KL weighted by β = 0.01. The mixed likelihood scores each standardised number with a Gaussian of
// unit variance, the numbers' own spread, so with the plain ELBO a nat of KL costs as much as reconstructing a
// number to within its standard deviation, and the VAE reconstructs the validation mixes only to 0.5 to 0.8 of
// one (their predictive means 13 MPa apart, RMS). Weighting the KL by β is the plain ELBO of a Gaussian of
// variance β: β = 0.01 asks for a tenth of a standard deviation, which is what it gives (0.06 to 0.13, the
// predictive means 5 MPa apart); smaller βs give little more and loosen the prior (docs/regression.md).
var DefaultConcreteVAE = Loop{Seed: 44, Batch: 32, LR: 1e-3, MaxEpochs: 1500, Patience: 100, KLWeight: 0.01}

// ConcreteValidationSeed draws the validation part of the concrete training split (concrete.Split: 20 % of its
// distinct mixes), on which training stops early and picks the dropout rate.
const ConcreteValidationSeed = 4201

// ConcreteSplit divides the training mixes into the part the networks train on and the validation part, rows of
// the same inputs on the same side.
func ConcreteSplit(t *dataset.Table) (train, val *dataset.Table) {
	mixes := make([]concrete.Mix, t.Len())
	for i := range mixes {
		mixes[i] = concrete.Mix{Row: t.Rows[i], Strength: t.Targets[i]}
	}
	tr, va := concrete.Split(mixes, ConcreteValidationSeed)
	return t.Subset(tr), t.Subset(va)
}
