package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/figures"
	"github.com/deltaclue/deltaclue/engine/clue/kind"
	"github.com/deltaclue/deltaclue/engine/clue/raster"
	"github.com/deltaclue/deltaclue/engine/glam"
	"github.com/deltaclue/deltaclue/internal/plural"
	"github.com/deltaclue/deltaclue/weights"
)

func explain(args []string) error {
	fs := flag.NewFlagSet("explain", flag.ContinueOnError)
	p := clue.Defaults()
	finish := paramFlags(fs, &p)
	in := addInputFlags(fs, "explain what a share link from the page holds: its image, parameters and seed (other flags are ignored)")
	out := fs.String("out", "explain-out", "folder for grid.png, labels.png, tradeoff.svg, latent.svg, summary.png, set.csv and explain.json")
	cols := fs.Int("cols", 10, "columns of the grid")
	carlaDir := fs.String("carla-data", "data", "folder of `make data`: CARLA's yNN searches all its 10,000 digits (without it, the 2,000 committed test digits); other models' yNN searches their test items")
	workers := fs.Int("workers", runtime.NumCPU(), "split the restarts across this many searches run at once (the results are the same)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := finish(); err != nil {
		return err
	}
	if *workers < 1 {
		return fmt.Errorf("-workers %d: want at least 1", *workers)
	}
	m, x0, input, _, err := in.load(&p)
	if err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set["carla-data"] && !m.ShippedDigits {
		return fmt.Errorf("-carla-data: `make data` holds the digits, and these are the %q models: CARLA's yNN searches their test items", m.Name())
	}
	prob, err := in.problem(m, x0)
	if err != nil {
		return err
	}
	start := time.Now()
	done := 0
	bar := newProgress(os.Stderr, p.Restarts(), "restarts")
	exps, err := searchOn(context.Background(), prob, p, *workers, func(e clue.Explanation) {
		done++
		bar.update(done)
	})
	bar.finish()
	if err != nil {
		return err
	}
	classes := prob.Models().BNN.Classes
	sum := clue.Summarize(prob.X0, prob.Z0, classes, p, exps)
	carla := clue.CARLAOf(prob.X0, prob.Pred0.Label(), exps)
	data, err := carlaData(*carlaDir, m)
	if err != nil {
		return err
	}
	carla.SetYNN(prob.Pred0.Label(), exps, data, clue.NeighboursK)
	rep := clue.Report{Input: input, Params: p, X0: x0, Z0: prob.Z0, Prediction: prob.Pred0, Label: prob.Pred0.Label(),
		Summary: sum, CARLA: &carla, Explanations: exps, Seconds: time.Since(start).Seconds()}
	if len(exps) > 0 {
		rep.SecondsPerExplanation = rep.Seconds / float64(len(exps))
	}
	amortised := amortisedAnswers(prob, m.translations, p, exps)
	if cols := m.search.Columns(); cols != nil {
		return explainRow(*out, m, cols, in.natural, prob, p, glam.ExplainFile{Report: rep, Amortised: amortised}, data)
	}
	words := m.words()
	sentence := words.Describe(prob.Pred0, exps, sum, p)
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	js, err := json.MarshalIndent(glam.ExplainFile{Report: rep, Amortised: amortised}, "", " ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(*out, "explain.json"), js, 0o644); err != nil {
		return err
	}
	look := figureOf(m)
	if err := writePNG(filepath.Join(*out, "grid.png"), look.grid(x0, rep.Label, prob.Pred0.Total, exps, *cols)); err != nil {
		return err
	}
	if err := writePNG(filepath.Join(*out, "labels.png"), look.labelChart(prob.Pred0.Probs, sum.LabelDistribution)); err != nil {
		return err
	}
	// The page's download buttons write these from the same functions: the same link gives the same bytes.
	tradeoff, latent := figures.SetFigures(exps, classes, m.Description().Classes, prob.Z0, p, nil)
	for name, b := range map[string][]byte{"tradeoff.svg": []byte(tradeoff), "latent.svg": []byte(latent), "set.csv": clue.SetCSV(exps)} {
		if err := os.WriteFile(filepath.Join(*out, name), b, 0o644); err != nil {
			return err
		}
	}
	if err := writePNG(filepath.Join(*out, "summary.png"), raster.Summary(input, look.input, words, x0, prob.Pred0, p, exps, sum, sentence)); err != nil {
		return err
	}
	fmt.Printf("%s: the BNN says %s with H = %.3f nats (aleatoric %.3f, epistemic %.3f)\n", input, m.class(rep.Label),
		prob.Pred0.Total, prob.Pred0.Aleatoric, prob.Pred0.Epistemic)
	fmt.Printf("%s accepted in %.1fs: labels %v, H %.3f..%.3f, d %.1f..%.1f, shell fraction %.2f, %s, modes %v\n",
		plural.Of(sum.Accepted, sum.Restarts, "restart"), rep.Seconds, sum.LabelCounts, sum.H.Min, sum.H.Max, sum.D.Min, sum.D.Max, sum.ShellFraction,
		plural.Count(sum.Duplicates, "duplicate"), sum.Modes)
	fmt.Println(sentence)
	fmt.Println(carlaLine(sum.Recourse, sum.Accepted, sum.Restarts, rep.SecondsPerExplanation))
	fmt.Println(carlaExactLine(carla, sum.Restarts))
	if data.Images == nil {
		fmt.Printf("CARLA's yNN is left out: it searches the models' data for neighbours, and the %q models have no test items.\n", m.Name())
	}
	fmt.Println(amortisedLine(amortised, m))
	fmt.Printf("wrote %s/{grid.png,labels.png,tradeoff.svg,latent.svg,summary.png,set.csv,explain.json}\n", *out)
	return nil
}

