package training

import (
	"fmt"
	"math"

	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/deltaclue/deltaclue/engine/rng"
	"github.com/deltaclue/deltaclue/internal/credit"
	"github.com/deltaclue/deltaclue/internal/dataset"
	"github.com/deltaclue/deltaclue/weights"
)

// The credit models (issue 41): an MC-dropout MLP classifier and a VAE with CLUE's likelihood for mixed data,
// both reading the flattened row (docs/tables.md: 26 values, the 9 integers standardised, the 4 categories
// one-hot).
//
// The classifier mirrors the digits' BNN, so the engine runs it as it runs theirs: dense layers with ReLU and a
// dropout after each hidden activation, which the engine folds into the dense layer after it (K fixed masks
// from the mask seed). The VAE is an MLP both ways; its decoder gives one value per flattened value: each
// number's standardised mean (a unit-variance Gaussian) and each category's logits over its levels
// (weights.LikelihoodMixed).

// CreditName is the credit models' name in links and on the command line.
const CreditName = "credit"

// CreditHidden is the width of the credit networks' two hidden layers: the row has 26 values and the training
// split 3,231 applicants, so 64 units are plenty (a wider MLP fitted no better on the validation part).
const CreditHidden = 64

// CreditLatent is the credit VAE's latent size. Thirteen columns, four of them categories of 2 to 6 levels:
// 6 dimensions reconstruct the numbers and the categories about as well as 8 on the validation rows
// (docs/shipped-models.md), and a small latent space is one the search covers with few restarts.
const CreditLatent = 6

// CreditDescription is the credit models' description with the classifier's dropout rate: the committed schema
// (internal/credit), the classes bad and good, the MC-dropout MLP and the mixed-likelihood VAE.
func CreditDescription(rate float64) *weights.Description {
	d := TableDescription(CreditName, "Credit scoring", "applicant", credit.Columns(), credit.Classes, rate, CreditHidden, CreditLatent)
	delta, lambda, threshold, dedup := CreditSearch.Delta, CreditSearch.LambdaX, CreditSearch.HThreshold, CreditSearch.DedupL1
	d.Search = &weights.SearchDefaults{Delta: &delta, LambdaX: &lambda, HThreshold: &threshold, DedupL1: &dedup}
	return d
}

// CreditSearch is the credit models' search defaults (the description's "search"), measured with S1 (n = 24,
// as internal/searchdefaults searches, the default steps) on every committed test applicant the classifier is
// not sure of at the threshold (docs/tables.md has the grid; with the default n = 100, 98 % of them reach a
// sure explanation: engine/clue's TestCreditDefaults):
//
//   - threshold 0.3 nats, the digits': of two classes, a top probability of 0.91 or more. 555 of the 805 test
//     applicants are above it. At 0.2 (0.95) at most 71 % of them reach a sure explanation with λx 0.1.
//   - δ 2: at δ 1, 62 % reach one (λx 0.1); at δ 2, 89 %, and no farther from the applicant (the cheapest sure
//     explanation's row distance 2.99 against 2.97): λx, not δ, keeps explanations close.
//   - λx 0.1, not the digits' 0.03: the row distance is summed over 13 columns in standard deviations and changed
//     categories, not over 784 pixels; at 0.03, 99 % reach one but 37 % farther (4.11); at 0.3, 51 %.
//   - dedup_l1 0.25, not the digits' 10 (which made nearly every explanation of an applicant a duplicate): a
//     quarter of a standard deviation over all the numbers together, and no category changed (a changed category
//     is 2 of L1). Between the 100 explanations of test applicants 12, 40 and 100 the pairwise L1's first
//     percentile is 0.58, 0.27 and 0.19: near-identical rows, as the digits' 10 marks near-identical images.
var CreditSearch = struct{ Delta, LambdaX, HThreshold, DedupL1 float64 }{2, 0.1, 0.3, 0.25}

