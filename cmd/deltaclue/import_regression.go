package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/deltaclue/deltaclue/engine"
	"github.com/deltaclue/deltaclue/engine/anchors"
	"github.com/deltaclue/deltaclue/internal/dataset"
	"github.com/deltaclue/deltaclue/internal/plural"
	"github.com/deltaclue/deltaclue/training"
	"github.com/deltaclue/deltaclue/weights"
)

// A regression's import (issue 42): `deltaclue import -schema schema.json -data rows.csv -classifier reg.onnx
// -target Strength -unit MPa …`. The network (or each ensemble member) ends in two outputs, the standardised
// mean o0 and the σ head o1 (weights.Regression: σ = std·softplus(o1), or std·e^{o1/2} for a log variance); the
// CSV holds the rows with the target in -target-column, whose training values standardise it (their mean and
// population std) unless -target-mean and -target-std give the network's own. What the import cannot be told it
// chooses from the data, and says so:
//
//   - τ, the threshold of sure (-sure): the 25th percentile (nearest rank) of the imported model's predictive σ
//     over the training rows (the float32 models, MC dropout's masks or the ensemble's members), rounded to 2
//     significant digits: a quarter of the training rows are predicted surely, as the shipped concrete models'
//     τ was chosen (training.ConcreteSurePercentile);
//   - the ranges the modes are (-ranges): the training targets' quintiles, rounded to 2 significant digits, as
//     inner edges; the outer edges, which only bound a plot, the smallest and largest training target rounded
//     outward to 2 significant digits (edges that round to the same value are one);
//   - the search's defaults: a table's (credit's δ, λx and duplicates' distance, setTableSearch), without an
//     entropy threshold: a regression's threshold is τ, in the target's unit.
//
// S2's anchors are the training rows predicted, sure (σ below τ), in their own target's range.

// regressionFlags are the import's flags for a predictor of a number.
type regressionFlags struct {
	target, unit, sigma, column, ranges string
	mean, std, sure                     float64
	meanSet, stdSet, sureSet            bool
}

// Regression import defaults (documented above and in docs/your-model.md).
const (
	importSurePercentile = training.ConcreteSurePercentile // τ: this percentile of the training rows' σ
	importRanges         = 5                               // the ranges: the training targets' quintiles
	importSigDigits      = 2                               // τ and the ranges' edges are rounded to this many significant digits
)

// register registers the flags on the import's flag set.
func (f *regressionFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.target, "target", "", "with -schema, declares a regression: the predicted quantity's name (\"Strength\"); the network then ends in 2 outputs, the standardised mean and the σ head (-sigma)")
	fs.StringVar(&f.unit, "unit", "", "with -target, the target's unit (\"MPa\")")
	fs.StringVar(&f.sigma, "sigma", weights.SigmaSoftplus, "with -target, how the network's second output is the standard deviation: softplus (σ = std·softplus(o1)) or log-variance (σ = std·exp(o1/2))")
	fs.StringVar(&f.column, "target-column", "", "with -target, the CSV files' column of the target's values (default: -target)")
	fs.Float64Var(&f.mean, "target-mean", 0, "with -target, the target's mean the network was trained to predict standardised by (default: the training rows' targets')")
	fs.Float64Var(&f.std, "target-std", 0, "with -target, the target's standard deviation the network was trained to predict standardised by (default: the training rows' targets', the population's)")
	fs.Float64Var(&f.sure, "sure", 0, "with -target, τ: a prediction is sure when its σ is at most this, in -unit (default: the 25th percentile of the model's σ over the training rows, rounded to 2 significant digits)")
	fs.StringVar(&f.ranges, "ranges", "", "with -target, the edges of the ranges the explanations' modes are, ascending, separated by commas (default: the training targets' quintiles rounded to 2 significant digits, between their smallest and largest)")
}