// explainRow writes what explain writes of a row (f: the report and the amortised answers) into out and says it
// on stdout: explain.json with the rows as {column: value}, set.csv with the columns by name, labels.png,
// tradeoff.svg and latent.svg; grid.png and summary.png, which draw images, are left out. The set is said in
// words, with each mode's changes.
func explainRow(out string, m *models, cols weights.Columns, row0 []float64, prob *clue.Problem, p clue.Params, f glam.ExplainFile, data clue.NeighbourData) error {
	rep, exps, sum := f.Report, f.Explanations, f.Summary
	rows, err := kind.Table{Columns: cols}.Rows(prob.ExplanationRow, exps)
	if err != nil {
		return err
	}
	words := m.words()
	classes := m.Description().Classes
	sentence := kind.Table{Columns: cols}.Describe(words, prob.X0, prob.Pred0, exps, sum, p)
	js, err := json.MarshalIndent(kind.Table{Columns: cols}.ExplainFile(row0, f, rows), "", " ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "explain.json"), js, 0o644); err != nil {
		return err
	}
	look := figure{words: words, classes: len(classes)}
	if err := writePNG(filepath.Join(out, "labels.png"), look.labelChart(prob.Pred0.Probs, sum.LabelDistribution)); err != nil {
		return err
	}
	tradeoff, latent := figures.SetFigures(exps, prob.Models().BNN.Classes, classes, prob.Z0, p, nil)
	for name, b := range map[string][]byte{"tradeoff.svg": []byte(tradeoff), "latent.svg": []byte(latent), "set.csv": kind.Table{Columns: cols}.SetCSV(classes, exps, rows)} {
		if err := os.WriteFile(filepath.Join(out, name), b, 0o644); err != nil {
			return err
		}
	}
	fmt.Printf("%s: %s\n", rep.Input, cols.FormatRow(row0))
	if locks := p.Lock.Names(); len(locks) > 0 {
		fmt.Printf("locked: %s\n", strings.Join(locks, ", "))
	}
	h := "H"
	if mean := prob.Pred0.Mean; mean != nil {
		h = "σ"
		fmt.Printf("the model predicts %s (aleatoric ± %s, epistemic ± %s)\n", words.Prediction(*mean, prob.Pred0.Total),
			clue.Figure(float64(prob.Pred0.Aleatoric)), clue.Figure(float64(prob.Pred0.Epistemic)))
	} else {
		fmt.Printf("the BNN says %s with H = %.3f nats (aleatoric %.3f, epistemic %.3f)\n", m.class(rep.Label),
			prob.Pred0.Total, prob.Pred0.Aleatoric, prob.Pred0.Epistemic)
	}
	line := fmt.Sprintf("%s accepted in %.1fs: labels %v, %s %.3f..%.3f, d %.2f..%.2f", plural.Of(sum.Accepted, sum.Restarts, "restart"),
		rep.Seconds, sum.LabelCounts, h, sum.H.Min, sum.H.Max, sum.D.Min, sum.D.Max)
	if sp := sum.Sparsity; sp != nil && sum.Accepted > 0 {
		line += fmt.Sprintf(", changing %.0f..%.0f features (mean %.1f", sp.Min, sp.Max, sp.Mean)
		if gb := sum.GivenBack; gb != nil {
			line += fmt.Sprintf("; %.1f more given back on average, the model sure without them", gb.Mean)
		}
		line += ")"
	}
	fmt.Printf("%s, shell fraction %.2f, %s, modes %v\n", line, sum.ShellFraction, plural.Count(sum.Duplicates, "duplicate"), sum.Modes)
	fmt.Println(sentence)
	for _, l := range modeLines(words, cols, row0, exps, rows, sum) {
		fmt.Println(l)
	}
	// CARLA's measures count the flattened row's values (a changed category is two), not features.
	flat := func(s string) string { return strings.ReplaceAll(s, " pixels", " values of the flattened row") }
	fmt.Println(flat(carlaLine(sum.Recourse, sum.Accepted, sum.Restarts, rep.SecondsPerExplanation)))
	fmt.Println(flat(carlaExactLine(*rep.CARLA, sum.Restarts)))
	if data.Images == nil {
		fmt.Printf("CARLA's yNN is left out: it searches the models' data for neighbours, and the %q models have no test items.\n", m.Name())
	}
	fmt.Println(amortisedLine(f.Amortised, m))
	fmt.Printf("grid.png and summary.png are left out: they draw images, and the %q models read rows (the changes are in words above, in explain.json and in set.csv)\n", m.Name())
	fmt.Printf("wrote %s/{labels.png,tradeoff.svg,latent.svg,set.csv,explain.json}\n", out)
	return nil
}

