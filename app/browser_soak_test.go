//go:build !js

package app

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/heapprofiler"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/deltaclue/deltaclue/engine/clue"
)

type memory struct {
	JSHeap, WorkerHeap, WorkerSys float64
	Funcs                         int
}

func measure(t *testing.T, ctx context.Context) memory {
	t.Helper()
	// The page holds Go's collections during a search and makes one once it is quiet (collector.go): the
	// JavaScript objects its Go values hold are released then, so the heap is read after it.
	waitFor(t, ctx, "the page's collection after the search", `window.deltaclue.collectionsHeld === false`, 30*time.Second)
	if _, err := chromedp.Call(ctx, heapprofiler.CollectGarbage, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	h, err := chromedp.Call(ctx, runtime.GetHeapUsage, cdp.Empty{})
	if err != nil {
		t.Fatal(err)
	}
	return memory{JSHeap: h.UsedSize, WorkerHeap: eval[float64](t, ctx, `window.deltaclue.workerHeap`),
		WorkerSys: eval[float64](t, ctx, `window.deltaclue.workerSys`), Funcs: eval[int](t, ctx, `window.deltaclue.funcs`)}
}

// TestBrowserSoak: searches in a row in one page (SOAK of them, 10 by default; the run is SOAK=50), with
// varied digits and parameters, every fifth cancelled and a link opened now and then: every finished set equals
// the native engine's, and after the last the page's JS heap, the workers' memory and the page's live callbacks
// are within 10 % of what they were after the fifth.
func TestBrowserSoak(t *testing.T) {
	chrome := findChrome(t)
	srv := serve(buildSite(t))
	defer srv.Close()
	runs := 10
	if v, err := strconv.Atoi(os.Getenv("SOAK")); err == nil && v >= 6 {
		runs = v
	}
	ctx := browser(t, chrome)
	do(t, ctx, chromedp.Navigate(srv.URL+"/repo/?workers=2"))
	waitFor(t, ctx, "the workers", `window.deltaclue && window.deltaclue.ready == 2`, time.Minute)
	do(t, ctx, chromedp.Click(chromedp.ID("tab-gallery")))
	var fifth memory
	finished, cancelled, links := 0, 0, 0
	start := time.Now()
	for i := 0; i < runs; i++ {
		n := []string{"10", "16", "20"}[i%3]
		setField(t, ctx, "n", n)
		setField(t, ctx, "delta", []string{"1", "2", "3", "1.5"}[i%4])
		setField(t, ctx, "scheme", []string{"S1", "S3", "S4"}[i%3])
		switch {
		case i%5 == 4: // a long search, cancelled
			setField(t, ctx, "max_steps", "5000")
			setField(t, ctx, "rel_tol", "0")
			setField(t, ctx, "abs_tol", "0")
			explainLong(t, ctx, "the search")
			// The page publishes its state before it renders it: a click on Cancel before the render finds the
			// button still disabled and does nothing, as it would for a person, who clicks what is enabled.
			waitFor(t, ctx, "Cancel enabled", `!document.getElementById("cancel").disabled`, 10*time.Second)
			do(t, ctx, chromedp.Click(chromedp.ID("cancel")))
			waitFor(t, ctx, "the cancel", `window.deltaclue.state == "cancelled"`, 5*time.Second)
			setField(t, ctx, "rel_tol", "0.01")
			setField(t, ctx, "abs_tol", "0.001")
			cancelled++
		case i%7 == 3: // a link pasted into the open page
			p := clue.Defaults()
			p.N, p.MaxSteps, p.Delta = 12, 30, 2.5
			eval[bool](t, ctx, fmt.Sprintf(`(location.hash = %q, true)`, linkFor(t, 100+i, p)))
			waitFor(t, ctx, "the pasted link's set", `window.deltaclue.state == "done" && window.deltaclue.results == 12`, time.Minute)
			links++
		default:
			setField(t, ctx, "max_steps", "30")
			// An opened link shows its digit on the pad, so the gallery is chosen again before each pick.
			do(t, ctx, chromedp.Click(chromedp.ID("tab-gallery")))
			do(t, ctx, chromedp.Click(chromedp.CSS(fmt.Sprintf(".thumb:nth-child(%d)", 1+i%24))))
			waitFor(t, ctx, "the digit read", `document.getElementById("pred-label")`, 30*time.Second)
			do(t, ctx, chromedp.Click(chromedp.ID("run")))
			waitFor(t, ctx, "the set", `window.deltaclue.state == "done" && window.deltaclue.results == `+n, time.Minute)
		}
		if st := eval[string](t, ctx, `window.deltaclue.state`); st == "done" {
			exps, _ := nativeReport(t, eval[string](t, ctx, `location.href`))
			sameJSON(t, fmt.Sprintf("search %d's explanations", i+1), pageReport(t, ctx).Explanations, exps)
			finished++
		}
		if i == 4 {
			fifth = measure(t, ctx)
		}
	}
	last := measure(t, ctx)
	t.Logf("%d searches in %s (%d finished and equal to the native engine's, %d cancelled, %d links pasted)", runs,
		time.Since(start).Round(time.Second), finished, cancelled, links)
	t.Logf("after the 5th:  JS heap %.2f MB, workers' Go heap %.2f MB, workers' Go memory %.1f MB, live callbacks %d",
		fifth.JSHeap/1e6, fifth.WorkerHeap/1e6, fifth.WorkerSys/1e6, fifth.Funcs)
	t.Logf("after the last: JS heap %.2f MB, workers' Go heap %.2f MB, workers' Go memory %.1f MB, live callbacks %d",
		last.JSHeap/1e6, last.WorkerHeap/1e6, last.WorkerSys/1e6, last.Funcs)
	for _, c := range []struct {
		what        string
		after, then float64
	}{{"the page's JS heap", last.JSHeap, fifth.JSHeap}, {"the workers' Go heap", last.WorkerHeap, fifth.WorkerHeap},
		{"the workers' Go memory", last.WorkerSys, fifth.WorkerSys}} {
		if c.after > 1.1*c.then {
			t.Errorf("%s grew from %.2f MB after the 5th search to %.2f MB after the %dth", c.what, c.then/1e6, c.after/1e6, runs)
		}
	}
	if last.Funcs > fifth.Funcs {
		t.Errorf("live callbacks grew from %d to %d", fifth.Funcs, last.Funcs)
	}
}
