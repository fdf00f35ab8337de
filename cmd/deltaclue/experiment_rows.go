package main

import (
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/deltaclue/deltaclue/engine/clue"
)

// The experiment on a model of rows (issue 41, part 5): the paper's grid on uncertain test rows, reported in the
// table's terms, of the explanations that are sure (H below the models' threshold): validity (the share of
// restarts whose explanation is sure), proximity (their mean row distance d: L1 on the standardised numbers plus
// the categories changed) and sparsity (the mean number of features they change).

// rowVariants are the paper's four variants with the models' own λx for the Distance ones: the paper's 0.03
// weighs 784 pixels, where the row distance sums a few columns in standard deviations (docs/tables.md: the credit
// models' 0.1).
func rowVariants(lambdaX float64) []variant {
	vs := append([]variant(nil), variants...)
	for i := range vs {
		if vs[i].LambdaX != 0 {
			vs[i].LambdaX = lambdaX
		}
	}
	return vs
}

// rowMetrics counts a search's explanations in the table's terms into r.
func rowMetrics(r *setResult, exps []clue.Explanation, sure float64) {
	for _, e := range exps {
		if e.Failed != "" {
			continue
		}
		r.ChangedAll += len(e.Changed)
		if e.Accepted && float64(e.HTotal) < sure {
			r.Sure++
			r.DistanceSure += float64(e.Distance)
			r.ChangedSure += len(e.Changed)
		}
	}
}

// validity, proximity and sparsity of one search (NaN proximity and sparsity without a sure explanation).
func (r setResult) validity() float64  { return ratioOf(float64(r.Sure), r.Sum.Restarts) }
func (r setResult) proximity() float64 { return ratioOf(r.DistanceSure, r.Sure) }
func (r setResult) sparsity() float64  { return ratioOf(float64(r.ChangedSure), r.Sure) }

func ratioOf(a float64, n int) float64 {
	if n == 0 {
		return math.NaN()
	}
	return a / float64(n)
}

// writeRowSetsCSV is sets.csv for rows: a line per search, the row's index under the models' noun, its labels,
// and the table's measures beside the set's.
func writeRowSetsCSV(path, noun string, results []setResult, vs []variant, sure float64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	w.Write([]string{noun, "label", "bnn_label", "h0", "delta", "variant", "lambda_x", "restarts", fmt.Sprintf("sure_h_below_%g", sure), "validity",
		"proximity", "sparsity", "sparsity_all", "h_min", "h_mean", "d_min", "d_mean", "rho_mean", "distinct_labels", "steps_total", "seconds"})
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
	for _, r := range results {
		s := r.Sum
		w.Write([]string{strconv.Itoa(r.Digit), strconv.Itoa(r.Label), strconv.Itoa(r.Pred), g(r.H0), g(r.Delta), vs[r.Variant].Name, g(vs[r.Variant].LambdaX),
			strconv.Itoa(s.Restarts), strconv.Itoa(r.Sure), g(r.validity()), g(r.proximity()), g(r.sparsity()), g(ratioOf(float64(r.ChangedAll), s.Restarts-s.Failed)),
			g(s.H.Min), g(s.H.Mean), g(s.D.Min), g(s.D.Mean), g(s.Rho.Mean), strconv.Itoa(s.DistinctLabels), strconv.Itoa(r.Steps), g(r.Seconds)})
	}
	w.Flush()
	return errors.Join(w.Error(), f.Close())
}

// rowCell is one (variant, δ) of the grid over every row searched.
type rowCell struct {
	variant             int
	delta               float64
	rows, reached       int // rows searched, rows with a sure explanation
	restarts, sure      int
	distance            float64 // summed over the sure explanations
	changed, changedAll int
}

func (c rowCell) validity() float64  { return ratioOf(float64(c.sure), c.restarts) }
func (c rowCell) proximity() float64 { return ratioOf(c.distance, c.sure) }
func (c rowCell) sparsity() float64  { return ratioOf(float64(c.changed), c.sure) }