// TableDescription describes an MC-dropout MLP classifier (width → hidden → hidden → classes, ReLU, dropout at
// rate after each hidden activation, 20 masks from mask seed 7, as the digits') and an MLP VAE with the mixed
// likelihood (width → hidden → hidden → latent mean, and a log-variance head; latent → hidden → hidden → width)
// of a table.
func TableDescription(name, title, noun string, cols weights.Columns, classes []string, rate float64, hidden, latent int) *weights.Description {
	relu := opLayer(weights.OpReLU)
	dropout := weights.Layer{Op: weights.OpDropout, Rate: rate}
	trunk := []weights.Layer{denseLayer("encoder/0", hidden), relu, denseLayer("encoder/1", hidden), relu}
	return &weights.Description{
		Format: 3, Name: name, Title: title,
		Input:   weights.Input{Kind: weights.KindTable, Columns: cols, Noun: noun},
		Classes: append([]string(nil), classes...),
		Classifier: weights.Classifier{Uncertainty: weights.UncertaintyMCDropout, Samples: 20, MaskSeed: 7,
			Networks: []weights.Network{{File: weights.BundleBNN, Layers: []weights.Layer{
				denseLayer("bnn/0", hidden), relu, dropout, denseLayer("bnn/1", hidden), relu, dropout,
				denseLayer("bnn/2", len(classes)),
			}}}},
		VAE: weights.VAE{Latent: latent, Likelihood: weights.LikelihoodMixed,
			Encoder:     weights.Network{File: weights.BundleVAE, Layers: append(append([]weights.Layer(nil), trunk...), denseLayer("encoder_mean/0", latent))},
			LogVariance: &weights.Network{File: weights.BundleVAE, Layers: append(append([]weights.Layer(nil), trunk...), denseLayer("encoder_logvar/0", latent))},
			Decoder: weights.Network{File: weights.BundleVAE, Layers: []weights.Layer{
				denseLayer("decoder/0", hidden), relu, denseLayer("decoder/1", hidden), relu, denseLayer("decoder/2", cols.Width()),
			}},
		},
	}
}

// DefaultCreditClassifier is how the credit classifier is trained: Adam, batches of 64, early stopping on the
// validation NLL of the fixed-mask predictive, three candidate dropout rates.
var DefaultCreditClassifier = ClassifierConfig{
	Loop:     Loop{Seed: 41, Batch: 64, LR: 1e-3, MaxEpochs: 300, Patience: 30},
	Dropouts: []float64{0.1, 0.25, 0.5},
}

// DefaultCreditVAE is how the credit VAE is trained: Adam, batches of 64, early stopping on the validation
// objective (the ELBO, or the shaped one of CreditVAEShapes).
var DefaultCreditVAE = Loop{Seed: 43, Batch: 64, LR: 1e-3, MaxEpochs: 600, Patience: 40}

// VAEShape is a VAE's training objective (Loop.KLWeight, Loop.FreeBits).
type VAEShape struct {
	KLWeight float64 `json:"kl_weight"`
	FreeBits float64 `json:"free_bits"`
}

func (s VAEShape) String() string {
	if s.FreeBits == 0 {
		return fmt.Sprintf("β %g", s.KLWeight)
	}
	return fmt.Sprintf("β %g, free bits %g", s.KLWeight, s.FreeBits)
}

// CreditVAEShapes are the objectives the credit VAE is trained with: the plain ELBO, then ever smaller KL
// weights β. Each is trained (20 to 40 s each on 2 cores) and the one shipped is chosen on the validation rows
// (ChooseVAEShape). A plain VAE (β 1) leaves Records out: a yes/no of entropy 0.47 nats costs about as much KL
// to encode as it saves in likelihood, so every reconstruction said "no" (and so did 4,999 of 5,000 draws from
// the prior), and a search from a "yes" applicant would explain by erasing the record and never reach "yes"
// from a "no". A β below 1 makes a nat of likelihood worth more than a nat of KL, so the code keeps what the
// rows say. Free bits (a KL floor per latent dimension; Loop.FreeBits) were not tried for the shipped VAE: they
// make KL free in dimensions the VAE leaves unused, where Records' problem is the price of a nat, which β sets.
var CreditVAEShapes = []VAEShape{{1, 0}, {0.7, 0}, {0.5, 0}, {0.35, 0}, {0.25, 0}}

