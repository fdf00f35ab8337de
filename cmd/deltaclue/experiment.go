package main

import (
	"context"
	"encoding/csv"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/internal/dataset"
	"github.com/deltaclue/deltaclue/internal/plural"
	"github.com/deltaclue/deltaclue/weights"
)

// variant is one of the paper's four experiment variants.
type variant struct {
	Name    string
	LambdaX float64
	Scheme  clue.Scheme
	Colour  string
	Dashed  bool
	Marker  int
}

var variants = []variant{
	{"Uncertainty Random", 0, clue.S1, "#1f77b4", false, 0},
	{"Uncertainty NN", 0, clue.S2, "#ff7f0e", true, 0},
	{"Distance Random", 0.03, clue.S1, "#2ca02c", false, 1},
	{"Distance NN", 0.03, clue.S2, "#d62728", true, 1},
}

// schemeVariants is the grid of initialisation schemes (-grid schemes): every scheme with the objective of the
// flags (by default the page's, λx = 0.03), told apart by colour, dashes and markers; noun is what the models'
// inputs are called ("digit"), S2's anchors being the nearest of them.
func schemeVariants(lambdaX float64, noun string) []variant {
	return []variant{
		{"S1 random radius", lambdaX, clue.S1, "#1f77b4", false, 0},
		{"S2 nearest " + plural.Word(2, noun), lambdaX, clue.S2, "#ff7f0e", true, 0},
		{"S3 half-normal", lambdaX, clue.S3, "#2ca02c", false, 1},
		{"S4 uniform in ball", lambdaX, clue.S4, "#d62728", true, 1},
		{"S5 gradient paths", lambdaX, clue.S5, "#9467bd", false, 2},
		{"S6 amortised starts", lambdaX, clue.S6, "#111111", true, 2},
	}
}

// setResult is one search's metrics.
type setResult struct {
	Digit, Label, Pred int
	H0                 float64
	Delta              float64
	Variant            int
	Sum                clue.Summary
	AcceptedAtDefault  int // results with H below the explainer's default threshold (the models' default)
	Curve              []float64
	Seconds            float64
	Steps              int
	// A model of rows, in the table's terms (rowMetrics): the restarts whose explanation is sure (H below the
	// models' threshold), their summed row distance and changed columns, and every restart's changed columns.
	Sure, ChangedSure, ChangedAll int
	DistanceSure                  float64
}

