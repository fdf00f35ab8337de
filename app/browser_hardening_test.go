//go:build !js

package app

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/deltaclue/deltaclue/app/core"
	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/sharelink"
	"github.com/deltaclue/deltaclue/mnist"
	"github.com/deltaclue/deltaclue/weights"
)

// linkFor makes a share link for test digit i with parameters p.
func linkFor(t *testing.T, i int, p clue.Params) string {
	t.Helper()
	set, err := mnist.HeldOut()
	if err != nil {
		t.Fatal(err)
	}
	fp, err := weights.ShippedFingerprint()
	if err != nil {
		t.Fatal(err)
	}
	return sharelink.Encode(sharelink.State{Image: sharelink.Quantize(set.Float(i, nil)), Params: p, Model: fp, Selected: sharelink.NoSelection})
}

// TestBrowserWorkerCrashRecovered: a worker terminated mid-search is restarted, recomputes the restarts it owed,
// and the finished set equals the native engine's bit for bit; three failures in a row stop the run.
func TestBrowserWorkerCrashRecovered(t *testing.T) {
	chrome := findChrome(t)
	srv := serve(buildSite(t))
	defer srv.Close()
	ctx := browser(t, chrome)
	p := clue.Defaults()
	// Every restart runs its 600 steps: a search of several seconds, which the loader's early run of the link
	// cannot finish before the page shows it.
	p.RelTol, p.AbsTol, p.MaxSteps = 0, 0, 600
	link := linkFor(t, 1735, p)
	do(t, ctx, chromedp.Navigate(srv.URL+"/repo/?workers=2#"+link))
	// Killed a second into the search (its restarts step together, so none has finished): a worker that has sent
	// heartbeats is noticed after WorkerSilence, 3 s.
	waitFor(t, ctx, "the run under way", `window.deltaclue && window.deltaclue.state == "running"`, time.Minute)
	time.Sleep(time.Second)
	eval[bool](t, ctx, `(window.deltaclueWorkers[0].terminate(), true)`)
	killed := time.Now()
	waitFor(t, ctx, "the worker restarted", `window.deltaclue.restarted >= 1`, 20*time.Second)
	t.Logf("the terminated worker was noticed and restarted after %s", time.Since(killed).Round(time.Millisecond))
	waitFor(t, ctx, "the set finished", `window.deltaclue.state == "done"`, 2*time.Minute)
	note := eval[string](t, ctx, `document.getElementById("restart-note").textContent`)
	if !strings.Contains(note, "restarted") || !regexp.MustCompile(`recomputing the [1-9][0-9]* restarts? it owed`).MatchString(note) {
		t.Errorf("the page says %q", note)
	}
	t.Logf("the page says: %s", note)
	exps, sum := nativeReport(t, link)
	rep := pageReport(t, ctx)
	sameJSON(t, "explanations after a worker was restarted", rep.Explanations, exps)
	sameJSON(t, "set summaries after a worker was restarted", rep.Summary, sum)

	// Three failures in a row stop the run with a message. One worker, so that no other worker's results count as
	// progress between the failures (with two, the healthy one could finish its share while the other is killed,
	// and rightly reset the count). Each time, the worker is killed a second after it is ready, once it has sent
	// heartbeats: the page's patience doubles with each failure (3, 6, 12 s), far less than the 500,000 steps
	// the run would need to make progress.
	// (A link asking for 5,000 steps would wait for a click, so the field is set on the page.) The page asks
	// before so long a search, and the run starts from the question's Run it, a button gone once the run starts:
	// the run's watch must not go with it (go-app drops what is dispatched on a removed element's context).
	do(t, ctx, chromedp.Navigate(srv.URL+"/repo/?workers=1#"+link))
	waitFor(t, ctx, "the link's run", `window.deltaclue && window.deltaclue.state == "done"`, 2*time.Minute)
	setField(t, ctx, "max_steps", "5000")
	explainLong(t, ctx, "the long run")
	for i := 1; i <= 3; i++ {
		waitFor(t, ctx, "the worker ready", `window.deltaclue.ready == 1 || window.deltaclue.state != "running"`, 30*time.Second)
		time.Sleep(time.Second)
		eval[bool](t, ctx, `(window.deltaclueWorkers[0].terminate(), true)`)
		killed := time.Now()
		waitFor(t, ctx, fmt.Sprintf("failure %d noticed", i), fmt.Sprintf(`window.deltaclue.restarted >= %d`, i), 40*time.Second)
		t.Logf("failure %d noticed after %s", i, time.Since(killed).Round(time.Millisecond))
	}
	msg := waitFor(t, ctx, "the run stopped", `window.deltaclue.state == "failed" && window.deltaclue.runError`, 10*time.Second)
	if !strings.Contains(msg, "three times in a row") {
		t.Errorf("after three failures: %s", msg)
	}
	if got := eval[int](t, ctx, `window.deltaclue.results`); got != 0 {
		t.Errorf("the stopped run shows %d results, though none could have finished", got)
	}
	waitFor(t, ctx, "the pool back", `window.deltaclue.ready == 1`, time.Minute)
}

