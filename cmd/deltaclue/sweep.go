package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/deltaclue/deltaclue/engine"
	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/figures"
	"github.com/deltaclue/deltaclue/internal/plural"
)

// sweepReport is what `deltaclue sweep` writes to sweep.json: the input, the search parameters shared by the
// radii, the ladder, and each radius's summary and explanations, with every label's reach.
type sweepReport struct {
	Input      string             `json:"input"`
	Params     clue.Params        `json:"params"` // delta and n are 0: each radius's search takes them from the ladder
	Ladder     clue.Ladder        `json:"ladder"`
	X0         []float32          `json:"x0"`
	Z0         []float32          `json:"z0"`
	Prediction engine.Uncertainty `json:"prediction"` // the BNN on x0
	Label      int                `json:"label"`
	Steps      []clue.SweepStep   `json:"steps"`   // one per radius, in the ladder's order
	Reaches    []clue.Reach       `json:"reaches"` // each label's smallest radius, nearest first
}

func sweep(args []string) error {
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	p := clue.Defaults()
	finish := paramFlags(fs, &p)
	in := addInputFlags(fs, "sweep what a share link from the page holds: its image, parameters, seed and δ ladder (the search flags are ignored; -radii and -n-per-radius, when given, replace the link's ladder)")
	def := clue.DefaultLadder()
	radii := fs.String("radii", clue.FormatRadii(def.Radii), `the radii δ, smallest first: "0.5, 1, 2" or a range first:last:step "0.5:4:0.5" (at most 12)`)
	perRadius := fs.Int("n-per-radius", def.N, "restarts at each radius")
	out := fs.String("out", "sweep-out", "folder for sweep.svg, sweep.csv and sweep.json")
	workers := fs.Int("workers", runtime.NumCPU(), "radii searched at once (the results are the same)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set["delta"] {
		return fmt.Errorf("-delta: a sweep takes its radii from -radii")
	}
	if set["n"] {
		return fmt.Errorf("-n: a sweep takes its restarts per radius from -n-per-radius")
	}
	if err := finish(); err != nil {
		return err
	}
	if *workers < 1 {
		return fmt.Errorf("-workers %d: want at least 1", *workers)
	}
	rs, err := clue.ParseRadii(*radii)
	if err != nil {
		return fmt.Errorf("-radii %q: %s", *radii, reason(err, false))
	}
	ladder := clue.Ladder{Radii: rs, N: *perRadius}
	m, x0, input, link, err := in.load(&p)
	if err != nil {
		return err
	}
	radiiFrom, nFrom := fmt.Sprintf("-radii %q", *radii), fmt.Sprintf("-n-per-radius %d", *perRadius)
	if link != nil && len(link.Sweep.Radii) > 0 {
		if !set["radii"] {
			ladder.Radii = link.Sweep.Radii
			radiiFrom = fmt.Sprintf("the link's radii %s", clue.FormatRadii(ladder.Radii))
		}
		if !set["n-per-radius"] {
			ladder.N = link.Sweep.N
			nFrom = fmt.Sprintf("the link's n = %d per radius", ladder.N)
		}
	}
	if err := ladder.Validate(); err != nil {
		var pe *clue.ParamError
		if errors.As(err, &pe) && pe.Field == "ladder n" {
			return fmt.Errorf("%s: %s", nFrom, reason(err, false))
		}
		return fmt.Errorf("%s: %s", radiiFrom, reason(err, true))
	}
	for i := range ladder.Radii {
		if err := ladder.AtRadius(p, i).Validate(); err != nil {
			return fmt.Errorf("at δ = %g: %w", ladder.Radii[i], err)
		}
	}
	prob, err := in.problem(m, x0)
	if err != nil {
		return err
	}
	w := min(*workers, len(ladder.Radii))
	fmt.Fprintf(os.Stderr, "%s × %s on %s\n", plural.Count(len(ladder.Radii), "radius", "radii"), plural.Count(ladder.N, "restart"), plural.Count(w, "worker"))
	start := time.Now()
	steps, err := sweepOn(context.Background(), prob, p, ladder, w)
	if err != nil {
		return err
	}
	elapsed := time.Since(start)
	shared := p
	shared.Delta, shared.N = 0, 0
	rep := sweepReport{Input: input, Params: shared, Ladder: ladder, X0: x0, Z0: prob.Z0, Prediction: prob.Pred0,
		Label: prob.Pred0.Label(), Steps: steps, Reaches: clue.Reaches(steps)}
	cols := m.search.Columns()
	var js []byte
	if cols != nil {
		js, err = json.MarshalIndent(rowSweep(cols, prob.ExplanationRow, in.natural, rep), "", " ")
	} else {
		js, err = json.MarshalIndent(rep, "", " ")
	}
	if err != nil {
		return err
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(*out, "sweep.json"), js, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(*out, "sweep.svg"), []byte(sweepSVG(steps, ladder, p.HThreshold, m.Description().Classes)), 0o644); err != nil {
		return err
	}
	if err := writeSweepCSV(filepath.Join(*out, "sweep.csv"), steps); err != nil {
		return err
	}
	if mean := prob.Pred0.Mean; mean != nil {
		fmt.Printf("%s: the model predicts %s\n", input, m.words().Prediction(*mean, prob.Pred0.Total))
	} else {
		fmt.Printf("%s: the BNN says %s with H = %.3f nats\n", input, m.class(rep.Label), prob.Pred0.Total)
	}
	if cols != nil {
		fmt.Println(cols.FormatRow(in.natural))
		if locks := p.Lock.Names(); len(locks) > 0 {
			fmt.Printf("locked: %s\n", strings.Join(locks, ", "))
		}
	}
	printSweepTable(steps, m.words())
	fmt.Println(m.words().DescribeReaches(rep.Reaches, ladder, rep.Label))
	if cols != nil {
		for _, l := range reachLines(m.words(), cols, prob.ExplanationRow, in.natural, rep.Reaches) {
			fmt.Println(l)
		}
	}
	fmt.Printf("%s × %s in %s on %s; wrote %s/{sweep.svg,sweep.csv,sweep.json}\n", plural.Count(len(ladder.Radii), "radius", "radii"),
		plural.Count(ladder.N, "restart"), elapsed.Round(100*time.Millisecond), plural.Count(w, "worker"), *out)
	return nil
}