// MinLevelRows is the fewest validation rows a level must have to be judged (WorstLevel): a level fewer rows have
// (Home = ignore's single one) says too little either way.
const MinLevelRows = 5

// WorstLevel is the share of rows kept by q's reconstructions for the level kept least, among the levels of
// every category that at least MinLevelRows rows have (1 when there are none).
func WorstLevel(q TableVAEQuality) float64 {
	worst := 1.0
	for _, c := range q.Columns {
		for _, l := range c.Levels {
			if l.Rows >= MinLevelRows {
				worst = math.Min(worst, float64(l.Kept)/float64(l.Rows))
			}
		}
	}
	return worst
}

// ChooseVAEShape returns the index of the shape whose validation reconstructions keep their worst-kept level
// best (WorstLevel), the first (the largest β, the best ELBO) of equals: the VAE that encodes every category,
// rare levels included, at the least cost in ELBO.
func ChooseVAEShape(q []TableVAEQuality) int {
	best := 0
	for i := range q {
		if WorstLevel(q[i]) > WorstLevel(q[best]) {
			best = i
		}
	}
	return best
}

// CreditAnchorEntropy is the predictive entropy (nats) below which a training applicant the classifier reads
// right is one of S2's anchors. The digits' 0.05 (anchors.MaxEntropy) suits ten classes read with near
// certainty; two overlapping classes of applicants are seldom read so surely, least of all "bad".
const CreditAnchorEntropy = 0.3

// CreditValidationSeed draws the validation part of the credit training split (credit.Split: 20 % of each
// class's training applicants), on which training stops early and picks the dropout rate.
const CreditValidationSeed = 4101

// CreditSplit divides the training applicants into the part the networks train on and the validation part.
func CreditSplit(t *dataset.Table) (train, val *dataset.Table) {
	apps := make([]credit.Applicant, t.Len())
	for i := range apps {
		apps[i] = credit.Applicant{Row: t.Rows[i], Status: t.Labels[i]}
	}
	tr, va := credit.Split(apps, CreditValidationSeed)
	return t.Subset(tr), t.Subset(va)
}

// MixedNLL is CLUE's negative log-likelihood of rows x under a mixed decoder's output y (both [N, width],
// flattened as cols say), per row [N]: for each number, a unit-variance Gaussian about its standardised mean,
// (x − y)²/2 + log(2π)/2; for each category, the cross-entropy of its one-hot block against the softmax of its
// logits.
func MixedNLL(cols weights.Columns, x, y *Node) *Node {
	g := x.Graph()
	width := cols.Width()
	numbers := make([]float32, width)
	n := 0
	var total *Node
	for i, col := range cols {
		s, e := cols.Slice(i)
		if col.Kind != weights.ColumnCategory {
			numbers[s] = 1
			n++
			continue
		}
		ce := Neg(ReduceSum(Mul(Slice(x, AxisRange(), AxisRange(s, e)), LogSoftmax(Slice(y, AxisRange(), AxisRange(s, e)), -1)), -1))
		if total == nil {
			total = ce
		} else {
			total = Add(total, ce)
		}
	}
	mask := Const(g, tensors.FromFlatDataAndDimensions(numbers, 1, width))
	gauss := AddScalar(MulScalar(ReduceSum(Mul(Square(Sub(x, y)), mask), -1), 0.5), float64(n)*0.5*math.Log(2*math.Pi))
	if total == nil {
		return gauss
	}
	return Add(gauss, total)
}

