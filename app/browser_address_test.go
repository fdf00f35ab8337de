//go:build !js

package app

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/deltaclue/deltaclue/engine/clue"
)

// TestBrowserBadAddress: no address kills the page. Invalid percent-escapes, a 2 MB fragment and control
// characters, at load and through a later change of the fragment, at the root and under /repo/: the Go program
// keeps running (its workers come up, a search runs), the page says what was wrong in one sentence, and a later
// valid link still opens.
func TestBrowserBadAddress(t *testing.T) {
	chrome := findChrome(t)
	for _, prefix := range []string{"", "/repo"} {
		t.Run("at "+prefix+"/", func(t *testing.T) {
			var site string
			if prefix == "" {
				site = buildSiteFor(t, "")
			} else {
				site = buildSite(t)
			}
			srv := serveAt(site, prefix)
			defer srv.Close()
			ctx := browser(t, chrome)
			page := srv.URL + prefix + "/"
			cases := []struct{ tail, want string }{
				{"#%zz", `invalid percent-escape ("%zz" at character 1 of the link)`},
				{"#v1.%4", `invalid percent-escape ("%4" at character 4 of the link)`},
				{"#%E0%A4%A", `invalid percent-escape ("%A" at character 7 of the link)`},
				{"#" + strings.Repeat("A", 2_000_000), "it is 2000000 characters long"},
				{"#v2.AB\x01\x7f", "not URL-safe base64"}, // the browser escapes control characters: the link decodes to them
				{"#%01%zz", `invalid percent-escape ("%zz"`},
			}
			if prefix != "" { // under a sub-path, the escapes and the 2 MB fragment (each load costs seconds)
				cases = []struct{ tail, want string }{cases[0], cases[2], cases[3]}
			}
			for i, c := range cases {
				do(t, ctx, chromedp.Navigate(fmt.Sprintf("%s?workers=1&case=%d%s", page, i, c.tail)))
				msg := waitText(t, ctx, "link-error", 30*time.Second)
				if !strings.Contains(msg, c.want) || !strings.HasSuffix(msg, ".") || strings.Count(msg, ". ") > 0 || msg[0] != 'T' {
					t.Errorf("%.20q: the page says %s, want one sentence with %q", c.tail, msg, c.want)
				}
				waitFor(t, ctx, "the Go program running its workers", `window.deltaclue.ready == 1`, time.Minute)
				if i == 0 && prefix == "" {
					screenshots(t, ctx, "deltaclue-bad-address")
				}
				if href := eval[string](t, ctx, `location.href`); len(href) > 200 || strings.Contains(href, "%zz") {
					t.Errorf("%.20q: the address is still %.80q", c.tail, href)
				}
			}
			// ?workers=%zz is reported like ?workers=abc.
			do(t, ctx, chromedp.Navigate(page+"?workers=%zz"))
			note := waitText(t, ctx, "workers-note", 30*time.Second)
			if !strings.Contains(note, `"%zz" workers`) {
				t.Errorf("?workers=%%zz: %s", note)
			}

			// A working page: a search, then a bad fragment typed into the address bar.
			p := clue.Defaults()
			p.N, p.MaxSteps = 10, 30
			link := linkFor(t, 1735, p)
			do(t, ctx, chromedp.Navigate(page+"?workers=1#"+link))
			waitFor(t, ctx, "the link's set", `window.deltaclue && window.deltaclue.state == "done" && window.deltaclue.results == 10`, time.Minute)
			runID := eval[int](t, ctx, `window.deltaclue.runID`)
			for _, bad := range []struct{ hash, want string }{{"%zz", `("%zz" at character 1 of the link)`},
				{"v2.%E0%A4%A", `("%A" at character 10 of the link)`}, {"x%", `("%" at character 2 of the link)`}} {
				eval[bool](t, ctx, fmt.Sprintf(`(location.hash = %q, true)`, bad.hash))
				waitFor(t, ctx, "the sentence "+bad.want, fmt.Sprintf(`document.getElementById("link-error") && document.getElementById("link-error").textContent.includes(%q)`, bad.want), 10*time.Second)
				// The page kept its state, and its own link is back in the address.
				st := eval[map[string]any](t, ctx, `({state: window.deltaclue.state, results: window.deltaclue.results, runID: window.deltaclue.runID, hash: location.hash})`)
				if st["state"] != "done" || st["results"] != float64(10) || int(st["runID"].(float64)) != runID || st["hash"] != "#"+link {
					t.Errorf("location.hash = %q: the page is now %.200v", bad.hash, st)
				}
			}
			// The Go program still answers: Explain runs again, and a later valid link opens.
			do(t, ctx, chromedp.Click(chromedp.ID("run")))
			waitFor(t, ctx, "Explain after the bad fragments", fmt.Sprintf(`window.deltaclue.runID > %d && window.deltaclue.state == "done" && window.deltaclue.results == 10`, runID), time.Minute)
			p.N = 12
			other := linkFor(t, 1735, p)
			eval[bool](t, ctx, fmt.Sprintf(`(location.hash = %q, true)`, other))
			waitFor(t, ctx, "the later valid link", `window.deltaclue.state == "done" && window.deltaclue.results == 12 && !window.deltaclue.linkError`, time.Minute)
		})
	}
}

// waitText waits for the element with the given id and returns its text.
func waitText(t *testing.T, ctx context.Context, id string, timeout time.Duration) string {
	t.Helper()
	var s string
	js := fmt.Sprintf(`document.getElementById(%q) && document.getElementById(%q).textContent`, id, id)
	if err := json.Unmarshal([]byte(waitFor(t, ctx, "#"+id, js, timeout)), &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// waitStill waits until the element with the given id has kept its place on the page for 10 animation frames in
// a row (at most 10 s), so that a click aimed at it lands on it.
func waitStill(t *testing.T, ctx context.Context, id string) {
	t.Helper()
	js := fmt.Sprintf(`new Promise((resolve) => {
		let last = "", same = 0;
		const start = performance.now();
		const look = () => {
			const el = document.getElementById(%q);
			const r = el ? JSON.stringify(el.getBoundingClientRect()) + window.scrollY : "";
			same = r && r == last ? same + 1 : 0;
			last = r;
			if (same >= 10 || performance.now() - start > 10000) resolve(same >= 10);
			else requestAnimationFrame(look);
		};
		requestAnimationFrame(look);
	})`, id)
	still, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js, chromedp.EvalAwaitPromise))
	if err != nil || !still {
		t.Fatalf("#%s kept moving for 10 s (%v)", id, err)
	}
}

// screenshots saves the top of the page at 1280 and 390 px as <name>-<width>.png in the artifacts folder.
func screenshots(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	for _, w := range []int64{1280, 390} {
		do(t, ctx, chromedp.EmulateViewport(w, 900))
		png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(artifacts(t), fmt.Sprintf("%s-%d.png", name, w))
		if err := os.WriteFile(path, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s", path)
	}
	do(t, ctx, chromedp.EmulateViewport(1280, 1800))
}
