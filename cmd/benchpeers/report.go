//go:build !js

package main

// The report: the checks and the times as Markdown tables on stdout, into docs/peers.md between its results
// markers (-md), and every measurement as JSON (-json); the machine they were taken on.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"
)

// Report is one run of the harness.
type Report struct {
	When       string `json:"when"`
	Tree       string `json:"tree"`
	Nproc      int    `json:"nproc"`
	CPU        string `json:"cpu"`
	GoVersion  string `json:"go"`
	Chromium   string `json:"chromium,omitempty"`
	LoadBefore string `json:"load_before"`
	LoadAfter  string `json:"load_after"`
	// OthersCPU is the CPU seconds the processes outside the harness's tree used during the rounds, OthersShare
	// that as a share of the cores over the rounds' wall time, and OthersTop the busiest of them (its command
	// and seconds): the benchmark's own work raises the load average, so it cannot tell a busy machine.
	OthersCPU   float64 `json:"others_cpu_seconds"`
	OthersShare float64 `json:"others_share"`
	OthersTop   string  `json:"others_top,omitempty"`
	// Busy says the other processes used more than benchenv.OthersBusy of the cores during the rounds: the
	// numbers are then not fit for comparison.
	Busy bool `json:"busy"`

	Models                string  `json:"models"`
	Spec                  string  `json:"spec"`
	Item                  string  `json:"item"`
	N                     int     `json:"n"`
	Steps                 int     `json:"steps"`
	K                     int     `json:"k"`
	Latent                int     `json:"latent"`
	PointStepMultiplyAdds int     `json:"point_step_multiply_adds"`
	GFLOP                 float64 `json:"gflop"` // 2 × n × (T + 1) × PointStepMultiplyAdds / 1e9
	EngineMeanCost        float64 `json:"engine_mean_cost"`
	Rounds                int     `json:"rounds"`
	Warm                  int     `json:"warm"`
	Threads               int     `json:"threads"`
	Short                 bool    `json:"short"`

	Notes  []string              `json:"notes,omitempty"` // what a reader of the numbers must know
	Checks map[string]*Agreement `json:"checks"`
	Impls  []*Impl               `json:"impls"`
}

// Impl is one implementation's part: its checks and its timed runs.
type Impl struct {
	Key           string   `json:"key"`
	Name          string   `json:"name"`
	Missing       string   `json:"missing,omitempty"`   // why it could not run here
	Disagrees     string   `json:"disagrees,omitempty"` // why its results are not the engine's: then it is not timed
	Failed        []string `json:"failed,omitempty"`    // runs that failed
	CheckMeanCost float64  `json:"check_mean_cost,omitempty"`
	Runs          []Round  `json:"runs"`
}

// Round is one implementation's fresh process or page load in one round.
type Round struct {
	Round int `json:"round"`
	TimeResult
}

// timed says whether the implementation runs in the rounds.
func (im *Impl) timed() bool {
	return im.Missing == "" && im.Disagrees == "" && !(len(im.Failed) > 0 && strings.HasPrefix(im.Failed[0], "the check"))
}

// add records a round's result, checking that it did the search it should have: the engine's own results
// (native: the same mean cost, exactly; the page checks its sets bit for bit itself), or the peer's checked
// ones.
func (im *Impl) add(round int, r *TimeResult, err error, rep *Report, ref *Outcome) {
	if err == nil {
		want := im.CheckMeanCost
		tol := 1e-5
		if im.Key == implNative || im.Key == implPage {
			want, tol = mean(ref.FinalCost), 0
		}
		for _, run := range append([]TimedRun{r.Cold}, r.Warm...) {
			if relErr(run.MeanCost, want) > tol {
				err = fmt.Errorf("a search's mean final cost is %v, not %v: it did not do the checked search", run.MeanCost, want)
				break
			}
		}
	}
	if err != nil {
		im.Failed = append(im.Failed, fmt.Sprintf("round %d: %v", round, err))
		logf("  %-8s FAILED: %v", im.Key, err)
		return
	}
	im.Runs = append(im.Runs, Round{round, *r})
	var warm []string
	for _, w := range r.Warm {
		warm = append(warm, fmt.Sprintf("%.0f", w.Ms))
	}
	line := fmt.Sprintf("  %-8s start-up %6.0f ms, cold %7.0f ms", im.Key, r.ReadyMs, r.Cold.Ms)
	if len(warm) > 0 {
		line += fmt.Sprintf(", warm %s ms", strings.Join(warm, ", "))
	}
	logf("%s", line)
}