// ColumnReconstruction is how well a table VAE reconstructs one column: decoder(encoder mean(x)) read back as a
// row (a number its mean, clipped into its range, an integer rounded; a category its largest logit's level).
type ColumnReconstruction struct {
	Column string `json:"column"`
	Kind   string `json:"kind"`
	// RMSE is a number's root-mean-square error in its own unit; RMSEOverStd the same divided by the column's
	// std (1 is what always answering the mean would give).
	RMSE        *float64 `json:"rmse,omitempty"`
	RMSEOverStd *float64 `json:"rmse_over_std,omitempty"`
	Unit        string   `json:"unit,omitempty"`
	// Correct is a category's share of rows decoded to their own level.
	Correct *float64 `json:"correct,omitempty"`
	// Levels is a category's reconstruction level by level, in its levels' order.
	Levels []LevelReconstruction `json:"levels,omitempty"`
}

// LevelReconstruction is how a table VAE reconstructs one level of a category: Rows rows have it, Kept of them are
// decoded to it, and Decoded reconstructions (of any row) say it. A level some rows have and none keeps is one
// the VAE does not encode: an explanation could reach it only from an input that has it.
type LevelReconstruction struct {
	Level   string `json:"level"`
	Rows    int    `json:"rows"`
	Kept    int    `json:"kept"`
	Decoded int    `json:"decoded"`
}

// Unencoded names the levels some rows have and no reconstruction keeps ("Records = yes"), in the columns' order.
func (q TableVAEQuality) Unencoded() []string {
	var out []string
	for _, c := range q.Columns {
		for _, l := range c.Levels {
			if l.Rows > 0 && l.Kept == 0 {
				out = append(out, c.Column+" = "+l.Level)
			}
		}
	}
	return out
}

// TableVAEQuality is a table VAE measured on rows.
type TableVAEQuality struct {
	ELBO                float64 `json:"elbo"`                  // nats per row, a 10-sample estimate; NaN without a log-variance head
	ReconLabelAgreement float64 `json:"recon_label_agreement"` // rows whose reconstruction (as a row) gets the classifier's label for the row (a regression's: the range of its predictive mean)
	// ReconPredictionShift is a regression's root-mean-square difference between the predictive means of the rows
	// and of their reconstructions (as rows), in the target's unit; nil for a classifier.
	ReconPredictionShift *float64               `json:"recon_prediction_shift,omitempty"`
	Columns              []ColumnReconstruction `json:"columns"`
}

