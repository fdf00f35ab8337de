//go:build !js

package main

// The gallery: the default search over the 24 gallery digits, picked one after another in one page per build
// and round, as a visitor would.

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/internal/gallery"
	"github.com/deltaclue/deltaclue/mnist"
)

// galleryDigit is an entry of the digits' site's gallery (web/gallery.json, gallery.Make): the page shows
// its image under the alt text "test digit N".
type galleryDigit struct {
	Index int `json:"index"`
}

// digitsGallery is the gallery the digits' site serves: the shipped models' 24 least sure test digits.
func digitsGallery() ([]galleryDigit, error) {
	m, err := clue.ShippedModels()
	if err != nil {
		return nil, err
	}
	set, err := mnist.HeldOut()
	if err != nil {
		return nil, err
	}
	js, err := gallery.Make(m, set, gallery.Size)
	if err != nil {
		return nil, err
	}
	var g []galleryDigit
	return g, json.Unmarshal(js, &g)
}

// galleryRound explains every gallery digit once per build, interleaved, each build in its own tab opened
// (without a link) for the round: as a visitor picks one digit after another from the gallery, so that only
// the first search of a round meets cold workers.
func galleryRound(ctx, bctx context.Context, rep *Report, order []*build, gallery []galleryDigit, round int, nav *int, timeout time.Duration) error {
	tabs := map[*build]context.Context{}
	for _, b := range order {
		if b.url == "" {
			continue
		}
		tctx, cancel := chromedp.NewContext(bctx)
		defer cancel()
		*nav++
		url := fmt.Sprintf("%s/repo/?workers=2&run=%d", b.url, *nav)
		if _, err := chromedp.Run(tctx, chromedp.Navigate(url)); err != nil {
			return fmt.Errorf("%s: opening the page for the gallery: %w", b.Name, err)
		}
		if _, err := chromedp.Run(tctx, chromedp.Poll[bool](`!!(window.deltaclue && window.deltaclue.ready == 2 && document.getElementById("tab-gallery"))`,
			chromedp.WithPollingTimeout(timeout), chromedp.WithPollingInterval(100*time.Millisecond))); err != nil {
			return fmt.Errorf("%s: the page's workers did not get ready: %w (page state %s)", b.Name, err, pageDump(tctx))
		}
		if _, err := chromedp.Run(tctx, chromedp.Evaluate[bool](`(document.getElementById("tab-gallery").click(), true)`)); err != nil {
			return fmt.Errorf("%s: opening the gallery tab: %w", b.Name, err)
		}
		// The gallery draws its thumbnails after the tab opens: wait for them (with one build there is no other
		// tab's opening to give it the time, and every pick found no digit).
		if _, err := chromedp.Run(tctx, chromedp.Poll[bool](`!!document.querySelector('button img[alt^="test "]')`,
			chromedp.WithPollingTimeout(timeout), chromedp.WithPollingInterval(20*time.Millisecond))); err != nil {
			return fmt.Errorf("%s: the gallery's digits did not appear: %w (page state %s)", b.Name, err, pageDump(tctx))
		}
		tabs[b] = tctx
	}
	for _, g := range gallery {
		for _, b := range order {
			tctx := tabs[b]
			if tctx == nil {
				continue
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			s := Sample{Config: cGallery, Build: b.Name, Run: round, Digit: g.Index}
			galleryRun(tctx, &s, b, g.Index, timeout)
			rep.Samples = append(rep.Samples, s)
			if s.Error != "" {
				logf("  %s", s.line())
			}
		}
	}
	return nil
}

// galleryRun picks a gallery digit, waits for the page to take it as its input, presses Explain, and reads the
// page's clock once the set is done.
func galleryRun(ctx context.Context, s *Sample, b *build, digit int, timeout time.Duration) {
	if _, err := chromedp.Call(ctx, page.BringToFront, cdp.Empty{}); err != nil {
		s.Error = err.Error()
		return
	}
	found, err := chromedp.Run(ctx, chromedp.Evaluate[string](pickDigit(digit)))
	switch {
	case err != nil:
		s.Error = "picking the test digit: " + err.Error()
		return
	case found == "":
		s.Error = fmt.Sprintf("digit %d is not in this build's gallery", digit)
		return
	}
	// The input is taken once the link changes, and Explain is enabled once the page has rendered.
	ready := fmt.Sprintf(`(() => { const r = document.getElementById("run"); return !!r && !r.disabled && location.hash.length > 4 && location.hash != %q; })()`, found)
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](ready, chromedp.WithPollingTimeout(30*time.Second), chromedp.WithPollingInterval(20*time.Millisecond))); err != nil {
		s.Error = "the page did not take the test digit: " + err.Error()
		return
	}
	// The mark goes with the current window.deltaclue: every later publication replaces the object, so a set
	// marked done without it is this one.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(window.deltaclue.benchsetMark = true, document.getElementById("run").click(), true)`)); err != nil {
		s.Error = "pressing Explain: " + err.Error()
		return
	}
	readFinished(ctx, s, b, 2, timeout)
}

func gallerySummary(samples []Sample, build string, run int) string {
	var first, full []float64
	for _, s := range samples {
		if s.Config == cGallery && s.Build == build && s.Run == run && s.Error == "" {
			first, full = append(first, s.FirstResultMs), append(full, s.ElapsedMs)
		}
	}
	return fmt.Sprintf("%-26s %-16s %d digits: first result p50 %.0f p90 %.0f ms, full set p50 %.0f p90 %.0f ms",
		cGallery, build, len(full), quantile(first, 0.5), quantile(first, 0.9), quantile(full, 0.5), quantile(full, 0.9))
}

func countDigits(samples []Sample) int {
	seen := map[int]bool{}
	for _, s := range samples {
		if s.Config == cGallery {
			seen[s.Digit] = true
		}
	}
	return len(seen)
}

// pickDigit is a script that clicks the gallery's button of a test digit and returns the address's fragment
// before the click ("#" if none); the gallery's first item when it has no such digit, "" when it is empty.
func pickDigit(digit int) string {
	return fmt.Sprintf(`(() => {
		// The digit, or the gallery's first item when the gallery (the test items the model is least sure of)
		// no longer holds it.
		const img = document.querySelector('img[alt="test digit %d"]') || document.querySelector('button img[alt^="test "]');
		if (!img || !img.closest("button")) return "";
		const before = location.hash;
		img.closest("button").click();
		return before || "#";
	})()`, digit)
}