func experiment(args []string) error {
	fs := flag.NewFlagSet("experiment", flag.ContinueOnError)
	p := clue.Defaults()
	p.HThreshold = 10 // the paper measures all n results: accept them all (H ≤ log 10 < 10)
	finish := paramFlags(fs, &p)
	spec := modelsFlag(fs)
	digits := fs.Int("digits", 8, "explain this many of the most uncertain test items (the digits' test digits); 0: every test item above the models' threshold")
	indices := fs.String("indices", "", "explain these test items instead (comma-separated)")
	deltas := fs.String("deltas", "0.5,1,1.5,2,2.5,3,3.5", "the radii δ")
	grid := fs.String("grid", "paper", "the variants: paper (Uncertainty/Distance × Random S1/NN S2, the paper's four) or schemes (S1–S6 with the flags' objective, λx = -lambda-x)")
	only := fs.String("variants", "", "run only these variants (comma-separated numbers: 1-4 of the paper's grid, 1-6 of the schemes')")
	out := fs.String("out", "docs/experiments", "folder for sets.csv, curves.csv and the plots")
	workers := fs.Int("workers", runtime.NumCPU(), "searches run at once")
	compare := fs.Bool("compare-convergence", false, "run every search under both convergence rules (spread, clue) and print how many restarts change acceptance at H below the models' default threshold (the digits' 0.3), instead of writing the files")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := finish(); err != nil {
		return err
	}
	var ds []float64
	for _, f := range strings.Split(*deltas, ",") {
		d, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil {
			return fmt.Errorf("-deltas: %q is not a number", f)
		}
		ds = append(ds, d)
	}
	m, err := loadModels(*spec)
	if err != nil {
		return err
	}
	// The models' defaults with the flags given over them, still accepting every result; the explainer's
	// threshold, the models' default, is what AcceptedAtDefault counts below.
	if err := modelParams(fs, &p, m.Description(), func(q *clue.Params) { q.HThreshold = 10 }); err != nil {
		return err
	}
	sure := clue.DefaultsFor(m.Description()).HThreshold
	cols := m.search.Columns()
	all := variants
	if cols != nil {
		all = rowVariants(clue.DefaultsFor(m.Description()).LambdaX)
	}
	switch *grid {
	case "paper":
	case "schemes":
		all = schemeVariants(p.LambdaX, m.noun())
	default:
		return fmt.Errorf("-grid: %q is not paper or schemes", *grid)
	}
	chosen := all
	if *only != "" {
		chosen = nil
		for _, f := range strings.Split(*only, ",") {
			k, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || k < 1 || k > len(all) {
				return fmt.Errorf("-variants: %q is not 1-%d", f, len(all))
			}
			chosen = append(chosen, all[k-1])
		}
	}
	if err := m.schemesAvailable(chosen); err != nil {
		return err
	}
	models := m.search
	set, err := m.test("the experiment")
	if err != nil {
		return err
	}
	var picked []int
	if *indices != "" {
		for _, f := range strings.Split(*indices, ",") {
			i, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || i < 0 || i >= set.Len() {
				return fmt.Errorf("-indices: %q is not a test %s 0..%d", f, m.noun(), set.Len()-1)
			}
			picked = append(picked, i)
		}
	} else if *digits == 0 {
		picked, _ = uncertainItems(models, flatten(set), sure)
	} else {
		picked = clue.MostUncertain(models.BNN, flatten(set), *digits)
	}
	if len(picked) == 0 {
		return fmt.Errorf("the experiment: no test %s is above the threshold %g", m.noun(), sure)
	}
	problems := make([]*clue.Problem, len(picked))
	for k, i := range picked {
		if t, ok := set.(*dataset.Table); ok { // a row in natural units, as explain reads it
			problems[k], err = clue.NewRowProblem(models, t.Rows[i])
		} else {
			problems[k], err = clue.NewProblem(models, set.Float(i, nil))
		}
		if err != nil {
			return err
		}
	}
	// S6 starts from GLAM-CLUE's translations of the label read, which an input may not have (no group of
	// uncertain training inputs read as it had enough members): its S6 searches are left out, and said so.
	noS6 := map[int]bool{}
	var noS6Said []string
	for _, v := range chosen {
		if v.Scheme != clue.S6 {
			continue
		}
		for k, prob := range problems {
			if len(models.Amortised(prob.X0, prob.Z0, prob.Pred0.Label())) == 0 {
				noS6[k] = true
				noS6Said = append(noS6Said, fmt.Sprintf("%s %d (read as %s)", m.noun(), picked[k], m.class(prob.Pred0.Label())))
			}
		}
		break
	}
	if len(noS6Said) > 0 {
		fmt.Fprintf(os.Stderr, "S6 leaves out %s: the models have no translation from the label read on %s, so its means are over the other %s\n",
			plural.Count(len(noS6Said), m.noun()), strings.Join(noS6Said, ", "), plural.Count(len(picked)-len(noS6Said), m.noun()))
	}
	type task struct{ digit, delta, variant int }
	var tasks []task
	for d := range ds {
		for v := range chosen {
			for k := range picked {
				if chosen[v].Scheme == clue.S6 && noS6[k] {
					continue
				}
				tasks = append(tasks, task{k, d, v})
			}
		}
	}
	for _, t := range tasks { // validate every combination before spending minutes
		q := p
		q.Delta, q.LambdaX, q.Scheme = ds[t.delta], chosen[t.variant].LambdaX, chosen[t.variant].Scheme
		if err := q.Validate(); err != nil {
			return err
		}
	}
	if *compare {
		return compareConvergence(os.Stdout, problems, ds, chosen, p, sure, *workers)
	}
	fmt.Fprintf(os.Stderr, "%s × %s × %s = %s of n = %d on %s\n", m.items(len(picked), ""), plural.Count(len(ds), "radius", "radii"),
		plural.Count(len(chosen), "variant"), plural.Count(len(tasks), "search", "searches"), p.N, plural.Count(*workers, "worker"))
	results := make([]setResult, len(tasks))
	start := time.Now()
	var mu sync.Mutex
	done := 0
	bar := newProgress(os.Stderr, len(tasks), "searches")
	next := make(chan int)
	var wg sync.WaitGroup
	var firstErr error
	for w := 0; w < *workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ti := range next {
				t := tasks[ti]
				q := p
				q.Delta, q.LambdaX, q.Scheme = ds[t.delta], chosen[t.variant].LambdaX, chosen[t.variant].Scheme
				prob := problems[t.digit]
				t0 := time.Now()
				// Every restart is accepted (the paper measures all n results); those sure at the models' threshold
				// give back their needless changes as a search with Sparse at that threshold would.
				sparse := q.Sparse
				q.Sparse = false
				exps, err := clue.Search(context.Background(), prob, q, nil, nil)
				if sparse && err == nil {
					atSure := q
					atSure.HThreshold = sure
					err = clue.GiveBack(prob, atSure, exps)
				}
				r := setResult{Digit: picked[t.digit], Label: set.Label(picked[t.digit]), Pred: prob.Pred0.Label(),
					H0: float64(prob.Pred0.Total), Delta: q.Delta, Variant: t.variant, Seconds: time.Since(t0).Seconds()}
				if err == nil {
					r.Sum = clue.Summarize(prob.X0, prob.Z0, prob.Models().BNN.Classes, q, exps)
					r.Curve = clue.LabelEntropyCurve(exps, models.BNN.Classes)
					for _, e := range exps {
						r.Steps += e.Steps
						if e.Accepted && float64(e.HTotal) < sure {
							r.AcceptedAtDefault++
						}
					}
					if cols != nil {
						rowMetrics(&r, exps, sure)
					}
				}
				mu.Lock()
				results[ti] = r
				if err != nil && firstErr == nil {
					firstErr = err
				}
				done++
				bar.update(done)
				mu.Unlock()
			}
		}()
	}
	for ti := range tasks {
		next <- ti
	}
	close(next)
	wg.Wait()
	bar.finish()
	if firstErr != nil {
		return firstErr
	}
	elapsed := time.Since(start)
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	if cols != nil {
		if err := writeRowSetsCSV(filepath.Join(*out, "sets.csv"), m.noun(), results, chosen, sure); err != nil {
			return err
		}
		table := rowTable(results, ds, chosen)
		if err := writeRowTable(filepath.Join(*out, "table.csv"), table, chosen, sure); err != nil {
			return err
		}
		if err := writeRowPlots(*out, results, ds, chosen); err != nil {
			return err
		}
		sureText := fmt.Sprintf("H < %g", sure)
		if r := m.Description().Regression; r != nil {
			sureText = fmt.Sprintf("σ ≤ %g %s", sure, r.Unit)
		}
		fmt.Print(rowTableText(table, chosen, m.items(len(picked), "uncertain test"), sureText))
	} else if err := writeSetsCSV(filepath.Join(*out, "sets.csv"), results, chosen, sure); err != nil {
		return err
	}
	if err := writeCurves(filepath.Join(*out, "curves.csv"), results, chosen); err != nil {
		return err
	}
	distance := "L1"
	if cols != nil {
		distance = "row distance"
	}
	if err := writePlots(*out, results, ds, chosen, distance); err != nil {
		return err
	}
	fmt.Printf("%s in %s on %s (%s); wrote %s\n", plural.Count(len(tasks), "search", "searches"), elapsed.Round(time.Second),
		plural.Count(*workers, "worker"), plural.Count(runtime.NumCPU(), "CPU"), *out)
	return nil
}