// MeasureTableVAE measures d's mixed VAE (tensors from vae) on a table's rows: the ELBO, each column's
// reconstruction, and the share of rows whose reconstruction, read back as a valid row (ReconstructRow), the
// classifier (tensors from clf) gives the row's own label (a regression: whose predictive mean falls in the
// row's predictive mean's range, and how far the two means are).
func MeasureTableVAE(backend compute.Backend, d *weights.Description, vae, clf Tensors, set *dataset.Table) (TableVAEQuality, error) {
	cols := d.Input.Columns
	width := cols.Width()
	v := VAEGraphs{vae, d}
	recon := MustNewExec(backend, func(x *Node) *Node { return v.Logits(v.Mean(x)) })
	predict := predictLabels(backend, d, clf)
	var shift float64 // a regression's: the squared differences of the predictive means of rows and reconstructions
	var elboExec *Exec
	if d.VAE.LogVariance != nil {
		elboExec = MustNewExec(backend, func(x, eps *Node) *Node { return ReduceAllSum(v.negELBO(x, eps)) })
	}
	const samples = 10
	r := rng.New(12345)
	var q TableVAEQuality
	sq := make([]float64, len(cols))
	correct := make([]float64, len(cols))
	levels := make([][]LevelReconstruction, len(cols))
	for c, col := range cols {
		for _, l := range col.Levels {
			levels[c] = append(levels[c], LevelReconstruction{Level: l})
		}
	}
	agree := 0
	var err error
	batchChunks(set.Len(), 500, func(lo, hi int) {
		if err != nil {
			return
		}
		x := itemFloats(set, lo, hi)
		if elboExec != nil {
			for range samples {
				q.ELBO -= float64(elboExec.MustExec(x, noise(r, hi-lo, d.VAE.Latent))[0].Value().(float32))
			}
		}
		y := tensors.MustCopyFlatData[float32](recon.MustExec(x)[0])
		rows := make([]float32, 0, (hi-lo)*width)
		for i := lo; i < hi; i++ {
			row, e := ReconstructRow(cols, y[(i-lo)*width:(i-lo+1)*width])
			if e != nil {
				err = e
				return
			}
			for c, col := range cols {
				if col.Kind == weights.ColumnCategory {
					got, want := int(row[c]), int(set.Rows[i][c])
					levels[c][want].Rows++
					levels[c][got].Decoded++
					if got == want {
						correct[c]++
						levels[c][want].Kept++
					}
				} else {
					sq[c] += (row[c] - set.Rows[i][c]) * (row[c] - set.Rows[i][c])
				}
			}
			flat, e := cols.Standardise(row)
			if e != nil {
				err = e
				return
			}
			rows = append(rows, flat...)
		}
		a, ma := predict(x)
		b, mb := predict(tensors.FromFlatDataAndDimensions(rows, hi-lo, width))
		for k := range a {
			if a[k] == b[k] {
				agree++
			}
		}
		for k := range ma {
			shift += (ma[k] - mb[k]) * (ma[k] - mb[k])
		}
	})
	if err != nil {
		return q, err
	}
	n := float64(set.Len())
	q.ELBO /= samples * n
	if elboExec == nil {
		q.ELBO = math.NaN()
	}
	q.ReconLabelAgreement = float64(agree) / n
	if d.IsRegression() {
		rms := math.Sqrt(shift / n)
		q.ReconPredictionShift = &rms
	}
	for c, col := range cols {
		cr := ColumnReconstruction{Column: col.Name, Kind: col.Kind, Unit: col.Unit}
		if col.Kind == weights.ColumnCategory {
			s := correct[c] / n
			cr.Correct, cr.Levels = &s, levels[c]
		} else {
			rmse := math.Sqrt(sq[c] / n)
			rel := rmse / col.Std
			cr.RMSE, cr.RMSEOverStd = &rmse, &rel
		}
		q.Columns = append(q.Columns, cr)
	}
	return q, nil
}

// ReconstructRow reads a mixed decoder's output (one flattened row) back as a valid row in natural units: each
// number its mean unstandardised and clipped into its range (an integer rounded), each category its largest
// logit's level. (What an explanation shows of a decoded row; the engine will need the same reading.)
func ReconstructRow(cols weights.Columns, y []float32) ([]float64, error) {
	row, err := cols.Unstandardise(y)
	if err != nil {
		return nil, err
	}
	for c, col := range cols {
		if col.Kind != weights.ColumnCategory {
			row[c] = min(max(row[c], col.Range[0]), col.Range[1])
		}
	}
	return row, nil
}

// NamedTensors reads tensors from a training's output (float32, as trained).
func NamedTensors(named []weights.Named) Tensors { return namedTensors(named) }

// predictLabels returns what MeasureTableVAE compares a row's and its reconstruction's prediction by: the label
// of d's classifier (tensors from p) for rows x, and for a regression the range its predictive mean falls in and
// the mean itself.
func predictLabels(backend compute.Backend, d *weights.Description, p Tensors) func(x *tensors.Tensor) ([]int32, []float64) {
	if !d.IsRegression() {
		exec := MustNewExec(backend, func(x *Node) *Node { return ArgMax(PredictiveGraph(p, d, x), -1) })
		return func(x *tensors.Tensor) ([]int32, []float64) {
			return tensors.MustCopyFlatData[int32](exec.MustExec(x)[0]), nil
		}
	}
	exec := regressionExec(backend, d, p)
	return func(x *tensors.Tensor) ([]int32, []float64) {
		mu, sigma := samplesPerRow(exec.MustExec(x))
		labels, means := make([]int32, len(mu)), make([]float64, len(mu))
		for i := range mu {
			means[i] = Predictive(mu[i], sigma[i]).Mean
			labels[i] = int32(d.Regression.Range(means[i]))
		}
		return labels, means
	}
}
