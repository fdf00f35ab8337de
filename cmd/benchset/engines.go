//go:build !js

package main

// The engine comparison: the same set (the link's own run, 2 workers) in Chromium, Firefox and WebKitGTK, each
// driven through internal/browser, interleaved round by round. Per engine and round, one fresh page load
// opens the set's link (the link's own run, with its navigation → workers ready) and, once it is done, Explain
// is pressed again on the same page (the warm rerun: the workers have run the set once). Every run's
// explanations are hashed, so that the table says whether the engines gave the same bits.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/deltaclue/deltaclue/internal/browser"
)

const (
	cLink = "the link's own run"
	cWarm = "warm rerun"
)

// EngineSample is one run of the set in one engine.
type EngineSample struct {
	Engine    string  `json:"engine"`
	Config    string  `json:"config"` // cLink or cWarm
	Run       int     `json:"run"`
	ElapsedMs float64 `json:"elapsedMs,omitempty"` // the page's clock: the search's start → the finished set
	// ReadyMs is navigation → every worker ready, on the page's clock (the link's own run only).
	ReadyMs float64 `json:"readyMs,omitempty"`
	// Restarted counts the workers the page replaced during the run (a worker it took for dead).
	Restarted int    `json:"restarted,omitempty"`
	SetHash   string `json:"setHash,omitempty"` // SHA-256 of the explanations' JSON, first 12 hex digits
	Error     string `json:"error,omitempty"`
}

// engineState is what a run reads from window.deltaclue.
type engineState struct {
	State       string  `json:"state"`
	RunID       float64 `json:"runID"`
	Results     int     `json:"results"`
	Total       int     `json:"total"`
	Workers     int     `json:"workers"`
	ElapsedMs   float64 `json:"elapsedMs"`
	Ready       float64 `json:"ready"`
	Restarted   int     `json:"restarted"`
	Explained   string  `json:"explained"` // the report's explanations, as JSON
	Evaluations int     `json:"evaluations"`
	Errors      string  `json:"errors"`
}

// engineFinished is the page's state once the run with an ID other than the given one has ended (any ID when
// it is -1), as JSON; false before.
func engineFinished(after float64) string {
	return fmt.Sprintf(`(() => {
		const d = window.deltaclue;
		if (!d || d.preview || d.runID == %v || !(d.state == "done" || d.state == "failed" || d.state == "cancelled" || d.linkError || d.poolError)) return false;
		let explained = "", evaluations = -1;
		try { const r = JSON.parse(d.report); explained = JSON.stringify(r.explanations); evaluations = r.explanations.reduce((a, e) => a + e.steps + 1, 0); } catch (e) {}
		return {state: d.state, runID: d.runID, results: d.results, total: d.total, workers: d.workers, elapsedMs: d.elapsedMs,
			ready: d.timing && d.timing.ready, restarted: d.restarted, explained, evaluations,
			errors: [d.linkError, d.poolError, d.runError].filter(Boolean).join("; ")};
	})()`, after)
}