func writeSetsCSV(path string, results []setResult, vs []variant, sure float64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	w.Write([]string{"digit", "label", "bnn_label", "h0", "delta", "variant", "restarts", "accepted", fmt.Sprintf("accepted_h_below_%g", sure),
		"converged", "h_min", "h_mean", "h_max", "d_min", "d_mean", "d_max", "rho_mean", "cost_min", "shell_fraction",
		"distinct_labels", "label_entropy", "label_entropy_normalised", "duplicates", "modes_total",
		"dpp_input", "dpp_latent", "avg_pairwise_input", "avg_pairwise_latent", "coverage_input", "coverage_latent",
		"prediction_coverage", "steps_total", "seconds"})
	for _, r := range results {
		s := r.Sum
		modes := 0
		for _, m := range s.Modes {
			modes += m
		}
		g := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
		w.Write([]string{strconv.Itoa(r.Digit), strconv.Itoa(r.Label), strconv.Itoa(r.Pred), g(r.H0), g(r.Delta), vs[r.Variant].Name,
			strconv.Itoa(s.Restarts), strconv.Itoa(s.Accepted), strconv.Itoa(r.AcceptedAtDefault), strconv.Itoa(s.Converged),
			g(s.H.Min), g(s.H.Mean), g(s.H.Max), g(s.D.Min), g(s.D.Mean), g(s.D.Max), g(s.Rho.Mean), g(s.Cost.Min), g(s.ShellFraction),
			strconv.Itoa(s.DistinctLabels), g(s.LabelEntropy), g(s.LabelEntropyNorm), strconv.Itoa(s.Duplicates), strconv.Itoa(modes),
			g(s.Input.DPP), g(s.Latent.DPP), g(s.Input.AvgPairwise), g(s.Latent.AvgPairwise), g(s.Input.Coverage), g(s.Latent.Coverage),
			g(s.PredictionCoverage), strconv.Itoa(r.Steps), g(r.Seconds)})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	return f.Close()
}

// writeCurves writes the label entropy after k explanations, averaged over the digits, per variant and δ.
func writeCurves(path string, results []setResult, vs []variant) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	w.Write([]string{"variant", "delta", "k", "label_entropy_mean"})
	for _, c := range averageCurves(results) {
		for k, v := range c.mean {
			w.Write([]string{vs[c.variant].Name, strconv.FormatFloat(c.delta, 'g', 4, 64), strconv.Itoa(k + 1), strconv.FormatFloat(v, 'g', 6, 64)})
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	return f.Close()
}

type curve struct {
	variant int
	delta   float64
	mean    []float64
}

func averageCurves(results []setResult) []curve {
	type key struct {
		v int
		d float64
	}
	sums := map[key][]float64{}
	counts := map[key]int{}
	for _, r := range results {
		k := key{r.Variant, r.Delta}
		if sums[k] == nil {
			sums[k] = make([]float64, len(r.Curve))
		}
		for i, v := range r.Curve {
			if i < len(sums[k]) {
				sums[k][i] += v
			}
		}
		counts[k]++
	}
	var out []curve
	for k, s := range sums {
		for i := range s {
			s[i] /= float64(counts[k])
		}
		out = append(out, curve{k.v, k.d, s})
	}
	sort.Slice(out, func(a, b int) bool {
		if out[a].variant != out[b].variant {
			return out[a].variant < out[b].variant
		}
		return out[a].delta < out[b].delta
	})
	return out
}

// meanOver averages f over the digits for each (variant, δ).
func meanOver(results []setResult, ds []float64, v int, f func(setResult) float64) []float64 {
	out := make([]float64, len(ds))
	for i, d := range ds {
		n := 0
		for _, r := range results {
			if r.Variant == v && r.Delta == d {
				out[i] += f(r)
				n++
			}
		}
		if n > 0 {
			out[i] /= float64(n)
		}
	}
	return out
}

// writePlots writes the set's plots against δ; distance names d ("L1" for images, "row distance" for rows).
func writePlots(dir string, results []setResult, ds []float64, vs []variant, distance string) error {
	plot := func(file, title, ylabel string, f func(setResult) float64, extra ...series) error {
		var lines []series
		for v, vr := range vs {
			lines = append(lines, series{Name: vr.Name, X: ds, Y: meanOver(results, ds, v, f), Colour: vr.Colour, Dashed: vr.Dashed, Marker: vr.Marker})
		}
		return writeLinePlot(filepath.Join(dir, file), title, "δ", ylabel, append(lines, extra...))
	}
	plots := []struct {
		file, title, ylabel string
		f                   func(setResult) float64
		extra               []series
	}{
		{"h_best.svg", "Best uncertainty of the set vs δ", "min H (nats)", func(r setResult) float64 { return r.Sum.H.Min }, nil},
		{"h_mean.svg", "Mean uncertainty of the set vs δ", "mean H (nats)", func(r setResult) float64 { return r.Sum.H.Mean }, nil},
		{"d_best.svg", "Smallest input distance vs δ", "min d (" + distance + ")", func(r setResult) float64 { return r.Sum.D.Min }, nil},
		{"d_mean.svg", "Mean input distance vs δ", "mean d (" + distance + ")", func(r setResult) float64 { return r.Sum.D.Mean }, nil},
		{"labels.svg", "Distinct labels among n explanations vs δ", "distinct labels", func(r setResult) float64 { return float64(r.Sum.DistinctLabels) }, nil},
		{"rho.svg", "Mean latent distance vs δ", "mean ρ(z, z0)", func(r setResult) float64 { return r.Sum.Rho.Mean },
			[]series{{Name: "ρ = δ", X: ds, Y: ds, Colour: "#9467bd", Dashed: true}}},
		{"shell.svg", "Fraction of explanations on the shell vs δ", "fraction with ρ = δ", func(r setResult) float64 { return r.Sum.ShellFraction }, nil},
	}
	for _, p := range plots {
		if err := plot(p.file, p.title, p.ylabel, p.f, p.extra...); err != nil {
			return err
		}
	}
	// Label entropy vs number of explanations, one line per δ, for the first variant run.
	palette := []string{"#440154", "#443983", "#31688e", "#21918c", "#35b779", "#90d743", "#fde725", "#000000"}
	var lines []series
	for i, c := range averageCurves(results) {
		if c.variant != 0 {
			continue
		}
		x := make([]float64, len(c.mean))
		for k := range x {
			x[k] = float64(k + 1)
		}
		lines = append(lines, series{Name: fmt.Sprintf("δ = %g", c.delta), X: x, Y: c.mean, Colour: palette[i%len(palette)]})
	}
	return writeLinePlot(filepath.Join(dir, "label_entropy.svg"), "Label entropy vs number of explanations ("+vs[0].Name+")",
		"number of explanations", "entropy of the labels (nats)", lines)
}

// schemesAvailable says in one sentence which chosen variant the models cannot run: S2 needs their anchors (of
// one class at least), S6 their translations.
func (m *models) schemesAvailable(chosen []variant) error {
	for _, v := range chosen {
		switch {
		case v.Scheme == clue.S2 && m.search.Anchors == nil:
			return fmt.Errorf("variant %q: the %q models have no anchors (%s), so scheme S2 cannot run: leave it out with -variants", v.Name, m.Name(), weights.BundleAnchors)
		case v.Scheme == clue.S2 && len(m.search.AnchoredClasses()) == 0:
			return fmt.Errorf("variant %q: the %q models' classifier reads no training %s of any class with confidence, so they have no anchors and scheme S2 cannot run: leave it out with -variants", v.Name, m.Name(), m.noun())
		case v.Scheme == clue.S6 && m.search.Amortised == nil:
			return fmt.Errorf("variant %q: the %q models have no translations (%s), so scheme S6 cannot run: leave it out with -variants", v.Name, m.Name(), weights.BundleGlobal)
		}
	}
	return nil
}