// visit notes which flags were given (a value of 0 is not the same as none).
func (f *regressionFlags) visit(fl *flag.Flag) {
	switch fl.Name {
	case "target-mean":
		f.meanSet = true
	case "target-std":
		f.stdSet = true
	case "sure":
		f.sureSet = true
	}
}

// declared says whether the import is a regression's.
func (f *regressionFlags) declared() bool { return f.target != "" }

// columnName is the CSV files' target column.
func (f *regressionFlags) columnName() string {
	if f.column != "" {
		return f.column
	}
	return f.target
}

// check refuses bad regression flags in a sentence, before anything is read.
func (f *regressionFlags) check(schema string) error {
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch {
	case !f.declared() && (f.unit != "" || f.column != "" || f.meanSet || f.stdSet || f.sureSet || f.ranges != ""):
		return fmt.Errorf("import: -unit, -target-column, -target-mean, -target-std, -sure and -ranges describe a regression: declare it with -target NAME")
	case !f.declared():
		return nil
	case schema == "":
		return fmt.Errorf("import: -target declares a regression of a table's rows: give their -schema and -data's CSV file with the target's column")
	case f.sigma != weights.SigmaSoftplus && f.sigma != weights.SigmaLogVariance:
		return fmt.Errorf("import: -sigma %q: %q (σ = std·softplus of the second output) or %q (σ = std·exp of half of it)", f.sigma, weights.SigmaSoftplus, weights.SigmaLogVariance)
	case f.meanSet != f.stdSet:
		return fmt.Errorf("import: -target-mean and -target-std are the network's standardisation of the target: give both, or neither to have them computed from the training rows")
	case f.meanSet && (!finite(f.mean) || !finite(f.std) || f.std <= 0):
		return fmt.Errorf("import: -target-mean %g and -target-std %g: the mean must be finite and the std above 0", f.mean, f.std)
	case f.sureSet && !(f.sure > 0 && finite(f.sure)):
		return fmt.Errorf("import: -sure %g: the threshold of sure is a standard deviation in the target's unit, above 0 (or leave it out to have it chosen from the training rows)", f.sure)
	}
	if f.ranges != "" {
		if _, err := parseEdges(f.ranges); err != nil {
			return err
		}
	}
	return nil
}

// parseEdges reads -ranges.
func parseEdges(s string) ([]float64, error) {
	var edges []float64
	for _, part := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(part), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || len(edges) > 0 && !(v > edges[len(edges)-1]) {
			return nil, fmt.Errorf("import: -ranges %q: give 3 to %d ascending numbers separated by commas, the ranges' edges (\"0,20,30,40,90\")", s, weights.MaxRanges+1)
		}
		edges = append(edges, v)
	}
	if len(edges) < 3 || len(edges) > weights.MaxRanges+1 {
		return nil, fmt.Errorf("import: -ranges %q: give 3 to %d ascending numbers separated by commas, the ranges' edges (\"0,20,30,40,90\")", s, weights.MaxRanges+1)
	}
	return edges, nil
}

// regression is the declared regression, its standardisation and ranges from the flags or the training
// targets, τ from -sure or, until it is chosen from the model (chooseSure), 1. It says what it chose.
func (f *regressionFlags) regression(targets []float64) (*weights.Regression, error) {
	r := &weights.Regression{Target: f.target, Unit: f.unit, Sigma: f.sigma, Mean: f.mean, Std: f.std, Sure: f.sure}
	if !f.meanSet {
		r.Mean, r.Std = meanStd(targets)
		if !(r.Std > 0) {
			return nil, fmt.Errorf("import: the training rows' %s are all %g: a regression needs targets that vary", f.columnName(), r.Mean)
		}
		fmt.Printf("  the target standardised by the training rows' mean %.6g and std %.6g %s (-target-mean, -target-std)\n", r.Mean, r.Std, f.unit)
	}
	if f.ranges != "" {
		r.Ranges, _ = parseEdges(f.ranges)
	} else {
		r.Ranges = quintileEdges(targets)
		if len(r.Ranges) < 3 {
			return nil, fmt.Errorf("import: the training rows' %s round to fewer than 2 ranges (edges %v): give the ranges' edges with -ranges", f.columnName(), r.Ranges)
		}
		fmt.Printf("  ranges: %s, the training targets' quintiles rounded to %d significant digits (-ranges)\n", strings.Join(r.RangeNames(), ", "), importSigDigits)
	}
	if !f.sureSet {
		r.Sure = 1 // chosen from the model once it is converted (chooseSure)
	}
	return r, nil
}