// carlaExactLine writes CARLA's own measures of a set in one line.
func carlaExactLine(c clue.CARLA, restarts int) string {
	s := fmt.Sprintf("CARLA exactly: validity %.2f (class changed in %d of %d)", c.Validity, c.Valid, restarts)
	if c.Valid == 0 {
		return s + ", nothing else (no valid counterfactual)"
	}
	s += fmt.Sprintf(", over those L0 %.1f pixels (> 1e-5), L1 %.2f, L2 %.2f (sum of squares)", c.L0.Mean, c.L1.Mean, c.L2.Mean)
	if c.YNN >= 0 {
		s += fmt.Sprintf(", yNN %.3f (k = %d, input space, the model's labels, among %s)", c.YNN, clue.NeighboursK, c.YNNData)
	}
	return s
}

// carlaLine writes the recourse benchmark's measures of a set, as this project adapts them, in one line.
func carlaLine(r clue.Recourse, accepted, restarts int, secondsPer float64) string {
	s := fmt.Sprintf("CARLA-style: validity %.2f (confident in %d of %d)", r.Validity, accepted, restarts)
	if accepted > 0 {
		s += fmt.Sprintf(", proximity (means) L0 %.1f pixels, L1 %.2f, L2 %.3f", r.L0.Mean, r.L1.Mean, r.L2.Mean)
	} else {
		s += ", proximity n/a (nothing accepted)"
	}
	if r.YNN >= 0 {
		s += fmt.Sprintf(", yNN %.3f (k = %d)", r.YNN, clue.NeighboursK)
	} else {
		s += ", yNN n/a"
	}
	return s + fmt.Sprintf(", %.4f s per explanation", secondsPer)
}

// searchOn runs the search's restarts split across up to workers searches at once and merges them in restart
// order. Each restart's result depends only on its own index, so the explanations are the same as one
// search's; with the joint diversity term (λ_D > 0), which couples the restarts, it runs one search. onResult
// is called from one goroutine at a time.
func searchOn(ctx context.Context, prob *clue.Problem, p clue.Params, workers int, onResult func(clue.Explanation)) ([]clue.Explanation, error) {
	n := p.Restarts()
	workers = min(workers, n)
	if workers <= 1 || p.LambdaD != 0 {
		return clue.Search(ctx, prob, p, nil, onResult)
	}
	var mu sync.Mutex
	report := func(e clue.Explanation) {
		if onResult != nil {
			mu.Lock()
			onResult(e)
			mu.Unlock()
		}
	}
	parts := make([][]clue.Explanation, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		var restarts []int
		for i := w; i < n; i += workers {
			restarts = append(restarts, i)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			parts[w], errs[w] = clue.Search(ctx, prob, p, restarts, report)
		}()
	}
	wg.Wait()
	var exps []clue.Explanation
	for w := range workers {
		exps = append(exps, parts[w]...)
	}
	sort.Slice(exps, func(a, b int) bool { return exps[a].Restart < exps[b].Restart })
	for _, err := range errs {
		if err != nil {
			return exps, err
		}
	}
	return exps, nil
}
