//go:build !js

package main

// Chromium through chromedp: finding and starting it, and the set's page runs (a link opened with 1 or 2
// workers, the page's clock read from window.deltaclue once the set is done).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

func findChrome(flagPath string) (string, error) {
	for _, p := range []string{flagPath, os.Getenv("CHROME_PATH"), "/usr/bin/chromium"} {
		if p == "" {
			continue
		}
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
		if p == flagPath {
			return "", fmt.Errorf("no Chromium at -chrome %s (Debian: apt-get install chromium)", p)
		}
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("Chromium not found at /usr/bin/chromium nor on $PATH: install it (Debian: apt-get install chromium) or pass -chrome / set CHROME_PATH")
}

func chromeVersion(chrome string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	b, err := exec.CommandContext(ctx, chrome, "--version").Output()
	if err != nil {
		return chrome + " (version unknown)"
	}
	return strings.TrimSpace(string(b))
}

// startBrowser starts headless Chromium with a fresh profile, and returns its context and the function that
// closes it (safe to call more than once).
func startBrowser(chrome, tmp string) (context.Context, func(), error) {
	profile := filepath.Join(tmp, "chromium-profile")
	var out bytes.Buffer
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chrome),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1280, 1800),
		chromedp.CombinedOutput(&out),
	)
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	chromedp.Listen(ctx, func(ev any) {
		switch e := ev.(type) {
		case *cdpruntime.EventExceptionThrown:
			logf("page exception: %s %s", e.ExceptionDetails.Text, e.ExceptionDetails.Exception.Description)
		case *cdpruntime.EventConsoleAPICalled:
			if e.Type == "error" {
				for _, a := range e.Args {
					logf("console error: %s %s", a.Value, a.Description)
				}
			}
		}
	})
	closed := false
	closeAll := func() {
		if !closed {
			closed = true
			cancelC()
			cancelA()
		}
	}
	if _, err := chromedp.Run(ctx, chromedp.Navigate("about:blank")); err != nil {
		closeAll()
		return nil, nil, fmt.Errorf("starting Chromium: %w\n%s", err, tail(out.String()))
	}
	return ctx, closeAll, nil
}

// pageDump is window.deltaclue without its bulky fields, for error messages.
func pageDump(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[string](`JSON.stringify(Object.assign({}, window.deltaclue || {}, {report: undefined, cards: undefined, trajectory: undefined, link: undefined}))`))
	if err != nil {
		return "unknown: " + err.Error()
	}
	return v
}

// pageState is what a run reads from window.deltaclue.
type pageState struct {
	State         string             `json:"state"`
	Results       int                `json:"results"`
	Total         int                `json:"total"`
	ElapsedMs     float64            `json:"elapsedMs"`
	LastResultMs  float64            `json:"lastResultMs"`
	FirstResultMs float64            `json:"firstResultMs"`
	WorkerSeconds string             `json:"workerSeconds"`
	Workers       int                `json:"workers"`
	LinkError     string             `json:"linkError"`
	PoolError     string             `json:"poolError"`
	RunError      string             `json:"runError"`
	Timing        map[string]float64 `json:"timing"`
	Evaluations   int                `json:"evaluations"`
}

// finished is true (as the page's state, in JSON) once the run is over, whichever way it ended.
const finished = `(() => {
	const d = window.deltaclue;
	if (!d || d.benchsetMark || !(d.state == "done" || d.state == "failed" || d.state == "cancelled" || d.linkError || d.poolError)) return false;
	let evaluations = -1;
	try { evaluations = JSON.parse(d.report).explanations.reduce((a, e) => a + e.steps + 1, 0); } catch (e) {}
	return JSON.stringify({state: d.state, results: d.results, total: d.total, elapsedMs: d.elapsedMs,
		lastResultMs: d.lastResultMs, firstResultMs: d.firstResultMs, workerSeconds: d.workerSeconds, workers: d.workers,
		linkError: d.linkError, poolError: d.poolError, runError: d.runError, timing: d.timing, evaluations});
})()`

// pageRun opens a link in a fresh page load with the given number of workers and reads the page's clock once
// the set is done. nav makes every URL new, so that each run is a real page load.
func pageRun(ctx context.Context, s *Sample, b *build, workers, nav int, link string, timeout time.Duration) {
	url := fmt.Sprintf("%s/repo/?workers=%d&run=%d#%s", b.url, workers, nav, link)
	t := time.Now()
	if _, err := chromedp.Run(ctx, chromedp.Navigate(url)); err != nil {
		s.Error = "opening the page: " + err.Error()
		return
	}
	readFinished(ctx, s, b, workers, timeout)
	s.NavigateToDone = float64(time.Since(t).Milliseconds())
}

// readFinished waits for the page's run to end and reads its clock into s.
func readFinished(ctx context.Context, s *Sample, b *build, workers int, timeout time.Duration) {
	text, err := chromedp.Run(ctx, chromedp.Poll[string](finished,
		chromedp.WithPollingTimeout(timeout), chromedp.WithPollingInterval(50*time.Millisecond)))
	if err != nil {
		if errors.Is(err, chromedp.ErrPollingTimeout) {
			err = fmt.Errorf("the set was not done after %v (page state %s)", timeout, pageDump(ctx))
		}
		s.Error = err.Error()
		return
	}
	var st pageState
	if err := json.Unmarshal([]byte(text), &st); err != nil {
		s.Error = "reading window.deltaclue: " + err.Error()
		return
	}
	if st.State != "done" {
		s.Error = fmt.Sprintf("the page ended in state %q (%s)", st.State, strings.Join(nonEmpty(st.LinkError, st.PoolError, st.RunError), "; "))
		return
	}
	s.ElapsedMs, s.LastResultMs, s.FirstResultMs = st.ElapsedMs, st.LastResultMs, st.FirstResultMs
	s.ReadyMs = st.Timing["ready"]
	s.WorkerSeconds, err = parseSeconds(st.WorkerSeconds)
	var problems []string
	if err != nil {
		problems = append(problems, err.Error())
	}
	if len(s.WorkerSeconds) != workers {
		problems = append(problems, fmt.Sprintf("%d worker times for %d workers (%q)", len(s.WorkerSeconds), workers, st.WorkerSeconds))
	}
	if st.Workers != 0 && st.Workers != workers {
		problems = append(problems, fmt.Sprintf("the page ran %d workers, not %d", st.Workers, workers))
	}
	if st.Results != st.Total {
		problems = append(problems, fmt.Sprintf("%d results of %d", st.Results, st.Total))
	}
	s.PageEvaluations = max(st.Evaluations, 0)
	if s.Config != cGallery && b.Evaluations > 0 && st.Evaluations > 0 && st.Evaluations != b.Evaluations {
		problems = append(problems, fmt.Sprintf("the page's set made %d objective evaluations, the native one %d", st.Evaluations, b.Evaluations))
	}
	if len(problems) > 0 {
		s.Error = strings.Join(problems, "; ")
	}
}

func nonEmpty(xs ...string) []string {
	var out []string
	for _, x := range xs {
		if x != "" {
			out = append(out, x)
		}
	}
	return out
}

// parseSeconds reads Go's fmt.Sprint of a []float64, e.g. "[0.84 0.86]".
func parseSeconds(s string) ([]float64, error) {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "[") || !strings.HasSuffix(t, "]") {
		return nil, fmt.Errorf("workerSeconds %q is not a Go-formatted list", s)
	}
	var out []float64
	for _, f := range strings.Fields(t[1 : len(t)-1]) {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return nil, fmt.Errorf("workerSeconds %q: %v", s, err)
		}
		out = append(out, v)
	}
	return out, nil
}
