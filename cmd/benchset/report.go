//go:build !js

package main

// The measurements (Sample, Report), their statistics and the main table; the JSON report (-json).

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
)

// Sample is one measurement.
type Sample struct {
	Config string `json:"config"`
	Build  string `json:"build"`
	Run    int    `json:"run"`
	Digit  int    `json:"digit"`
	// The page's own clock (ms after the search started): the full set, the last and the first result; the
	// slowest worker's own seconds; the page's ready time (ms after navigation) and the wall time from
	// navigation to the finished set, as seen from here.
	ElapsedMs       float64   `json:"elapsedMs,omitempty"`
	LastResultMs    float64   `json:"lastResultMs,omitempty"`
	FirstResultMs   float64   `json:"firstResultMs,omitempty"`
	WorkerSeconds   []float64 `json:"workerSeconds,omitempty"`
	ReadyMs         float64   `json:"readyMs,omitempty"`
	NavigateToDone  float64   `json:"navigateToDoneMs,omitempty"`
	PageEvaluations int       `json:"pageEvaluations,omitempty"` // Σ (steps + 1) over the page's report
	// The native benchmark's in-process time and its count of evaluations.
	Ms          float64 `json:"ms,omitempty"`
	Evaluations int     `json:"evaluations,omitempty"`
	Error       string  `json:"error,omitempty"`
}

// Report is what -json writes.
type Report struct {
	When          string   `json:"when"`
	Tree          string   `json:"tree"` // git rev-parse --short HEAD, "+ uncommitted changes" if any
	Nproc         int      `json:"nproc"`
	CPU           string   `json:"cpu"`
	Chromium      string   `json:"chromium"`
	GoVersion     string   `json:"goVersion"`
	LoadAvgBefore string   `json:"loadavgBefore"`
	LoadAvgAfter  string   `json:"loadavgAfter"`
	Digit         int      `json:"digit"`
	Runs          int      `json:"runs"`
	Builds        []*build `json:"builds"`
	Samples       []Sample `json:"samples"`
	// Engines are the engine comparison's runs.
	Engines []EngineSample `json:"engines,omitempty"`
	// First are the first minute's runs: Chromium's per build, then each engine's (this tree).
	First []FirstSample `json:"first,omitempty"`
}