// TestBrowserNotices: a bad ?workers= says what is used instead; a digit the model is sure of says so (and still
// explains); a set with nothing accepted says what to change.
func TestBrowserNotices(t *testing.T) {
	chrome := findChrome(t)
	srv := serve(buildSite(t))
	defer srv.Close()
	ctx := browser(t, chrome)
	// Every refused value's sentence is core.WorkersFromQuery's (TestWorkersFromQuery); here, that it is shown.
	for i, bad := range []string{"abc"} {
		do(t, ctx, chromedp.Navigate(fmt.Sprintf("%s/repo/?workers=%s&case=%d", srv.URL, bad, i)))
		note := waitFor(t, ctx, "the workers note", `document.getElementById("workers-note") && document.getElementById("workers-note").textContent`, 30*time.Second)
		if !strings.Contains(note, "using") || !strings.Contains(note, bad) {
			t.Errorf("?workers=%s: %s", bad, note)
		}
	}

	// The most certain digit of the test split.
	m, err := clue.ShippedModels()
	if err != nil {
		t.Fatal(err)
	}
	set, _ := mnist.HeldOut()
	sure, best := 0, float32(10)
	for i := 0; i < 200; i++ {
		if u := m.BNN.Classify(set.Float(i, nil))[0]; u.Total < best {
			sure, best = i, u.Total
		}
	}
	p := clue.Defaults()
	p.N, p.MaxSteps = 20, 30
	do(t, ctx, chromedp.Navigate(srv.URL+"/repo/?workers=2#"+linkFor(t, sure, p)))
	note := waitFor(t, ctx, "the sure note", `document.getElementById("sure-note") && document.getElementById("sure-note").textContent`, time.Minute)
	if !strings.Contains(note, "already sure") || !strings.Contains(note, "near copies") {
		t.Errorf("a digit with H %.3f: %s", best, note)
	}
	waitFor(t, ctx, "it still explains", `window.deltaclue.state == "done" && window.deltaclue.results == 20`, time.Minute)

	// Nothing accepted.
	p.HThreshold = 1e-6
	do(t, ctx, chromedp.Navigate(srv.URL+"/repo/?workers=2&none=1#"+linkFor(t, 1735, p)))
	none := waitFor(t, ctx, "the nothing-accepted note", `document.getElementById("none-note") && document.getElementById("sentence").textContent`, time.Minute)
	if !strings.Contains(none, "larger δ") || !strings.Contains(none, "higher threshold") {
		t.Errorf("nothing accepted: %s", none)
	}
	_ = context.Background
}

