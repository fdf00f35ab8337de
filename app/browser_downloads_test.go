//go:build !js

package app

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/sharelink"
	"github.com/deltaclue/deltaclue/engine/glam"
	"github.com/deltaclue/deltaclue/mnist"
	"github.com/deltaclue/deltaclue/weights"
)

// TestBrowserDownloadsAreTheCLIs: open a share link (test digit 1735, 30 restarts, a two-radius sweep), press
// each download button as a visitor does (Chromium saves the files), run `deltaclue explain -link` and
// `deltaclue sweep -link` on the same link, and compare: the summary PNG, the trade-off, the latent map, the
// set's CSV and the sweep's SVG are the same bytes; the set's JSON has explain.json's fields and the same
// explanations and amortised answers (bar their timings).
func TestBrowserDownloadsAreTheCLIs(t *testing.T) {
	chrome := findChrome(t)
	set, err := mnist.HeldOut()
	if err != nil {
		t.Fatal(err)
	}
	fingerprint, err := weights.ShippedFingerprint()
	if err != nil {
		t.Fatal(err)
	}
	p := clue.Defaults()
	p.N = 30
	link := sharelink.Encode(sharelink.State{Image: sharelink.Quantize(set.Float(1735, nil)), Params: p, Model: fingerprint,
		Selected: sharelink.NoSelection, Sweep: clue.Ladder{Radii: []float64{1, 2}, N: 10}})

	cli := cliOutputs(t, link, true)

	// The page.
	srv := serve(buildSite(t))
	defer srv.Close()
	ctx := browser(t, chrome)
	saved := t.TempDir()
	var mu sync.Mutex
	names, completed := map[string]string{}, []string{} // GUID → suggested name; the GUIDs completed, in order
	chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *cdpbrowser.EventDownloadWillBegin:
			names[e.GUID] = e.SuggestedFilename
		case *cdpbrowser.EventDownloadProgress:
			if e.State == cdpbrowser.DownloadProgressStateCompleted {
				completed = append(completed, e.GUID)
			}
		}
	})
	events := true
	if _, err := chromedp.Call(ctx, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
		Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllowAndName, DownloadPath: saved, EventsEnabled: &events}); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, chromedp.Navigate(srv.URL+"/repo/#"+link))
	waitFor(t, ctx, "the link's set", `window.deltaclue && window.deltaclue.state == "done" && window.deltaclue.results == 30 && window.deltaclue.painted`, time.Minute)
	eval[bool](t, ctx, `(() => { document.getElementById("sweep-run").click(); return true; })()`)
	waitFor(t, ctx, "the sweep", `!document.getElementById("download-sweep").disabled`, time.Minute)
	download := func(id string) []byte {
		t.Helper()
		mu.Lock()
		before := len(completed)
		mu.Unlock()
		waitFor(t, ctx, "#"+id+" enabled", `!document.getElementById("`+id+`").disabled`, 20*time.Second)
		eval[bool](t, ctx, `(() => { document.getElementById("`+id+`").click(); return true; })()`)
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) {
			mu.Lock()
			var guid string
			if len(completed) > before {
				guid = completed[before]
			}
			mu.Unlock()
			if guid != "" {
				b, err := os.ReadFile(filepath.Join(saved, guid))
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("#%s saved %s (%d bytes)", id, names[guid], len(b))
				return b
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Fatalf("#%s: no download completed", id)
		return nil
	}
	for _, w := range []int{1280, 390} { // where the buttons sit, to look at
		do(t, ctx, chromedp.EmulateViewport(int64(w), 844))
		eval[bool](t, ctx, `(() => { document.getElementById("download-summary").scrollIntoView({block: "center"}); return true; })()`)
		viewportShot(t, ctx, fmt.Sprintf("downloads-%d.png", w))
		if right := eval[float64](t, ctx, `Math.max(...Array.from(document.querySelectorAll(".downloads button"), (b) => b.getBoundingClientRect().right))`); right > float64(w) {
			t.Errorf("at %d px a download button ends at %v px", w, right)
		}
	}
	do(t, ctx, chromedp.EmulateViewport(1280, 844))
	sameAsCLI(t, "Chromium", cli, download, true)
}