// meanStd is the values' mean and population standard deviation.
func meanStd(v []float64) (mean, std float64) {
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	for _, x := range v {
		std += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(std / float64(len(v)))
}

// quintileEdges are the ranges' edges chosen from the training targets: the smallest rounded down, the
// quintiles (nearest rank) rounded, the largest rounded up, each to importSigDigits significant digits, edges
// that round to the same value kept once.
func quintileEdges(targets []float64) []float64 {
	s := slices.Sorted(slices.Values(targets))
	edges := []float64{roundSig(s[0], importSigDigits, math.Floor)}
	for q := 1; q < importRanges; q++ {
		edges = append(edges, roundSig(s[nearestRank(len(s), 100*float64(q)/importRanges)], importSigDigits, math.Round))
	}
	edges = append(edges, roundSig(s[len(s)-1], importSigDigits, math.Ceil))
	return slices.Compact(edges)
}

// nearestRank is the index of the p-th percentile of n sorted values (nearest rank).
func nearestRank(n int, p float64) int {
	return min(max(int(math.Ceil(p/100*float64(n)))-1, 0), n-1)
}

// roundSig rounds v to digits significant digits with round (math.Round, Floor or Ceil), in decimal.
func roundSig(v float64, digits int, round func(float64) float64) float64 {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	e := int(math.Floor(math.Log10(math.Abs(v)))) - digits + 1
	if e >= 0 {
		p := math.Pow(10, float64(e))
		return round(v/p) * p
	}
	p := math.Pow(10, float64(-e))
	out, _ := strconv.ParseFloat(strconv.FormatFloat(round(v*p)/p, 'f', -e, 64), 64) // 3.1, not 3.1000000000000001
	return out
}

// chooseSure is τ chosen from the float32 models (d, files): the importSurePercentile-th percentile of the
// predictive σ over the training rows, rounded to importSigDigits significant digits (at least the smallest
// such number above 0).
func chooseSure(d *weights.Description, files map[string]*weights.File, train *dataset.Table) (float64, error) {
	_, bnn, err := engine.Load(d, files)
	if err != nil {
		return 0, err
	}
	sigmas := make([]float64, 0, train.Len())
	size := train.Size()
	for lo := 0; lo < train.Len(); lo += 512 {
		hi := min(lo+512, train.Len())
		x := make([]float32, (hi-lo)*size)
		for i := lo; i < hi; i++ {
			train.Float(i, x[(i-lo)*size:(i-lo+1)*size])
		}
		for _, u := range bnn.Classify(x) {
			sigmas = append(sigmas, float64(u.Total))
		}
	}
	slices.Sort(sigmas)
	s := sigmas[nearestRank(len(sigmas), importSurePercentile)]
	if !(s > 0) || math.IsInf(s, 0) {
		return 0, fmt.Errorf("import: the model's predictive σ over the training rows is %g at its %dth percentile: τ cannot be chosen from it; give -sure", s, importSurePercentile)
	}
	tau := roundSig(s, importSigDigits, math.Round)
	if tau <= 0 {
		tau = roundSig(s, importSigDigits, math.Ceil)
	}
	return tau, nil
}

// readTargetRowsCSV reads a CSV file of rows with their target in column: the schema's columns
// (weights.Columns.ReadCSV) and each row's target, a finite number. Its errors name the file.
func readTargetRowsCSV(path string, cols weights.Columns, column string) ([][]float64, []float64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("import: %w", err)
	}
	rows, targets, err := splitTargetColumn(b, cols, column)
	if err == nil && len(rows) < 2 {
		err = fmt.Errorf("it has %d rows", len(rows))
	}
	if err != nil {
		return nil, nil, fmt.Errorf("import: %s: %v", path, err)
	}
	return rows, targets, nil
}