// TestBrowserUploads: an empty file, a text file, a damaged PNG, an 8000×8000 image and a blank one each get a
// sentence without a package prefix (the huge one before anything is decoded, the page answering throughout); a
// real digit is read.
func TestBrowserUploads(t *testing.T) {
	chrome := findChrome(t)
	srv := serve(buildSite(t))
	defer srv.Close()
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	encode := func(img image.Image) []byte {
		var b bytes.Buffer
		if err := png.Encode(&b, img); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	set, _ := mnist.HeldOut()
	x := set.Float(1735, nil)
	digit := image.NewGray(image.Rect(0, 0, 280, 280)) // a test digit, ten times larger, dark on light
	for y := 0; y < 280; y++ {
		for u := 0; u < 280; u++ {
			digit.SetGray(u, y, color.Gray{uint8(255 - 255*x[(y/10)*28+u/10])})
		}
	}
	good := encode(digit)
	huge := encode(image.NewGray(image.Rect(0, 0, 8000, 8000)))
	white := image.NewGray(image.Rect(0, 0, 200, 200))
	for i := range white.Pix {
		white.Pix[i] = 255
	}
	cases := []struct{ file, want string }{
		{write("empty.png", nil), "is empty (0 bytes)"},
		{write("notes.png", []byte("shopping list: eggs, milk, bread")), "not an image this page reads"},
		{write("damaged.png", append(append([]byte(nil), good[:40]...), bytes.Repeat([]byte{0x55}, 500)...)), "could not be decoded"},
		{write("huge.png", huge), "8000×8000 pixels, too large"},
		{write("blank.png", encode(white)), "blank.png is empty: it has no ink to read as a digit."},
	}
	ctx := browser(t, chrome)
	do(t, ctx, chromedp.Navigate(srv.URL+"/repo/?workers=1"))
	waitFor(t, ctx, "the worker", `window.deltaclue && window.deltaclue.ready == 1`, time.Minute)
	do(t, ctx, chromedp.Click(chromedp.ID("tab-upload")))
	for _, c := range cases {
		eval[bool](t, ctx, `(document.getElementById("upload").value = "", true)`)
		do(t, ctx, chromedp.SetUploadFiles(chromedp.ID("upload"), []string{c.file}))
		start := time.Now()
		msg := waitFor(t, ctx, filepath.Base(c.file)+"'s sentence", fmt.Sprintf(`document.getElementById("input-error") &&
			document.getElementById("input-error").textContent.includes(%q) && document.getElementById("input-error").textContent`, c.want), 20*time.Second)
		ping := time.Now()
		eval[bool](t, ctx, `true`)
		if d := time.Since(ping); d > time.Second {
			t.Errorf("%s: the page took %s to answer", filepath.Base(c.file), d)
		}
		t.Logf("%s: %s (after %s)", filepath.Base(c.file), msg, time.Since(start).Round(time.Millisecond))
		for _, prefix := range []string{"mnist:", "clue:", "engine:", "image:", "png:"} {
			if strings.Contains(msg, prefix) {
				t.Errorf("%s: a package prefix in %s", filepath.Base(c.file), msg)
			}
		}
	}
	eval[bool](t, ctx, `(document.getElementById("upload").value = "", true)`)
	do(t, ctx, chromedp.SetUploadFiles(chromedp.ID("upload"), []string{write("digit.png", good)}))
	waitFor(t, ctx, "the uploaded digit read", `document.getElementById("pred-label") && !document.getElementById("input-error")`, 30*time.Second)
}

// TestBrowserWorkerNeverStarts: a worker that never says ready (here the second worker the page creates never
// gets its start message: the page's Worker is wrapped before the page runs) is started again after
// StartSilence, and the shared link, which waits for every worker, opens and gives the native set.
func TestBrowserWorkerNeverStarts(t *testing.T) {
	chrome := findChrome(t)
	srv := serve(buildSite(t))
	defer srv.Close()
	ctx := browser(t, chrome)
	const mute = `(() => { const W = window.Worker; let made = 0;
		window.Worker = class extends W { constructor(...a) { super(...a); made++; window.deltaclueWorkersMade = made;
			if (made == 2) this.postMessage = () => {}; } }; })()`
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: mute}); err != nil {
		t.Fatal(err)
	}
	link := linkFor(t, 1735, clue.Defaults())
	opened := time.Now()
	do(t, ctx, chromedp.Navigate(srv.URL+"/repo/?workers=2#"+link))
	waitFor(t, ctx, "one worker ready", `window.deltaclue && window.deltaclue.ready == 1`, time.Minute)
	if st := eval[string](t, ctx, `window.deltaclue.state`); st != "" {
		t.Fatalf("the link ran (%q) before its second worker was up", st)
	}
	waitFor(t, ctx, "the link's set", `window.deltaclue.state == "done" && window.deltaclue.ready == 2`, core.StartSilence+time.Minute)
	took := time.Since(opened)
	t.Logf("the muted worker was started again; the link's set finished %s after navigation", took.Round(time.Millisecond))
	if took < core.StartSilence {
		t.Errorf("the set finished %s after navigation, before the muted worker could have been replaced", took)
	}
	// The page makes a summary worker too: 2 search workers, the summariser, the replacement.
	if made := eval[int](t, ctx, `window.deltaclueWorkersMade`); made < 4 {
		t.Errorf("the page made %d workers: the muted one was not started again", made)
	}
	exps, sum := nativeReport(t, link)
	rep := pageReport(t, ctx)
	sameJSON(t, "explanations with a worker started again", rep.Explanations, exps)
	sameJSON(t, "summaries with a worker started again", rep.Summary, sum)
}