// errorsOf summarises the failed samples of this tree (a base's failures are reported in the table only).
func errorsOf(samples []Sample) string {
	n := 0
	first := ""
	for _, s := range samples {
		if s.Error != "" && s.Build == "this tree" {
			if n == 0 {
				first = s.Config + ": " + s.Error
			}
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d runs of this tree failed; the first: %s", n, first)
}

func (s Sample) line() string {
	head := fmt.Sprintf("%-26s %-16s", s.Config, s.Build)
	switch {
	case s.Error != "":
		return head + " FAILED: " + s.Error
	case s.Ms > 0:
		return fmt.Sprintf("%s %8.0f ms  (%d evaluations)", head, s.Ms, s.Evaluations)
	}
	line := fmt.Sprintf("%s %8.0f ms set, last result %.0f, first %.0f, slowest worker %.0f ms", head, s.ElapsedMs, s.LastResultMs,
		s.FirstResultMs, 1000*maxOf(s.WorkerSeconds))
	if s.ReadyMs > 0 {
		line += fmt.Sprintf("; workers ready %.0f ms after navigation", s.ReadyMs)
	}
	return line
}

func maxOf(xs []float64) float64 {
	m := 0.0
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

// quantile is the q-quantile of xs, interpolated linearly between order statistics; NaN for none.
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	h := q * float64(len(s)-1)
	lo := int(math.Floor(h))
	if lo+1 >= len(s) {
		return s[lo]
	}
	return s[lo] + (h-float64(lo))*(s[lo+1]-s[lo])
}

// stat is a row's numbers for one build.
type stat struct {
	med, lo, hi float64
	n           int
}

func statOf(xs []float64) stat {
	if len(xs) == 0 {
		return stat{med: math.NaN()}
	}
	return stat{med: quantile(xs, 0.5), lo: slices.Min(xs), hi: slices.Max(xs), n: len(xs)}
}

// values picks one number of every good sample of a configuration and build.
func values(samples []Sample, cfg, build string, f func(Sample) float64) []float64 {
	var out []float64
	for _, s := range samples {
		if v := f(s); s.Config == cfg && s.Build == build && s.Error == "" && !math.IsNaN(v) {
			out = append(out, v)
		}
	}
	return out
}

func failures(samples []Sample, cfg, build string) int {
	n := 0
	for _, s := range samples {
		if s.Config == cfg && s.Build == build && s.Error != "" {
			n++
		}
	}
	return n
}

// row is one line of the table: a measure, its unit and how to get it from a sample, and whether less is
// better (times) or more (rates).
type row struct {
	label string
	cfg   string
	get   func(Sample) float64
	rate  bool // GFLOP/s: computed from another row's times
}

func printReport(w io.Writer, rep *Report, builds []*build) {
	fmt.Fprintf(w, "\nbench-set, %s, tree %s\n", rep.When, rep.Tree)
	fmt.Fprintf(w, "machine: nproc %d, %s; %s; %s\n", rep.Nproc, rep.CPU, rep.Chromium, rep.GoVersion)
	fmt.Fprintf(w, "load average before %s, after %s\n", rep.LoadAvgBefore, rep.LoadAvgAfter)
	for _, b := range builds {
		fmt.Fprintf(w, "%s: models' fingerprint %d, links %s", b.Name, b.Fingerprint, b.LinkFormat)
		if b.Evaluations > 0 {
			fmt.Fprintf(w, "; the set is %d objective evaluations × %.2f M multiply-adds = %.1f GFLOP",
				b.Evaluations, float64(b.MultiplyAdds)/1e6, b.gflop())
		}
		if b.NativeError != "" {
			fmt.Fprintf(w, "; native part unavailable: %s", b.NativeError)
		}
		if b.PageError != "" {
			fmt.Fprintf(w, "; page part unavailable: %s", b.PageError)
		}
		fmt.Fprintln(w)
	}
	if slices.ContainsFunc(rep.Samples, func(s Sample) bool { return s.Config != cGallery }) {
		printSets(w, rep, builds)
	}
	printGallery(w, rep, builds)
}

// printSets prints the set's table: in the page with 1 and 2 workers and natively on 1 and 2 cores.
func printSets(w io.Writer, rep *Report, builds []*build) {
	fmt.Fprintf(w, "\nthe set: test digit %d, n = %d restarts × %d Adam steps (no early stopping), defaults otherwise; %d runs each, interleaved\n",
		rep.Digit, setN, setSteps, rep.Runs)
	fmt.Fprintf(w, "times in ms: median [min–max]; GFLOP/s from the median time\n\n")

	elapsed := func(s Sample) float64 { return s.ElapsedMs }
	rows := []row{}
	for _, cfg := range []string{cPage1, cPage2} {
		rows = append(rows,
			row{cfg + ": set (elapsedMs)", cfg, elapsed, false},
			row{"  GFLOP/s", cfg, elapsed, true},
			row{"  all results (lastResultMs)", cfg, func(s Sample) float64 { return s.LastResultMs }, false},
			row{"  first result (firstResultMs)", cfg, func(s Sample) float64 { return s.FirstResultMs }, false},
			row{"  slowest worker's compute", cfg, func(s Sample) float64 { return 1000 * maxOf(s.WorkerSeconds) }, false},
			row{"  GFLOP/s per slowest worker", cfg, func(s Sample) float64 { return 1000 * maxOf(s.WorkerSeconds) }, true},
			row{"  set − slowest worker's compute", cfg, func(s Sample) float64 { return s.ElapsedMs - 1000*maxOf(s.WorkerSeconds) }, false},
			row{"  (page load → workers ready)", cfg, func(s Sample) float64 {
				if s.ReadyMs == 0 { // not published by older builds
					return math.NaN()
				}
				return s.ReadyMs
			}, false},
		)
	}
	for _, cfg := range []string{cNative1, cNative2} {
		get := func(s Sample) float64 { return s.Ms }
		rows = append(rows, row{cfg + ": set", cfg, get, false}, row{"  GFLOP/s", cfg, get, true})
	}

	two := len(builds) == 2
	if two {
		fmt.Fprintf(w, "%-40s %26s %26s %9s\n", "", builds[0].Name, builds[1].Name, "this/base")
	} else {
		fmt.Fprintf(w, "%-40s %26s\n", "", builds[0].Name)
	}
	cell := func(b *build, r row) (string, float64) {
		xs := values(rep.Samples, r.cfg, b.Name, r.get)
		st := statOf(xs)
		fail := failures(rep.Samples, r.cfg, b.Name)
		switch {
		case st.n == 0 && fail > 0:
			return fmt.Sprintf("%d failed", fail), math.NaN()
		case st.n == 0:
			return "n/a", math.NaN()
		case r.rate:
			if b.gflop() == 0 {
				return "n/a", math.NaN()
			}
			v := b.gflop() / (st.med / 1000)
			return fmt.Sprintf("%.1f", v), v
		}
		s := fmt.Sprintf("%.0f [%.0f–%.0f]", st.med, st.lo, st.hi)
		if fail > 0 {
			s += fmt.Sprintf(" (%d failed)", fail)
		}
		return s, st.med
	}
	for _, r := range rows {
		if !two {
			s, _ := cell(builds[0], r)
			fmt.Fprintf(w, "%-40s %26s\n", r.label, s)
			continue
		}
		s0, v0 := cell(builds[0], r)
		s1, v1 := cell(builds[1], r)
		ratio := ""
		if !math.IsNaN(v0) && !math.IsNaN(v1) && v0 != 0 {
			ratio = fmt.Sprintf("%.2f", v1/v0)
		}
		fmt.Fprintf(w, "%-40s %26s %26s %9s\n", r.label, s0, s1, ratio)
	}

}

// printGallery prints the gallery's table, when it ran.
func printGallery(w io.Writer, rep *Report, builds []*build) {
	elapsed := func(s Sample) float64 { return s.ElapsedMs }
	two := len(builds) == 2
	if values(rep.Samples, cGallery, builds[len(builds)-1].Name, elapsed) == nil {
		fmt.Fprintln(w)
		return
	}
	fmt.Fprintf(w, "\n%s: the default search (early stopping) on each of the %d gallery digits, all runs pooled\n", cGallery, countDigits(rep.Samples))
	grows := []struct {
		label string
		get   func(Sample) float64
		q     float64
	}{
		{"  first result p50", func(s Sample) float64 { return s.FirstResultMs }, 0.5},
		{"  first result p90", func(s Sample) float64 { return s.FirstResultMs }, 0.9},
		{"  full set p50", elapsed, 0.5},
		{"  full set p90", elapsed, 0.9},
		{"  set − slowest worker's compute p50", func(s Sample) float64 { return s.ElapsedMs - 1000*maxOf(s.WorkerSeconds) }, 0.5},
		{"  set − slowest worker's compute max", func(s Sample) float64 { return s.ElapsedMs - 1000*maxOf(s.WorkerSeconds) }, 1},
	}
	gcell := func(b *build, get func(Sample) float64, q float64) (string, float64) {
		xs := values(rep.Samples, cGallery, b.Name, get)
		if len(xs) == 0 {
			return "n/a", math.NaN()
		}
		v := quantile(xs, q)
		return fmt.Sprintf("%.0f", v), v
	}
	for _, g := range grows {
		if !two {
			s, _ := gcell(builds[0], g.get, g.q)
			fmt.Fprintf(w, "%-40s %26s\n", g.label, s)
			continue
		}
		s0, v0 := gcell(builds[0], g.get, g.q)
		s1, v1 := gcell(builds[1], g.get, g.q)
		ratio := ""
		if !math.IsNaN(v0) && !math.IsNaN(v1) && v0 != 0 {
			ratio = fmt.Sprintf("%.2f", v1/v0)
		}
		fmt.Fprintf(w, "%-40s %26s %26s %9s\n", g.label, s0, s1, ratio)
	}
	// The gallery's throughput: its objective evaluations over its summed set times.
	thr := func(b *build) (string, float64) {
		evals, ms := 0.0, 0.0
		for _, s := range rep.Samples {
			if s.Config == cGallery && s.Build == b.Name && s.Error == "" && s.PageEvaluations > 0 {
				evals += float64(s.PageEvaluations)
				ms += s.ElapsedMs
			}
		}
		if ms == 0 || b.MultiplyAdds == 0 {
			return "n/a", math.NaN()
		}
		v := 2 * evals * float64(b.MultiplyAdds) / 1e9 / (ms / 1000)
		return fmt.Sprintf("%.1f", v), v
	}
	if !two {
		s, _ := thr(builds[0])
		fmt.Fprintf(w, "%-40s %26s\n", "  GFLOP/s (Σ work / Σ set time)", s)
	} else {
		s0, v0 := thr(builds[0])
		s1, v1 := thr(builds[1])
		ratio := ""
		if !math.IsNaN(v0) && !math.IsNaN(v1) && v0 != 0 {
			ratio = fmt.Sprintf("%.2f", v1/v0)
		}
		fmt.Fprintf(w, "%-40s %26s %26s %9s\n", "  GFLOP/s (Σ work / Σ set time)", s0, s1, ratio)
	}
	for _, b := range builds {
		if n := failures(rep.Samples, cGallery, b.Name); n > 0 {
			fmt.Fprintf(w, "  %s: %d gallery runs failed\n", b.Name, n)
		}
	}
	fmt.Fprintln(w)
}

// writeJSON writes the report to path as indented JSON, when a path is given (-json).
func writeJSON(path string, rep *Report) error {
	if path == "" {
		return nil
	}
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return err
	}
	logf("wrote %s", path)
	return nil
}