// engineBench runs the comparison for one build (this tree's site, served on url under /repo/), and prints its
// table to w. The engines that are not installed are left out, loudly.
func engineBench(ctx context.Context, w io.Writer, b *build, engines []string, chrome, link string, runs int, timeout time.Duration) ([]EngineSample, error) {
	type open struct {
		name string
		b    browser.Browser
	}
	var open_ []open
	for _, e := range engines {
		if err := browser.Installed(e); err != nil {
			logf("engines: leaving %s out: %v", e, err)
			continue
		}
		sctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		bin := ""
		if e == browser.Chromium {
			bin = chrome
		}
		br, err := browser.Start(sctx, e, browser.Options{Binary: bin, Logf: func(format string, args ...any) {
			if msg := fmt.Sprintf(format, args...); len(msg) < 400 {
				logf("  %s: %s", e, msg)
			}
		}})
		cancel()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e, err)
		}
		defer br.Close()
		open_ = append(open_, open{br.Engine(), br})
		logf("engines: %s", br.Engine())
	}
	if len(open_) == 0 {
		return nil, errors.New("no browser engine is installed")
	}
	// A first, untimed visit per engine: the site in the browser's cache and its service worker installed, so
	// that every timed run is a returning visitor's page load (its workers still start cold).
	for i, o := range open_ {
		url := fmt.Sprintf("%s/repo/?workers=2&warmup=%d", b.url, i)
		if err := o.b.Navigate(ctx, url); err != nil {
			return nil, fmt.Errorf("%s: opening the page: %w", o.name, err)
		}
		if _, err := browser.WaitFor(ctx, o.b, `window.deltaclue && window.deltaclue.ready == 2 && navigator.serviceWorker.controller`, timeout, 100*time.Millisecond); err != nil {
			return nil, fmt.Errorf("%s: the page's workers did not get ready (or no service worker took the page): %w", o.name, err)
		}
	}

	var samples []EngineSample
	add := func(s EngineSample) {
		samples = append(samples, s)
		line := fmt.Sprintf("  %-22s %-20s", s.Engine, s.Config)
		switch {
		case s.Error != "":
			line += " FAILED: " + s.Error
		case s.Config == cLink:
			line += fmt.Sprintf(" %6.0f ms set, workers ready %.0f ms after navigation, bits %s", s.ElapsedMs, s.ReadyMs, s.SetHash)
		default:
			line += fmt.Sprintf(" %6.0f ms set, bits %s", s.ElapsedMs, s.SetHash)
		}
		if s.Restarted > 0 {
			line += fmt.Sprintf(" (the page replaced %s it took for dead)", workerCount(s.Restarted))
		}
		logf("%s", line)
	}
	for r := 1; r <= runs; r++ {
		logf("engines, round %d of %d", r, runs)
		order := slices.Clone(open_)
		for range r - 1 { // rotate which engine goes first
			order = append(order[1:], order[0])
		}
		for _, o := range order {
			if err := ctx.Err(); err != nil {
				return samples, err
			}
			s := EngineSample{Engine: o.name, Config: cLink, Run: r}
			url := fmt.Sprintf("%s/repo/?workers=2&run=%d#%s", b.url, r, link)
			if err := o.b.Navigate(ctx, url); err != nil {
				s.Error = "opening the link: " + err.Error()
				add(s)
				continue
			}
			st := engineRead(ctx, o.b, &s, -1, b, timeout)
			add(s)
			if s.Error != "" {
				continue
			}
			w := EngineSample{Engine: o.name, Config: cWarm, Run: r}
			if err := o.b.Eval(ctx, `(document.getElementById("run").click(), true)`, nil); err != nil {
				w.Error = "pressing Explain: " + err.Error()
			} else {
				engineRead(ctx, o.b, &w, st.RunID, b, timeout)
			}
			add(w)
		}
	}
	printEngines(w, samples, open_[0].name, runs)
	return samples, nil
}

// engineRead waits for the run after runID `after` to end and reads it into s.
func engineRead(ctx context.Context, br browser.Browser, s *EngineSample, after float64, b *build, timeout time.Duration) engineState {
	var st engineState
	raw, err := browser.WaitFor(ctx, br, engineFinished(after), timeout, 50*time.Millisecond)
	if err == nil {
		err = json.Unmarshal(raw, &st)
	}
	if err != nil {
		s.Error = err.Error()
		return st
	}
	s.ElapsedMs, s.Restarted = st.ElapsedMs, st.Restarted
	if s.Config == cLink {
		s.ReadyMs = st.Ready
	}
	sum := sha256.Sum256([]byte(st.Explained))
	s.SetHash = hex.EncodeToString(sum[:6])
	var problems []string
	if st.State != "done" {
		problems = append(problems, fmt.Sprintf("the page ended in state %q (%s)", st.State, st.Errors))
	}
	if st.Workers != 2 {
		problems = append(problems, fmt.Sprintf("the page ran %d workers, not 2", st.Workers))
	}
	if st.Results != st.Total || st.Total != setN {
		problems = append(problems, fmt.Sprintf("%d results of %d", st.Results, st.Total))
	}
	if b.Evaluations > 0 && st.Evaluations != b.Evaluations {
		problems = append(problems, fmt.Sprintf("the page's set made %d objective evaluations, the native one %d", st.Evaluations, b.Evaluations))
	}
	if len(problems) > 0 {
		s.Error = strings.Join(problems, "; ")
	}
	return st
}