// TestBrowserLinkRunsEarly: a shared link's search starts in the workers web/loader.js starts before the page
// has loaded; the page takes the run over (timing.adopted) and the set is the native engine's, bit for bit, as
// is its summary.
func TestBrowserLinkRunsEarly(t *testing.T) {
	chrome := findChrome(t)
	srv := serve(buildSite(t))
	defer srv.Close()
	ctx := browser(t, chrome)
	link := linkFor(t, 1735, clue.Defaults())
	do(t, ctx, chromedp.Navigate(srv.URL+"/repo/?workers=2#"+link))
	waitFor(t, ctx, "the link's set", `window.deltaclue && window.deltaclue.state == "done"`, time.Minute)
	timing := eval[map[string]float64](t, ctx, `window.deltaclue.timing`)
	t.Logf("page timing (ms since navigation): %v; set in %v ms", timing, eval[float64](t, ctx, `window.deltaclue.elapsedMs`))
	if timing["adopted"] == 0 {
		t.Error("the page did not take over the loader's run of the link")
	}
	exps, sum := nativeReport(t, link)
	rep := pageReport(t, ctx)
	sameJSON(t, "explanations of the early run", rep.Explanations, exps)
	sameJSON(t, "summaries of the early run", rep.Summary, sum)
	prob, _ := nativeProblem(t, link)
	if rep.Input != "the shared link" || rep.Label != argmax(prob.Pred0.Probs) {
		t.Errorf("the report's input %q, label %d (natively %d)", rep.Input, rep.Label, argmax(prob.Pred0.Probs))
	}
	sameJSON(t, "the models' view of the link's digit", rep.Prediction, prob.Pred0)

	// With a ?workers= the loader and the page read alike, and a pool of 1, the same.
	do(t, ctx, chromedp.Navigate(srv.URL+"/repo/?workers=1&x=1#"+link))
	waitFor(t, ctx, "the link's set on 1 worker", `window.deltaclue && window.deltaclue.state == "done" && window.deltaclue.timing.adopted > 0`, time.Minute)
	sameJSON(t, "explanations of the early run on 1 worker", pageReport(t, ctx).Explanations, exps)
}