// splitTargetColumn reads the target column out of a CSV file's bytes and the rest as the schema's rows.
func splitTargetColumn(b []byte, cols weights.Columns, column string) ([][]float64, []float64, error) {
	rest, targets, err := weights.SplitTargetColumn(b, column)
	var none *weights.NoTargetColumnError
	if errors.As(err, &none) {
		return nil, nil, fmt.Errorf("it has no target column %q (-target-column): its columns are %s", column, strings.Join(none.Header, ", "))
	}
	if err != nil {
		return nil, nil, err
	}
	rows, _, err := cols.ReadCSV(bytes.NewReader(rest), "", nil)
	if err != nil {
		return nil, nil, err
	}
	return rows, targets, nil
}

// rangesOf labels targets by the range of r each falls in.
func rangesOf(r *weights.Regression, targets []float64) []int {
	out := make([]int, len(targets))
	for i, y := range targets {
		out[i] = r.Range(y)
	}
	return out
}

// setRegressionSearch gives a regression of rows a table's search defaults (setTableSearch: δ, λx and the
// duplicates' distance measured on the credit applicants) without their entropy threshold: a regression's
// threshold is its τ, in the target's unit (weights refuses h_threshold in a regression's search defaults).
func setRegressionSearch(d *weights.Description) {
	setTableSearch(d)
	d.Search.HThreshold = nil
}

// measureRegressionCompaction is measureCompaction for a regression: the float32 models and the int8 ones on
// every test row (a table's networks are small), with gomlx, as `deltaclue quality` measures a regression
// (training.MeasureRegression: RMSE, NLL, the shares within 1σ and 2σ, σ's AUROC for the largest errors) and
// its VAE (the reconstructions predicted in the row's range, and how far their predictive means move).
func measureRegressionCompaction(d *weights.Description, files map[string]*weights.File, test *dataset.Table, start time.Time) (map[string][]byte, map[string]any, error) {
	backend := training.Backend()
	measure := func(files map[string]*weights.File) (training.RegressionQuality, training.TableVAEQuality, error) {
		p, err := training.FileTensors(files[weights.BundleBNN], files[weights.BundleVAE])
		if err != nil {
			return training.RegressionQuality{}, training.TableVAEQuality{}, err
		}
		q, err := training.MeasureRegression(backend, d, p, test)
		if err != nil {
			return q, training.TableVAEQuality{}, err
		}
		v, err := training.MeasureTableVAE(backend, d, p, p, test)
		return q, v, err
	}
	q32, v32, err := measure(files)
	if err != nil {
		return nil, nil, fmt.Errorf("import: measuring the float32 models: %w", err)
	}
	m32 := regressionMeasures(q32, v32)
	enc := map[string][]byte{}
	for _, name := range []string{weights.BundleBNN, weights.BundleVAE} {
		if enc[name], err = compactFile(d, files[name], m32, nil); err != nil {
			return nil, nil, err
		}
	}
	int8Files, err := decodeAll(enc)
	if err != nil {
		return nil, nil, err
	}
	q8, v8, err := measure(int8Files)
	if err != nil {
		return nil, nil, fmt.Errorf("import: measuring the int8 models: %w", err)
	}
	r := d.Regression
	fmt.Printf("on %d test rows:  RMSE          NLL     within 1σ  within 2σ  AUROC of σ  mean σ        reconstructions in the range   ELBO\n", test.Len())
	line := func(name string, q training.RegressionQuality, v training.TableVAEQuality) string {
		return fmt.Sprintf("  %-16s%7.2f %-5s  %6.3f  %6.1f %%   %6.1f %%   %.3f      %7.2f %-5s  %6.2f %%                       %s",
			name, q.RMSE, r.Unit, q.NLL, 100*q.Within1Sigma, 100*q.Within2Sigma, q.AUROC, q.MeanSigma, r.Unit, 100*v.ReconLabelAgreement, elboText(v.ELBO))
	}
	fmt.Println(line("float32", q32, v32))
	fmt.Printf("%s   (%.1fs)\n", line("int8", q8, v8), time.Since(start).Seconds())
	for _, name := range []string{weights.BundleBNN, weights.BundleVAE} { // with the int8 measures in their manifests
		if enc[name], err = compactFile(d, files[name], m32, map[string]any{"test": regressionMeasures(q8, v8)}); err != nil {
			return nil, nil, err
		}
	}
	return enc, m32, nil
}

