//go:build !js

package app

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/profiler"
	"github.com/chromedp/chromedp"

	"github.com/deltaclue/deltaclue/engine/clue"
)

// TestBrowserProfileSearch is a measuring tool, not a check: with LONGTASK_PROFILE=1 (or =file.cpuprofile, to
// keep the profile for DevTools or a script) it runs the main-thread
// test's 1000-restart search (LONGTASK_N) under Chromium's sampling profiler and logs, for every stretch of the
// main thread's work longer than 50 ms, the functions it spent its time in (inclusive, Go's names where the
// binary keeps them: build app.wasm without -s -w for those). LONGTASK_PHONE=1 throttles the CPU 4× at 390×844.
func TestBrowserProfileSearch(t *testing.T) {
	profile, traceTo := os.Getenv("LONGTASK_PROFILE") != "", os.Getenv("LONGTASK_TRACE")
	if !profile && traceTo == "" {
		t.Skip("a measuring tool: LONGTASK_PROFILE=1 or LONGTASK_TRACE=file runs it")
	}
	chrome := findChrome(t)
	srv := serve(buildSite(t))
	defer srv.Close()
	n := 1000
	if v, err := strconv.Atoi(os.Getenv("LONGTASK_N")); err == nil && v > 0 {
		n = v
	}
	p := clue.Defaults()
	p.N, p.MaxSteps = n, 20
	if os.Getenv("LONGTASK_DEFAULT") != "" {
		p = clue.Defaults()
		n = p.N
	}
	link := linkFor(t, 1735, p)
	ctx := browser(t, chrome)
	if os.Getenv("LONGTASK_PHONE") != "" {
		setPhone(t, ctx)
	}
	do(t, ctx, chromedp.Navigate(srv.URL+"/repo/?workers=2"))
	waitFor(t, ctx, "the workers", `window.deltaclue && window.deltaclue.ready == 2`, 2*time.Minute)
	// LONGTASK_TRACE=file also records Chromium's timeline (tasks, layout, parsing, paint) into file.
	var stopTrace func() []jsonv2.Value
	if traceTo != "" {
		stopTrace = startTrace(t, ctx, "devtools.timeline", "disabled-by-default-devtools.timeline", "v8.execute", "blink.user_timing", "toplevel")
	}
	if profile {
		for _, err := range []error{
			call(ctx, profiler.Enable, cdp.Empty{}),
			call(ctx, profiler.SetSamplingInterval, profiler.SetSamplingIntervalParams{Interval: 200}),
			call(ctx, profiler.Start, cdp.Empty{}),
		} {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	eval[bool](t, ctx, `(location.hash = `+strconv.Quote(link)+`, true)`)
	waitFor(t, ctx, "the set", `window.deltaclue.state == "done" && window.deltaclue.results == `+strconv.Itoa(n), 3*time.Minute)
	time.Sleep(time.Second)
	if traceTo != "" {
		b, _ := json.Marshal(stopTrace())
		if err := os.WriteFile(traceTo, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if !profile {
		return
	}
	res, err := chromedp.Call(ctx, profiler.Stop, cdp.Empty{})
	if err != nil {
		t.Fatal(err)
	}
	prof := res.Profile
	if to := os.Getenv("LONGTASK_PROFILE"); strings.HasSuffix(to, ".cpuprofile") { // for DevTools, or a script
		b, _ := json.Marshal(prof)
		if err := os.WriteFile(to, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	parent := map[int64]int64{}
	byID := map[int64]*profiler.ProfileNode{}
	for _, nd := range prof.Nodes {
		byID[nd.ID] = nd
		for _, c := range nd.Children {
			parent[c] = nd.ID
		}
	}
	name := func(id int64) string {
		f := byID[id].CallFrame
		s := f.FunctionName
		if s == "" {
			s = "(anonymous " + f.URL[strings.LastIndex(f.URL, "/")+1:] + ")"
		}
		return s
	}
	idle := func(id int64) bool {
		s := name(id)
		return s == "(idle)" || s == "(program)" || s == "(root)"
	}
	// Stretches of work: consecutive non-idle samples.
	type stretch struct {
		from, to int // sample indexes
		start    int64
		dur      int64
	}
	var stretches []stretch
	at := int64(0)
	cur := -1
	for i, s := range prof.Samples {
		at += prof.TimeDeltas[i]
		if idle(s) {
			if cur >= 0 {
				st := &stretches[cur]
				st.to, st.dur = i, at-st.start
				cur = -1
			}
			continue
		}
		if cur < 0 {
			stretches = append(stretches, stretch{from: i, start: at})
			cur = len(stretches) - 1
		}
	}
	total := map[string]int64{}
	for _, st := range stretches {
		if st.dur < 50_000 {
			continue
		}
		incl := map[string]int64{}
		self := map[string]int64{}
		for i := st.from; i < st.to; i++ {
			d := prof.TimeDeltas[min(i+1, len(prof.TimeDeltas)-1)]
			seen := map[string]bool{}
			self[name(prof.Samples[i])] += d
			for id := prof.Samples[i]; id != 0; id = parent[id] {
				if nm := name(id); !seen[nm] {
					seen[nm] = true
					incl[nm] += d
				}
			}
		}
		for k, v := range incl {
			total[k] += v
		}
		t.Logf("stretch of %.0f ms at %.0f ms:\n  inclusive: %s\n  self: %s", float64(st.dur)/1000, float64(st.start)/1000, top(incl, 40), top(self, 15))
	}
	t.Logf("over every stretch above 50 ms, inclusive: %s", top(total, 60))
}

// call sends one CDP command whose result is not needed.
func call[P, R any](ctx context.Context, cmd cdp.Command[P, R], params P) error {
	_, err := chromedp.Call(ctx, cmd, params)
	return err
}

// top lists the heaviest entries of a map of µs, as "name ms".
func top(m map[string]int64, k int) string {
	type kv struct {
		k string
		v int64
	}
	var l []kv
	for a, b := range m {
		l = append(l, kv{a, b})
	}
	sort.Slice(l, func(i, j int) bool { return l[i].v > l[j].v })
	var b strings.Builder
	for i, e := range l {
		if i >= k {
			break
		}
		fmt.Fprintf(&b, "\n    %7.1f %s", float64(e.v)/1000, e.k)
	}
	return b.String()
}