// cliOutputs runs `deltaclue explain -link` (and `deltaclue sweep -link`, if sweep) on a page's share link, once
// per link for the test binary, as a researcher runs them, and returns the folder holding explain/ and sweep/.
func cliOutputs(t *testing.T, link string, sweep bool) string {
	t.Helper()
	link = link[strings.Index(link, "#")+1:]
	cliRuns.Lock()
	defer cliRuns.Unlock()
	key := fmt.Sprint(link, sweep)
	if dir, ok := cliRuns.m[key]; ok {
		return dir
	}
	dir, err := os.MkdirTemp("", "deltaclue-cli-")
	if err != nil {
		t.Fatal(err)
	}
	runs := [][]string{{"run", "./cmd/deltaclue", "explain", "-link", "#" + link, "-out", filepath.Join(dir, "explain")}}
	if sweep {
		runs = append(runs, []string{"run", "./cmd/deltaclue", "sweep", "-link", "#" + link, "-out", filepath.Join(dir, "sweep")})
	}
	for _, args := range runs {
		cmd := exec.Command("go", args...)
		cmd.Dir = ".."
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %v: %v\n%s", args, err, out)
		}
	}
	cliRuns.m[key] = dir
	return dir
}

var cliRuns = struct {
	sync.Mutex
	m map[string]string
}{m: map[string]string{}}

// sameAsCLI compares the page's downloads, as download (a button's id → the file's bytes) gets them, with what
// the CLI wrote in cli: the summary PNG, the trade-off, the latent map, the set's CSV and (if sweep) the sweep's
// SVG are the same bytes; the set's JSON has explain.json's fields and the same explanations and amortised
// answers (bar their timings), parameters, label and input.
func sameAsCLI(t *testing.T, who, cli string, download func(id string) []byte, sweep bool) {
	t.Helper()
	same := func(id, file string) {
		t.Helper()
		want, err := os.ReadFile(filepath.Join(cli, file))
		if err != nil {
			t.Fatal(err)
		}
		if got := download(id); !bytes.Equal(got, want) {
			saved := filepath.Join(artifacts(t), strings.Map(func(r rune) rune {
				if r == '.' || r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r) {
					return r
				}
				return '-'
			}, who)+"-page-"+filepath.Base(file))
			os.WriteFile(saved, got, 0o644)
			t.Errorf("%s: the page's %s (%d bytes) is not the CLI's %s (%d bytes); the page's is %s", who, id, len(got), file, len(want), saved)
		}
	}
	same("download-summary", "explain/summary.png")
	same("download-tradeoff", "explain/tradeoff.svg")
	same("download-latent", "explain/latent.svg")
	same("download-csv", "explain/set.csv")
	if sweep {
		same("download-sweep", "sweep/sweep.svg")
	}

	// The JSON: explain.json's schema, the same explanations and amortised answers.
	page, cliJSON := download("download-json"), must(os.ReadFile(filepath.Join(cli, "explain", "explain.json")))
	keys := func(b []byte) []string {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		var ks []string
		for k := range m {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		return ks
	}
	if a, b := keys(page), keys(cliJSON); !slices.Equal(a, b) {
		t.Errorf("%s: the page's JSON has the fields %v, explain.json %v", who, a, b)
	}
	var a, b glam.ExplainFile
	json.Unmarshal(page, &a)
	json.Unmarshal(cliJSON, &b)
	if ja, jb := must(json.Marshal(a.Explanations)), must(json.Marshal(b.Explanations)); !bytes.Equal(ja, jb) {
		t.Errorf("%s: the page's JSON holds other explanations than explain.json", who)
	}
	for i := range a.Amortised {
		a.Amortised[i].Milliseconds = 0
	}
	for i := range b.Amortised {
		b.Amortised[i].Milliseconds = 0
	}
	if ja, jb := must(json.Marshal(a.Amortised)), must(json.Marshal(b.Amortised)); len(b.Amortised) == 0 || !bytes.Equal(ja, jb) {
		t.Errorf("%s: amortised answers: the page's %s, explain.json's %s", who, ja, jb)
	}
	if a.Params != b.Params || a.Label != b.Label || a.Input != b.Input {
		t.Errorf("%s: the page's JSON: input %q, label %d, parameters %+v; explain.json: %q, %d, %+v", who, a.Input, a.Label, a.Params, b.Input, b.Label, b.Params)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