// regressionMeasures are a manifest's measures of a regression's models (the VAE's ELBO only where it has one).
func regressionMeasures(q training.RegressionQuality, v training.TableVAEQuality) map[string]any {
	vae := map[string]any{"recon_label_agreement": v.ReconLabelAgreement}
	if v.ReconPredictionShift != nil {
		vae["recon_prediction_shift"] = *v.ReconPredictionShift
	}
	if !math.IsNaN(v.ELBO) {
		vae["elbo_per_row"] = v.ELBO
	}
	return map[string]any{"regression": q, "vae": vae}
}

// makeRegressionAnchors makes S2's anchors of a regression: the training rows read (their labels the ranges of
// their targets) whose most probable range is their own with σ below τ; a range none reaches gets none, and
// S2 starts no restart toward it. It returns the file and the ranges without anchors.
func makeRegressionAnchors(b *weights.Bundle, reading anchors.Reading, split weights.Dataset, perRange int) ([]byte, []int, error) {
	d := b.Description
	tau := d.Regression.Sure
	made, err := anchors.Encode(b, reading.Anchors(len(d.Classes), tau), reading.Latent, split, tau, perRange)
	if err != nil {
		return nil, nil, fmt.Errorf("import: the anchors (S2's starts): %w", err)
	}
	file, err := weights.Decode(weights.BundleAnchors, made)
	if err != nil {
		return nil, nil, fmt.Errorf("import: the anchors made do not open: %w", err)
	}
	missing, err := anchors.Missing(file, len(d.Classes))
	if err != nil {
		return nil, nil, fmt.Errorf("import: the anchors made do not open: %w", err)
	}
	return made, missing, nil
}

// regressionAnchorsLines say how many anchors each range got and, when some got none, what that means for S2.
func regressionAnchorsLines(b *weights.Bundle, missing []int) []string {
	d := b.Description
	r := d.Regression
	perClass, _ := b.Files[weights.BundleAnchors].Manifest.Metrics[weights.AnchorCounts].(map[string]any) // (read back from JSON)
	counts := make([]string, len(d.Classes))
	for c, name := range d.Classes {
		counts[c] = fmt.Sprintf("%s %v", name, perClass[strconv.Itoa(c)])
	}
	sure := fmt.Sprintf("σ below τ = %g %s", r.Sure, r.Unit)
	lines := []string{fmt.Sprintf("anchors: %s; training %s predicted in their own %s's range with %s", strings.Join(counts, ", "), plural.Word(2, d.Input.Noun), r.Target, sure)}
	if len(missing) > 0 {
		names := make([]string, len(missing))
		for i, c := range missing {
			names[i] = d.Classes[c]
		}
		lines = append(lines, fmt.Sprintf("anchors: no training %s is predicted %s with %s: S2 starts no restart toward it", d.Input.Noun, strings.Join(names, " or "), sure))
	}
	return lines
}
