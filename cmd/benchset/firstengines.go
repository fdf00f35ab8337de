//go:build !js

package main

// The first minute in every engine (this tree): Chromium, Firefox and WebKitGTK driven through
// internal/browser, a new browser (a fresh profile) per engine and run, interleaved round by round. Each opens
// the default share link cold (→ the set on screen, with its phases), presses Explain again, and then opens
// the same link a second time in the same profile. The hook (benchHook) goes in right after the navigation
// returns (WebDriver has no script that runs before the page's own in every engine), which is before the page
// has published anything; when it is not, the set's time is when it was seen (marked polled).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/deltaclue/deltaclue/internal/browser"
)

// engineFirstMinute runs the first minute's cold link in each installed engine, runs times, and prints its
// table to w.
func engineFirstMinute(ctx context.Context, w io.Writer, f firstRun, engines []string, chrome string, runs int) ([]FirstSample, error) {
	var names, avail []string
	for _, e := range engines {
		if err := browser.Installed(e); err != nil {
			logf("engines' first minute: leaving %s out: %v", e, err)
			continue
		}
		avail = append(avail, e)
	}
	if len(avail) == 0 {
		return nil, errors.New("no browser engine is installed")
	}
	var samples []FirstSample
	for r := 1; r <= runs; r++ {
		logf("engines' first minute, round %d of %d", r, runs)
		order := slices.Clone(avail)
		for range r - 1 { // rotate which engine goes first
			order = append(order[1:], order[0])
		}
		for _, e := range order {
			if err := ctx.Err(); err != nil {
				return samples, err
			}
			s := FirstSample{Config: fLink, Engine: e, Run: r}
			name, err := engineFirst(ctx, f, e, chrome, &s)
			if name != "" {
				s.Engine = name
				if !slices.Contains(names, name) {
					names = append(names, name)
				}
			}
			if err != nil {
				s.Error = err.Error()
			}
			samples = append(samples, s)
			logf("  %s", s.line())
		}
	}
	fmt.Fprintf(w, "the first minute in every engine: the default link opened cold (a new browser, fresh profile, per run), 2 workers, %d runs each, interleaved;\n", runs)
	fmt.Fprintf(w, "ms since navigation on the page's clock, median [min–max]; the last column is the last engine over the first\n\n")
	rows := slices.DeleteFunc(firstRows(samples), func(r firstRow) bool { return r.cfg != fLink })
	printTable(w, samples, rows, func(s FirstSample) string { return s.Engine }, names, "last/first")
	fmt.Fprintln(w)
	return samples, nil
}

// engineFirst runs the cold link, again, and the second visit in a new browser of one engine, and returns the
// engine's name and version.
func engineFirst(ctx context.Context, f firstRun, engine, chrome string, s *FirstSample) (string, error) {
	sctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	bin := ""
	if engine == browser.Chromium {
		bin = chrome
	}
	br, err := browser.Start(sctx, engine, browser.Options{Binary: bin, Logf: func(format string, args ...any) {
		if msg := fmt.Sprintf(format, args...); len(msg) < 400 {
			logf("  %s: %s", engine, msg)
		}
	}})
	cancel()
	if err != nil {
		return "", fmt.Errorf("starting %s: %w", engine, err)
	}
	defer br.Close()
	url := f.url(f.linkDefault)
	open := func() (*Visit, error) {
		if err := br.Navigate(ctx, url); err != nil {
			return nil, fmt.Errorf("opening the link: %w", err)
		}
		if err := br.Eval(ctx, benchHook, nil); err != nil {
			return nil, fmt.Errorf("installing the hook: %w", err)
		}
		return engineVisit(ctx, br, -1, f.timeout)
	}
	if s.Cold, err = open(); err != nil {
		return br.Engine(), err
	}
	if _, err := browser.WaitFor(ctx, br, `!document.getElementById("run").disabled`, f.timeout, 5*time.Millisecond); err != nil {
		return br.Engine(), fmt.Errorf("waiting for Explain: %w", err)
	}
	if err := br.Eval(ctx, `(document.getElementById("run").click(), true)`, nil); err != nil {
		return br.Engine(), fmt.Errorf("pressing Explain: %w", err)
	}
	v, err := engineVisit(ctx, br, s.Cold.RunID, f.timeout)
	if err != nil {
		return br.Engine(), fmt.Errorf("clicked again: %w", err)
	}
	s.AgainMs = v.ElapsedMs
	// The second visit, once the service worker is active.
	if err := br.Await(ctx, `navigator.serviceWorker.ready.then(() => new Promise(r => setTimeout(() => r(true), 500)))`, nil); err != nil {
		return br.Engine(), fmt.Errorf("waiting for the service worker: %w", err)
	}
	if err := br.Navigate(ctx, "about:blank"); err != nil {
		return br.Engine(), err
	}
	if s.Second, err = open(); err != nil {
		return br.Engine(), fmt.Errorf("the second visit: %w", err)
	}
	return br.Engine(), nil
}

// engineVisit waits for the search after run `after` to end in an engine and reads it.
func engineVisit(ctx context.Context, br browser.Browser, after float64, timeout time.Duration) (*Visit, error) {
	raw, err := browser.WaitFor(ctx, br, visitDone(after), timeout, 20*time.Millisecond)
	if err != nil {
		return nil, err
	}
	var text string
	if err := json.Unmarshal(raw, &text); err != nil {
		return nil, fmt.Errorf("reading window.deltaclue: %w", err)
	}
	var st visitState
	if err := json.Unmarshal([]byte(text), &st); err != nil {
		return nil, fmt.Errorf("reading window.deltaclue: %w", err)
	}
	return st.visit(2, 0, 0)
}