// printEngines prints the engines side by side: per measure the median [min–max] of each, and its ratio to
// the first engine's median.
func printEngines(w io.Writer, samples []EngineSample, first string, runs int) {
	var names []string
	for _, s := range samples {
		if !slices.Contains(names, s.Engine) {
			names = append(names, s.Engine)
		}
	}
	fmt.Fprintf(w, "\nthe engines: the set (n = %d × %d steps, no early stopping) with 2 workers, %d runs each, interleaved;\n", setN, setSteps, runs)
	fmt.Fprintf(w, "times in ms on the page's clock: median [min–max] (× the first engine's median)\n\n")
	fmt.Fprintf(w, "%-36s", "")
	for _, n := range names {
		fmt.Fprintf(w, " %34s", n)
	}
	fmt.Fprintln(w)
	rows := []struct {
		label, cfg string
		get        func(EngineSample) float64
	}{
		{"the link's own run (set)", cLink, func(s EngineSample) float64 { return s.ElapsedMs }},
		{"warm rerun (set)", cWarm, func(s EngineSample) float64 { return s.ElapsedMs }},
		{"navigation → workers ready", cLink, func(s EngineSample) float64 { return s.ReadyMs }},
		{"workers replaced (runs' median)", "", func(s EngineSample) float64 { return float64(s.Restarted) }},
	}
	for _, r := range rows {
		fmt.Fprintf(w, "%-36s", r.label)
		base := math.NaN()
		for i, n := range names {
			var xs []float64
			fails := 0
			for _, s := range samples {
				if s.Engine == n && (s.Config == r.cfg || r.cfg == "") {
					if s.Error != "" {
						fails++
					} else {
						xs = append(xs, r.get(s))
					}
				}
			}
			cell := "n/a"
			if len(xs) > 0 {
				st := statOf(xs)
				if i == 0 {
					base = st.med
				}
				cell = fmt.Sprintf("%.0f [%.0f–%.0f]", st.med, st.lo, st.hi)
				if i > 0 && !math.IsNaN(base) && base > 0 {
					cell += fmt.Sprintf(" (×%.2f)", st.med/base)
				}
			}
			if fails > 0 {
				cell += fmt.Sprintf(" %d failed", fails)
			}
			fmt.Fprintf(w, " %34s", cell)
		}
		fmt.Fprintln(w)
	}
	// The bits: every good run of every engine should have given the same set.
	hashes := map[string][]string{} // the set's hash → "engine, config" of each run that gave it
	restarted := 0
	for _, s := range samples {
		if s.Error == "" {
			hashes[s.SetHash] = append(hashes[s.SetHash], s.Engine+", "+s.Config)
		}
		restarted += s.Restarted
	}
	switch len(hashes) {
	case 0:
	case 1:
		for h := range hashes {
			fmt.Fprintf(w, "the same set, bit for bit, in every engine and run (SHA-256 of its explanations %s…)\n", h)
		}
	default:
		fmt.Fprintf(w, "THE SETS DIFFER between runs:\n")
		for h, who := range hashes {
			fmt.Fprintf(w, "  %s: %s\n", h, countRuns(who))
		}
	}
	if restarted > 0 {
		fmt.Fprintf(w, "the pages replaced %s they took for dead (a run with a replaced worker is slower)\n", workerCount(restarted))
	}
	fmt.Fprintln(w)
}

// engineErrors summarises the failed engine runs.
func engineErrors(samples []EngineSample) string {
	n, first := 0, ""
	for _, s := range samples {
		if s.Error != "" {
			if n == 0 {
				first = s.Engine + ", " + s.Config + ": " + s.Error
			}
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d engine runs failed; the first: %s", n, first)
}

// workerCount is "1 worker", "2 workers".
func workerCount(n int) string {
	if n == 1 {
		return "1 worker"
	}
	return fmt.Sprintf("%d workers", n)
}

// countRuns lists runs as "a ×2; b" in the order they first appear.
func countRuns(runs []string) string {
	var order []string
	n := map[string]int{}
	for _, r := range runs {
		if n[r] == 0 {
			order = append(order, r)
		}
		n[r]++
	}
	for i, r := range order {
		if n[r] > 1 {
			order[i] = fmt.Sprintf("%s ×%d", r, n[r])
		}
	}
	return strings.Join(order, "; ")
}