// rowTable totals the searches per variant and δ, in the grid's order.
func rowTable(results []setResult, ds []float64, vs []variant) []rowCell {
	var out []rowCell
	for v := range vs {
		for _, d := range ds {
			c := rowCell{variant: v, delta: d}
			for _, r := range results {
				if r.Variant != v || r.Delta != d {
					continue
				}
				c.rows++
				if r.Sure > 0 {
					c.reached++
				}
				c.restarts += r.Sum.Restarts
				c.sure += r.Sure
				c.distance += r.DistanceSure
				c.changed += r.ChangedSure
				c.changedAll += r.ChangedAll
			}
			out = append(out, c)
		}
	}
	return out
}

// writeRowTable is table.csv: per variant and δ, the table's measures over every row searched.
func writeRowTable(path string, table []rowCell, vs []variant, sure float64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	w.Write([]string{"variant", "delta", "rows", "rows_with_a_sure_explanation", "restarts", fmt.Sprintf("sure_h_below_%g", sure), "validity", "proximity", "sparsity"})
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
	for _, c := range table {
		w.Write([]string{vs[c.variant].Name, g(c.delta), strconv.Itoa(c.rows), strconv.Itoa(c.reached), strconv.Itoa(c.restarts), strconv.Itoa(c.sure),
			g(c.validity()), g(c.proximity()), g(c.sparsity())})
	}
	w.Flush()
	return errors.Join(w.Error(), f.Close())
}

// rowTableText is the table on stdout; sureText says when an explanation is sure ("H < 0.3", "σ ≤ 3.1 MPa").
func rowTableText(table []rowCell, vs []variant, rows, sureText string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "On %s: validity (the share of explanations the model is sure of, %s), proximity (their mean row distance d) and sparsity (the mean number of features they change):\n", rows, sureText)
	fmt.Fprintf(&b, "  %-20s %5s %9s %12s %10s %9s\n", "variant", "δ", "validity", "reached", "proximity", "sparsity")
	num := func(v float64, prec int) string {
		if v != v {
			return "n/a"
		}
		return strconv.FormatFloat(v, 'f', prec, 64)
	}
	for _, c := range table {
		fmt.Fprintf(&b, "  %-20s %5g %8.0f%% %12s %10s %9s\n", vs[c.variant].Name, c.delta, 100*c.validity(),
			fmt.Sprintf("%d of %d", c.reached, c.rows), num(c.proximity(), 2), num(c.sparsity(), 1))
	}
	return b.String()
}

// writeRowPlots writes validity.svg, proximity.svg and sparsity.svg: the table's measures against δ per variant
// (the means over the rows of each row's own measure; a row without a sure explanation has no proximity nor
// sparsity and is left out of those).
func writeRowPlots(dir string, results []setResult, ds []float64, vs []variant) error {
	for _, p := range []struct {
		file, title, ylabel string
		f                   func(setResult) float64
	}{
		{"validity.svg", "Validity vs δ: explanations the model is sure of", "share of restarts sure", setResult.validity},
		{"proximity.svg", "Proximity vs δ: row distance of the sure explanations", "mean d (row distance)", setResult.proximity},
		{"sparsity.svg", "Sparsity vs δ: features the sure explanations change", "mean features changed", setResult.sparsity},
	} {
		var lines []series
		for v, vr := range vs {
			lines = append(lines, series{Name: vr.Name, X: ds, Y: meanDefined(results, ds, v, p.f), Colour: vr.Colour, Dashed: vr.Dashed, Marker: vr.Marker})
		}
		if err := writeLinePlot(filepath.Join(dir, p.file), p.title, "δ", p.ylabel, lines); err != nil {
			return err
		}
	}
	return nil
}

// meanDefined is meanOver leaving out the rows where f is NaN (0 where every one is).
func meanDefined(results []setResult, ds []float64, v int, f func(setResult) float64) []float64 {
	out := make([]float64, len(ds))
	for i, d := range ds {
		n := 0
		for _, r := range results {
			if y := f(r); r.Variant == v && r.Delta == d && y == y {
				out[i] += y
				n++
			}
		}
		if n > 0 {
			out[i] /= float64(n)
		}
	}
	return out
}
