//go:build !js

package main

// Our engine in headless Chromium, through the real page, as `make bench-set`'s engine comparison runs it
// (cmd/benchset/engines.go): the site built by cmd/site for the models, served under /repo/; per round a fresh
// page load opens the set's share link with 2 workers (the link's own run: the cold search, its workers just
// started; navigation → workers ready is the start-up), then Explain is pressed again -warm times (the warm
// searches). The page's own clock (window.deltaclue.elapsedMs: the search's start → the finished set) times
// each, and every run's explanations must be the native engine's, bit for bit.

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os/exec"
	"sort"
	"strings"
	"time"

	"github.com/deltaclue/deltaclue/internal/browser"
)

// buildSite builds our site for the models with cmd/site, under /repo/.
func buildSite(ctx context.Context, root, spec, out string) error {
	t := time.Now()
	logf("building the site for %s (go run ./cmd/site)…", spec)
	cmd := exec.CommandContext(ctx, "go", "run", "./cmd/site", "-out", out, "-repo", "repo", "-models", spec)
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building the site: %v\n%s", err, lastLines(string(b), 20))
	}
	logf("built the site in %s", time.Since(t).Round(100*time.Millisecond))
	return nil
}

// pageState is what a run reads from window.deltaclue.
type pageState struct {
	State     string  `json:"state"`
	RunID     float64 `json:"runID"`
	Results   int     `json:"results"`
	Total     int     `json:"total"`
	Workers   int     `json:"workers"`
	ElapsedMs float64 `json:"elapsedMs"`
	Ready     float64 `json:"ready"`
	Explained string  `json:"explained"` // the report's explanations, as JSON
	Errors    string  `json:"errors"`
}

// pageFinished is the page's state once the run with an ID other than the given one has ended (any ID when it
// is -1), as JSON; false before. (cmd/benchset/engines.go's engineFinished.) When the page asks first (a search
// it estimates to take more than 10 s on this device, or a costly link: app/costly.go), it answers Run it: the
// search is the one asked for, and the page's clock starts when the search does.
func pageFinished(after float64) string {
	return fmt.Sprintf(`(() => {
		const run = document.getElementById("costly-run");
		if (run) { run.click(); return false; }
		const d = window.deltaclue;
		if (!d || d.preview || d.runID == %v || !(d.state == "done" || d.state == "failed" || d.state == "cancelled" || d.linkError || d.poolError)) return false;
		let explained = "";
		try { explained = JSON.stringify(JSON.parse(d.report).explanations); } catch (e) {}
		return {state: d.state, runID: d.runID, results: d.results, total: d.total, workers: d.workers, elapsedMs: d.elapsedMs,
			ready: d.timing && d.timing.ready, explained, errors: [d.linkError, d.poolError, d.runError].filter(Boolean).join("; ")};
	})()`, after)
}

// pageWarmup is a first, untimed visit: the site in the browser's cache and its service worker installed, so
// that every timed run is a returning visitor's page load (its workers still start cold).
func pageWarmup(ctx context.Context, br browser.Browser, origin string, workers int, timeout time.Duration) error {
	if err := br.Navigate(ctx, fmt.Sprintf("%s/repo/?workers=%d&warmup=1", origin, workers)); err != nil {
		return fmt.Errorf("opening the page: %w", err)
	}
	if _, err := browser.WaitFor(ctx, br, fmt.Sprintf(`window.deltaclue && window.deltaclue.ready == %d && navigator.serviceWorker.controller`, workers), timeout, 100*time.Millisecond); err != nil {
		return fmt.Errorf("the page's workers did not get ready (or no service worker took the page): %w", err)
	}
	return nil
}

// pageRead waits for the run after runID `after` to end, checks it against the engine's results, and returns
// its state and timed run.
func pageRead(ctx context.Context, br browser.Browser, after float64, workers int, ref *Outcome, timeout time.Duration) (pageState, TimedRun, error) {
	var st pageState
	raw, err := browser.WaitFor(ctx, br, pageFinished(after), timeout, 50*time.Millisecond)
	if err == nil {
		err = json.Unmarshal(raw, &st)
	}
	if err != nil {
		return st, TimedRun{}, err
	}
	var problems []string
	if st.State != "done" {
		problems = append(problems, fmt.Sprintf("the page ended in state %q (%s)", st.State, st.Errors))
	}
	if st.Workers != workers {
		problems = append(problems, fmt.Sprintf("the page ran %d workers, not %d", st.Workers, workers))
	}
	costs, err := sameAsEngine(st.Explained, ref)
	if err != nil {
		problems = append(problems, err.Error())
	}
	if len(problems) > 0 {
		return st, TimedRun{}, fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	return st, TimedRun{Ms: st.ElapsedMs, MeanCost: mean(costs)}, nil
}

// sameAsEngine checks the page's explanations against the engine's native search, bit for bit (each restart's
// point and cost), and returns their costs by restart.
func sameAsEngine(explained string, ref *Outcome) ([]float64, error) {
	var exps []struct {
		Restart int       `json:"restart"`
		Z       []float32 `json:"z"`
		Cost    float32   `json:"cost"`
		Steps   int       `json:"steps"`
	}
	if err := json.Unmarshal([]byte(explained), &exps); err != nil {
		return nil, fmt.Errorf("reading the page's explanations: %v", err)
	}
	if len(exps) != len(ref.FinalCost) {
		return nil, fmt.Errorf("the page gave %d explanations for %d restarts", len(exps), len(ref.FinalCost))
	}
	sort.Slice(exps, func(a, b int) bool { return exps[a].Restart < exps[b].Restart })
	costs := make([]float64, len(exps))
	for r, e := range exps {
		same := e.Restart == r && float64(e.Cost) == ref.FinalCost[r] && len(e.Z) == len(ref.FinalZ[r])
		for k := 0; same && k < len(e.Z); k++ {
			same = float64(e.Z[k]) == ref.FinalZ[r][k]
		}
		if !same {
			return nil, fmt.Errorf("the page's restart %d (cost %v after %d steps) is not the native engine's (cost %v)", e.Restart, e.Cost, e.Steps, ref.FinalCost[r])
		}
		costs[r] = float64(e.Cost)
	}
	return costs, nil
}

// pageTime times a fresh page load: the link's own run (cold) and -warm reruns.
func pageTime(ctx context.Context, br browser.Browser, origin, link string, workers, run, warm int, ref *Outcome, timeout time.Duration) (*TimeResult, error) {
	if err := br.Navigate(ctx, fmt.Sprintf("%s/repo/?workers=%d&run=%d#%s", origin, workers, run, link)); err != nil {
		return nil, fmt.Errorf("opening the link: %w", err)
	}
	st, cold, err := pageRead(ctx, br, -1, workers, ref, timeout)
	if err != nil {
		return nil, fmt.Errorf("the link's own run: %w", err)
	}
	r := &TimeResult{ReadyMs: st.Ready, Cold: cold, Threads: workers}
	if math.IsNaN(st.Ready) || st.Ready == 0 {
		return nil, fmt.Errorf("the page did not say when its workers were ready")
	}
	for i := range warm {
		if err := br.Eval(ctx, `(document.getElementById("run").click(), true)`, nil); err != nil {
			return nil, fmt.Errorf("pressing Explain: %w", err)
		}
		next, w, err := pageRead(ctx, br, st.RunID, workers, ref, timeout)
		if err != nil {
			return nil, fmt.Errorf("warm run %d: %w", i+1, err)
		}
		st = next
		r.Warm = append(r.Warm, w)
	}
	return r, nil
}