// failure is the run's error: a peer that disagrees with the engine, or runs that failed.
func (rep *Report) failure() error {
	var bad []string
	for _, im := range rep.Impls {
		if im.Disagrees != "" {
			bad = append(bad, fmt.Sprintf("%s disagrees with the engine: %s", im.Key, im.Disagrees))
		}
		if len(im.Failed) > 0 {
			bad = append(bad, fmt.Sprintf("%s: %d runs failed, the first: %s", im.Key, len(im.Failed), im.Failed[0]))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("%s", strings.Join(bad, "\n"))
}

type stat struct{ med, lo, hi float64 }

func statOf(xs []float64) stat {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return stat{median(s), s[0], s[len(s)-1]}
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// printChecks writes the correctness table.
func printChecks(w io.Writer, rep *Report) {
	fmt.Fprintf(w, "\n#### Correctness: the peers against the engine\n\n")
	fmt.Fprintf(w, "The same search (%s, %s; n = %d × T = %d, K = %d) from the same starts. The first step at the starts of the first %s: the cost "+
		"and its gradient, relative error (the gradient's: ‖Δg‖/‖g‖), allowed %g. After the search: each restart's final cost "+
		"(relative error, median allowed %g), its final point (‖Δz‖, δ = 2), the mean final cost (allowed %g) and the final label (≥ %.0f%% the same).\n\n",
		rep.Models, rep.Item, rep.N, rep.Steps, rep.K, plural(checksOf(rep), "restart"), firstTol, finalCostTol, finalMeanTol, 100*finalLabels)
	fmt.Fprintln(w, "| peer | first cost, max err | first gradient, max err | final cost err, median / max | final ‖Δz‖, median / max | mean final cost (engine's) | same label | verdict |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	for _, im := range rep.Impls {
		if im.Key != implTFJS && im.Key != implTorch {
			continue
		}
		name := im.Name
		if name == "" {
			name = im.Key
		}
		a := rep.Checks[im.Key]
		switch {
		case im.Missing != "":
			fmt.Fprintf(w, "| %s | | | | | | | not run: %s |\n", name, im.Missing)
		case a == nil:
			fmt.Fprintf(w, "| %s | | | | | | | FAILED: %s |\n", name, strings.Join(im.Failed, "; "))
		default:
			verdict := "agrees"
			if !a.OK {
				verdict = "DISAGREES: " + a.Disagreements + " (not timed)"
			}
			fmt.Fprintf(w, "| %s | %.1e | %.1e | %.1e / %.1e | %.2g / %.2g | %.6g (%.6g) | %.0f%% | %s |\n", name, a.FirstCostErr, a.FirstGradErr,
				a.FinalCostMed, a.FinalCostMax, a.FinalZMed, a.FinalZMax, a.PeerMeanL, a.EngineMeanL, 100*a.LabelsAgree, verdict)
		}
	}
	fmt.Fprintln(w)
}

func checksOf(rep *Report) int {
	for _, a := range rep.Checks {
		return a.Checks
	}
	return 0
}

func plural(n int, word string) string {
	switch {
	case n == 1:
		return "1 " + word
	case strings.HasSuffix(word, "ch"):
		return fmt.Sprintf("%d %ses", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// orNone is s, or "none" when it is empty.
func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// printTimes writes the times' table.
func printTimes(w io.Writer, rep *Report) {
	fmt.Fprintf(w, "#### Times\n\n")
	if rep.Busy {
		fmt.Fprintf(w, "**THE MACHINE WAS BUSY**: other processes used %.1f %% of the %d cores during the rounds (%s): these numbers are not fit for comparison; take them again on a quiet machine.\n\n",
			100*rep.OthersShare, rep.Nproc, rep.OthersTop)
	}
	for _, n := range rep.Notes {
		fmt.Fprintf(w, "**Note:** %s.\n\n", n)
	}
	fmt.Fprintf(w, "%s, tree %s; %d cores (nproc), %s; %s; load average %s before, %s after; other processes used %.1f CPU s during the rounds, %.1f %% of the cores (the busiest: %s).\n",
		rep.When, rep.Tree, rep.Nproc, rep.CPU, rep.GoVersion, rep.LoadBefore, rep.LoadAfter, rep.OthersCPU, 100*rep.OthersShare, orNone(rep.OthersTop))
	fmt.Fprintf(w, "The search: %s (%s), n = %d restarts × exactly T = %d Adam steps, K = %d MC samples: %.1f GFLOP by the engine's count "+
		"(2 × n × (T + 1) × %d multiply-adds per point and step). %s, each a fresh page load or process per implementation in this order: "+
		"start-up (to ready to search), the first search (cold) and %s.\n\n",
		rep.Models, rep.Item, rep.N, rep.Steps, rep.K, rep.GFLOP, rep.PointStepMultiplyAdds, plural(rep.Rounds, "round"), plural(rep.Warm, "warm search"))
	fmt.Fprintln(w, "| implementation | start-up, ms | cold search, ms | warm search, ms: median [min–max] | GFLOP/s (warm) | warm × ours in Chromium |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	base := math.NaN()
	for _, im := range rep.Impls {
		if im.Key == implPage && len(im.Runs) > 0 {
			base = statOf(warmOf(im)).med
		}
	}
	for _, im := range rep.Impls {
		name := im.Name
		if name == "" {
			name = im.Key
		}
		switch {
		case im.Missing != "":
			fmt.Fprintf(w, "| %s | not run: %s | | | | |\n", name, im.Missing)
			continue
		case im.Disagrees != "":
			fmt.Fprintf(w, "| %s | not timed: it disagrees with the engine (%s) | | | | |\n", name, im.Disagrees)
			continue
		case len(im.Runs) == 0:
			fmt.Fprintf(w, "| %s | FAILED: %s | | | | |\n", name, strings.Join(im.Failed, "; "))
			continue
		}
		var ready, cold []float64
		for _, r := range im.Runs {
			ready, cold = append(ready, r.ReadyMs), append(cold, r.Cold.Ms)
		}
		warm := warmOf(im)
		row := fmt.Sprintf("| %s | %.0f | %.0f | ", name, median(ready), median(cold))
		if len(warm) > 0 {
			s := statOf(warm)
			ratio := ""
			if !math.IsNaN(base) && base > 0 {
				ratio = fmt.Sprintf("×%.2f", s.med/base)
			}
			row += fmt.Sprintf("%.0f [%.0f–%.0f] | %.1f | %s |", s.med, s.lo, s.hi, rep.GFLOP/(s.med/1000), ratio)
		} else {
			row += "| | |"
		}
		if len(im.Failed) > 0 {
			row += fmt.Sprintf(" (%d runs failed: %s)", len(im.Failed), im.Failed[0])
		}
		fmt.Fprintln(w, row)
	}
	fmt.Fprintf(w, "\nStart-up is in the page from navigation (ours: to every worker ready; TF.js: to the backend started and the weights read) and in "+
		"a process from its start (Go: main; Python: before import torch) to the models built. The cold search is each round's first; the warm median is over "+
		"every warm search of every round. GFLOP/s counts the engine's work for every implementation.\n\n")
}

func warmOf(im *Impl) []float64 {
	var xs []float64
	for _, r := range im.Runs {
		for _, w := range r.Warm {
			xs = append(xs, w.Ms)
		}
	}
	return xs
}

// resultMarkers are the markers of docs/peers.md's results section for the models named, which -md replaces:
// each model has its own.
func resultMarkers(models string) (begin, end string) {
	return "<!-- benchpeers: " + models + " results begin (written by make bench-peers) -->",
		"<!-- benchpeers: " + models + " results end -->"
}

// write writes the Markdown section and the JSON file, each when asked.
func (rep *Report) write(mdPath, jsonPath string) error {
	if jsonPath != "" {
		b, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(jsonPath, append(b, '\n'), 0o644); err != nil {
			return err
		}
		logf("wrote %s", jsonPath)
	}
	if mdPath == "" {
		return nil
	}
	doc, err := os.ReadFile(mdPath)
	if err != nil {
		return err
	}
	beginResults, endResults := resultMarkers(rep.Models)
	i, j := bytes.Index(doc, []byte(beginResults)), bytes.Index(doc, []byte(endResults))
	if i < 0 || j < i {
		return fmt.Errorf("%s has no results section for the %s models: add the lines %q and %q where they go", mdPath, rep.Models, beginResults, endResults)
	}
	var sec bytes.Buffer
	sec.WriteString(beginResults + "\n\n")
	printTimes(&sec, rep)
	printChecks(&sec, rep)
	out := append(append(append([]byte(nil), doc[:i]...), sec.Bytes()...), doc[j:]...)
	if err := os.WriteFile(mdPath, out, 0o644); err != nil {
		return err
	}
	logf("wrote the results into %s", mdPath)
	return nil
}