// sweepOn runs the ladder's searches, up to workers radii at once, with a progress bar on stderr. Each radius
// is an independent search (clue.Sweep of that radius alone gives what the whole ladder's sweep gives there),
// and the steps are collected by index, so the result does not depend on workers.
func sweepOn(ctx context.Context, prob *clue.Problem, p clue.Params, l clue.Ladder, workers int) ([]clue.SweepStep, error) {
	var mu sync.Mutex
	done := 0
	bar := newProgress(os.Stderr, len(l.Radii), "radii")
	defer bar.finish()
	tick := func() {
		mu.Lock()
		done++
		bar.update(done)
		mu.Unlock()
	}
	if workers <= 1 {
		return clue.Sweep(ctx, prob, p, l, func(clue.SweepStep) { tick() })
	}
	steps := make([]clue.SweepStep, len(l.Radii))
	errs := make([]error, len(l.Radii))
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				one, err := clue.Sweep(ctx, prob, p, clue.Ladder{Radii: l.Radii[i : i+1], N: l.N}, nil)
				if err == nil {
					steps[i] = one[0]
				}
				errs[i] = err
				tick()
			}
		}()
	}
	for i := range l.Radii {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return steps[:i], err
		}
	}
	return steps, nil
}

// sweepSVG draws the sweep as the page does: per radius the label distribution, the distinct labels and the
// best H.
func sweepSVG(steps []clue.SweepStep, l clue.Ladder, threshold float64, names []string) string {
	done := make([]*clue.SweepStep, len(l.Radii))
	for i := range steps[:min(len(steps), len(done))] {
		done[i] = &steps[i]
	}
	chart := figures.SweepOf(l, done, threshold)
	chart.Names = names
	return figures.Sweep(chart)
}

// writeSweepCSV writes one row per radius. Numbers are written in the shortest form that reads back to the
// same float64; the H and d columns are empty when nothing was accepted at that radius.
func writeSweepCSV(path string, steps []clue.SweepStep) error {
	classes := 0
	for _, st := range steps {
		classes = max(classes, len(st.Summary.LabelDistribution), len(st.Summary.LabelCounts))
	}
	header := []string{"delta", "n", "accepted", "distinct_labels", "best_h", "mean_h", "mean_d"}
	for c := range classes {
		header = append(header, "p"+strconv.Itoa(c))
	}
	for c := range classes {
		header = append(header, "count"+strconv.Itoa(c))
	}
	g := func(v float64) string {
		if math.IsNaN(v) {
			return ""
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	var b strings.Builder
	w := csv.NewWriter(&b)
	w.Write(header)
	for _, st := range steps {
		s := st.Summary
		meanH, meanD := s.H.Mean, s.D.Mean
		if s.Accepted == 0 {
			meanH, meanD = math.NaN(), math.NaN()
		}
		row := []string{g(st.Delta), strconv.Itoa(s.Restarts), strconv.Itoa(s.Accepted), strconv.Itoa(s.DistinctLabels),
			g(s.BestH()), g(meanH), g(meanD)}
		for c := range classes {
			v := 0.0
			if c < len(s.LabelDistribution) {
				v = s.LabelDistribution[c]
			}
			row = append(row, g(v))
		}
		for c := range classes {
			n := 0
			if c < len(s.LabelCounts) {
				n = s.LabelCounts[c]
			}
			row = append(row, strconv.Itoa(n))
		}
		w.Write(row)
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// printSweepTable prints one line per radius: accepted, distinct labels, best H and the labels (named in w) by p(y).
func printSweepTable(steps []clue.SweepStep, w clue.Words) {
	best := "best H"
	if w.Regression != nil {
		best = "best σ"
	}
	fmt.Printf("%6s  %9s  %6s  %6s  %s\n", "δ", "accepted", "labels", best, "p(y), most probable first")
	for _, st := range steps {
		s := st.Summary
		best := "-"
		if s.Accepted > 0 {
			best = fmt.Sprintf("%.3f", s.H.Min)
		}
		var dist []string
		for _, c := range labelsByP(s.LabelDistribution) {
			dist = append(dist, fmt.Sprintf("%s %.2f", w.Class(c), s.LabelDistribution[c]))
		}
		fmt.Printf("%6g  %9s  %6d  %6s  %s\n", st.Delta, fmt.Sprintf("%d/%d", s.Accepted, s.Restarts), s.DistinctLabels, best,
			strings.Join(dist, ", "))
	}
}

// labelsByP returns the labels with p > 0, most probable first (ties by label).
func labelsByP(dist []float64) []int {
	var out []int
	for c, v := range dist {
		if v > 0 {
			out = append(out, c)
		}
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && dist[out[j]] > dist[out[j-1]]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// reason is a parameter error's reason without the field's name, with the offending value if withValue.
func reason(err error, withValue bool) string {
	var pe *clue.ParamError
	if !errors.As(err, &pe) {
		return err.Error()
	}
	if withValue {
		return fmt.Sprintf("%s (got %v)", pe.Reason, pe.Value)
	}
	return pe.Reason
}
