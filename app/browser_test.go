//go:build !js

package app

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/sharelink"
	"github.com/deltaclue/deltaclue/internal/static"
	"github.com/deltaclue/deltaclue/weights"
)

// The end-to-end test: the real site, built by cmd/site for sub-path hosting, served under /repo/ on
// 127.0.0.1, driven in headless Debian Chromium with chromedp.

func findChrome(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CHROME_PATH"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no chromium found, and CI=true: the browser test must run in CI (apt-get install chromium)")
	}
	t.Skip("SKIPPING the browser end-to-end test: no chromium found (apt-get install chromium, or set CHROME_PATH)")
	return ""
}

// siteDirs holds the sites built for the browser tests, by repository name ("" for the root), each built once
// and removed by TestMain.
var siteDirs = map[string]string{}

func TestMain(m *testing.M) {
	// The page's unit tests run as the digits' page does: cmd/site passes their description in go-app's
	// environment, which natively is the process's.
	os.Setenv(ModelsEnv, PageDescriptions([]SiteModels{{Description: weights.DigitsDescription(), Gallery: true, Global: true}}))
	code := m.Run()
	if os.Getenv("E2E_SITE") == "" {
		for _, d := range siteDirs {
			os.RemoveAll(filepath.Dir(d))
		}
	}
	for _, d := range cliRuns.m {
		os.RemoveAll(d)
	}
	os.Exit(code)
}

// buildSite builds the site for /repo/ with cmd/site, once (or uses $E2E_SITE if set, to iterate fast).
func buildSite(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("E2E_SITE"); d != "" {
		return d
	}
	return buildSiteFor(t, "repo")
}

// buildSiteFor builds the site for hosting under /<repo>/, or at the root when repo is "", once per test binary
// (or uses $E2E_SITE_ROOT for the root, to iterate fast); "repo@models" (or "@models") builds it with other models.
func buildSiteFor(t *testing.T, repo string) string {
	t.Helper()
	if d := os.Getenv("E2E_SITE_ROOT"); d != "" && repo == "" {
		return d
	}
	if d, ok := siteDirs[repo]; ok {
		return d
	}
	tmp, err := os.MkdirTemp("", "deltaclue-e2e-")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "site")
	args := []string{"run", "./cmd/site", "-out", out, "-repo", repo}
	if name, models, ok := strings.Cut(repo, "@"); ok { // "repo@concrete": a site of other models
		args = []string{"run", "./cmd/site", "-out", out, "-repo", name, "-models", models}
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = ".."
	start := time.Now()
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("building the site: %v\n%s", err, b)
	}
	t.Logf("site for %q built in %s:\n%s", "/"+repo, time.Since(start).Round(time.Second), b)
	siteDirs[repo] = out
	return out
}

// serve mimics GitHub Pages: the site under /repo/.
func serve(dir string) *httptest.Server { return serveAt(dir, "/repo") }

// serveAt serves a site under the path prefix ("" for the root), as a static host does (gzip copies too).
func serveAt(dir, prefix string) *httptest.Server {
	return httptest.NewServer(static.Handler(dir, prefix))
}

// chromiumOptions are the flags of every headless Chromium the tests start, each with a new empty profile.
func chromiumOptions(t *testing.T, chrome string) []chromedp.ExecAllocatorOption {
	return append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chrome), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-first-run", true), chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 1800))
}

// browser starts a fresh headless Chromium (its own profile: no service worker, no cache from before).
func browser(t *testing.T, chrome string) context.Context {
	t.Helper()
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), chromiumOptions(t, chrome)...)
	ctx, cancelC := chromedp.NewContext(actx)
	ctx, cancelT := context.WithTimeout(ctx, 4*time.Minute)
	t.Cleanup(func() { cancelT(); cancelC(); cancelA() })
	chromedp.Listen(ctx, func(ev any) {
		switch e := ev.(type) {
		case *runtime.EventExceptionThrown:
			t.Logf("page exception: %s %s", e.ExceptionDetails.Text, e.ExceptionDetails.Exception.Description)
		case *runtime.EventConsoleAPICalled:
			for _, a := range e.Args {
				if e.Type == "error" || strings.Contains(string(a.Value), "panic") || strings.Contains(string(a.Value), ".go:") || strings.Contains(string(a.Value), "goroutine") {
					t.Logf("console %s: %s %s", e.Type, a.Value, a.Description)
				}
			}
		}
	})
	return ctx
}

func do(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

// waitFor polls a JavaScript expression until it is truthy and returns its value as JSON.
func waitFor(t *testing.T, ctx context.Context, what, expr string, timeout time.Duration) string {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Poll[string](`(() => { const v = (`+expr+`); return v ? JSON.stringify(v) : false; })()`,
		chromedp.WithPollingTimeout(timeout), chromedp.WithPollingInterval(20*time.Millisecond)))
	if err != nil {
		state, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`JSON.stringify(Object.assign({}, window.deltaclue || {}, {report: undefined, trajectory: undefined, link: undefined}))`))
		t.Fatalf("waiting for %s: %v (page state %s)", what, err, state)
	}
	return v
}

func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// focusMarker gives the keyboard focus to a figure's element once the figures show the page's state in full:
// after a selection the latent map is redrawn in parts (with the chosen restart's path), and a marker looked up
// mid-redraw may not exist yet.
func focusMarker(t *testing.T, ctx context.Context, selector string) {
	t.Helper()
	waitFor(t, ctx, "the figures painted with "+selector, fmt.Sprintf(`window.deltaclue.painted && document.querySelector(%q)`, selector), 10*time.Second)
	eval[bool](t, ctx, fmt.Sprintf(`(document.querySelector(%q).focus(), true)`, selector))
}

// setField types a value into a parameter field and fires its change event.
func setField(t *testing.T, ctx context.Context, key, value string) {
	t.Helper()
	eval[bool](t, ctx, fmt.Sprintf(`(() => { const el = document.getElementById("p-%s"); el.value = %q;
		el.dispatchEvent(new Event("change", {bubbles: true})); return true; })()`, key, value))
}

// explainLong clicks Explain for a search that takes long on this device, which asks first, and chooses Run it;
// then it waits for the search to run.
func explainLong(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	do(t, ctx, chromedp.Click(chromedp.ID("run")))
	waitFor(t, ctx, what+" to be asked about", `!!document.getElementById("costly-run") || window.deltaclue.state == "running"`, 10*time.Second)
	eval[bool](t, ctx, `(document.getElementById("costly-run") && document.getElementById("costly-run").click(), true)`)
	waitFor(t, ctx, what+" to start", `window.deltaclue.state == "running"`, 10*time.Second)
}

type rect struct{ X, Y float64 }

// drawFour draws, with the mouse, a 4 whose top is nearly closed: a 4 that could be a 9.
func drawFour(t *testing.T, ctx context.Context) {
	stroke(t, ctx, [][2]float64{{95, 50}, {85, 90}, {78, 130}, {90, 150}, {150, 150}, {190, 148}}) // down the left, across
	stroke(t, ctx, [][2]float64{{180, 45}, {182, 110}, {184, 170}, {186, 240}})                    // the long right stroke
	stroke(t, ctx, [][2]float64{{95, 52}, {136, 48}})                                              // a top that stops short of closing
}

// stroke draws one stroke with the mouse through the given pad coordinates.
func stroke(t *testing.T, ctx context.Context, pts [][2]float64) {
	t.Helper()
	r := eval[rect](t, ctx, `(() => { const p = document.getElementById("pad"); p.scrollIntoView({block: "center"});
		const b = p.getBoundingClientRect(); return {X: b.x, Y: b.y}; })()`)
	steps := []chromedp.Action[chromedp.Void]{chromedp.MouseEvent(chromedp.MousePressed, r.X+pts[0][0], r.Y+pts[0][1], chromedp.ButtonLeft)}
	for _, p := range pts[1:] {
		steps = append(steps, chromedp.MouseEvent(chromedp.MouseMoved, r.X+p[0], r.Y+p[1], chromedp.ButtonLeft))
	}
	last := pts[len(pts)-1]
	steps = append(steps, chromedp.MouseEvent(chromedp.MouseReleased, r.X+last[0], r.Y+last[1], chromedp.ButtonLeft))
	do(t, ctx, steps...)
}

// pageReport reads the finished run's report from the page.
func pageReport(t *testing.T, ctx context.Context) clue.Report {
	var r clue.Report
	if err := json.Unmarshal([]byte(eval[string](t, ctx, `window.deltaclue.report`)), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// nativeReport runs the same search natively from a share link.
func nativeReport(t *testing.T, link string) ([]clue.Explanation, clue.Summary) {
	prob, s := nativeProblem(t, link)
	exps, err := clue.Search(context.Background(), prob, s.Params, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return exps, clue.Summarize(prob.X0, prob.Z0, prob.Models().BNN.Classes, s.Params, exps)
}

// nativeProblem is a share link's input on the native engine, with the link's state.
func nativeProblem(t *testing.T, link string) (*clue.Problem, sharelink.State) {
	t.Helper()
	s, err := sharelink.Decode(link)
	if err != nil {
		t.Fatal(err)
	}
	m, err := clue.ShippedModels()
	if err != nil {
		t.Fatal(err)
	}
	prob, err := clue.NewProblem(m, s.Float())
	if err != nil {
		t.Fatal(err)
	}
	return prob, s
}

func sameJSON(t *testing.T, what string, a, b any) {
	t.Helper()
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Errorf("%s differ:\n page   %.400s\n native %.400s", what, ja, jb)
	}
}

func labelsOf(exps []clue.Explanation) map[int]int {
	m := map[int]int{}
	for _, e := range exps {
		if e.Accepted {
			m[e.Label]++
		}
	}
	return m
}

func TestBrowserDrawExplainShareCancel(t *testing.T) {
	chrome := findChrome(t)
	srv := serve(buildSite(t))
	defer srv.Close()
	workers := "2"
	if w := os.Getenv("E2E_WORKERS"); w != "" {
		workers = w
	}
	ctx := browser(t, chrome)
	do(t, ctx, chromedp.Navigate(srv.URL+"/repo/?workers="+workers))
	start := time.Now()
	waitFor(t, ctx, "the workers", `window.deltaclue && window.deltaclue.ready == `+workers, time.Minute)
	t.Logf("page and %s workers ready in %s", workers, time.Since(start).Round(time.Millisecond))

	// Draw, and see the model's view appear.
	drawFour(t, ctx)
	waitFor(t, ctx, "the model's view", `document.getElementById("pred-label")`, 30*time.Second)
	lit := eval[int](t, ctx, `(() => { const d = document.getElementById("pad").getContext("2d").getImageData(0, 0, 280, 280).data;
		let n = 0; for (let i = 0; i < d.length; i += 4) if (d[i] > 128) n++; return n; })()`)
	if lit < 2000 {
		t.Fatalf("the drawing left only %d lit pixels on the pad", lit)
	}

	// Explain with the defaults (n = 100), timing click → first result → full set.
	do(t, ctx, chromedp.Click(chromedp.ID("run")))
	clicked := time.Now()
	waitFor(t, ctx, "a first result", `!window.deltaclue.preview && window.deltaclue.results > 0`, time.Minute)
	first := time.Since(clicked)
	waitFor(t, ctx, "the full set", `!window.deltaclue.preview && window.deltaclue.state == "done"`, 3*time.Minute)
	full := time.Since(clicked)
	st := eval[map[string]any](t, ctx, `Object.assign({}, window.deltaclue, {report: undefined})`)
	t.Logf("n = 100 on %s workers: first result %s after the click (page: %v ms), full set %s (page: last result at %v ms, "+
		"summarised at %v ms; each worker's own seconds %v)", workers, first.Round(time.Millisecond), st["firstResultMs"],
		full.Round(time.Millisecond), st["lastResultMs"], st["elapsedMs"], st["workerSeconds"])
	rep := pageReport(t, ctx)
	link := eval[string](t, ctx, `location.href`)
	if len(rep.Explanations) != 100 || !strings.Contains(link, "#v2.") {
		t.Fatalf("page report has %d explanations; link %q", len(rep.Explanations), link)
	}
	labels := labelsOf(rep.Explanations)
	t.Logf("the model reads %d (p4 %.2f, p9 %.2f, H %.2f); labels of the accepted explanations: %v; share link %d characters",
		rep.Label, rep.Prediction.Probs[4], rep.Prediction.Probs[9], rep.Prediction.Total, labels, len(link))
	if labels[4] == 0 || labels[9] == 0 {
		t.Errorf("a 4 that could be a 9 should be explained by both 4s and 9s, got %v", labels)
	}

	// The same input, parameters and seed natively: the same explanations, bit for bit.
	exps, sum := nativeReport(t, link)
	sameJSON(t, "explanations", rep.Explanations, exps)
	sameJSON(t, "set summaries", rep.Summary, sum)

	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(artifacts(t), "deltaclue-e2e.png")
	if err := os.WriteFile(shot, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", shot)

	// The link in a fresh browser: the same set.
	fresh := browser(t, chrome)
	do(t, fresh, chromedp.Navigate(link))
	waitFor(t, fresh, "the shared set", `window.deltaclue && window.deltaclue.state == "done"`, 3*time.Minute)
	sameJSON(t, "explanations from the shared link", pageReport(t, fresh).Explanations, rep.Explanations)

	// A long search, cancelled: the page must answer within a second.
	setField(t, ctx, "n", "1000")
	setField(t, ctx, "max_steps", "10000")
	setField(t, ctx, "rel_tol", "0")
	setField(t, ctx, "abs_tol", "0")
	explainLong(t, ctx, "the long search")
	time.Sleep(500 * time.Millisecond)
	ping := time.Now()
	eval[bool](t, ctx, `true`)
	t.Logf("a JavaScript round trip during the long search: %s", time.Since(ping).Round(time.Millisecond))
	cancelAt := time.Now()
	do(t, ctx, chromedp.Click(chromedp.ID("cancel")))
	waitFor(t, ctx, "the cancel", `window.deltaclue.state == "cancelled"`, 5*time.Second)
	if d := time.Since(cancelAt); d > time.Second {
		t.Errorf("cancelling took %s, want under a second", d)
	} else {
		t.Logf("cancelled in %s", d.Round(time.Millisecond))
	}
	// The workers still work after a cancel.
	setField(t, ctx, "n", "10")
	setField(t, ctx, "max_steps", "20")
	do(t, ctx, chromedp.Click(chromedp.ID("run")))
	waitFor(t, ctx, "a search after the cancel", `!window.deltaclue.preview && window.deltaclue.state == "done"`, time.Minute)
}

func TestBrowserBadLinks(t *testing.T) {
	chrome := findChrome(t)
	srv := serve(buildSite(t))
	defer srv.Close()
	ctx := browser(t, chrome)
	good := sharelink.Encode(sharelink.State{Image: (&[784]uint8{300 % 256: 200, 301: 255, 330: 255})[:], Params: clue.Defaults(), Model: 12345})
	// Every fault's sentence is core.Links' (TestEveryBadLinkSaysItsFault); here, what needs the page: a link
	// that looks like markup is shown as text, and a link made with other models is refused once the workers say
	// which models they run; after each, the page works.
	cases := map[string]string{
		"#<img src=x onerror=alert(1)>": "not a deltaclue link",
		"#" + good:                      "other models",
	}
	i := 0
	for frag, want := range cases {
		i++ // a new query each time: a change of fragment alone would not reload the page
		do(t, ctx, chromedp.Navigate(fmt.Sprintf("%s/repo/?workers=1&case=%d%s", srv.URL, i, frag)))
		msg := waitFor(t, ctx, "the link's error", `document.getElementById("link-error") && document.getElementById("link-error").textContent`, 30*time.Second)
		if !strings.Contains(msg, want) {
			t.Errorf("%.40s: message %s, want it to mention %q", frag, msg, want)
		}
		waitFor(t, ctx, "a working page", `window.deltaclue.ready == 1`, time.Minute)
		if n := eval[int](t, ctx, `document.querySelectorAll("img[src=x]").length`); n != 0 {
			t.Errorf("%.40s: the link's text became markup", frag)
		}
	}
	// A v1 link (no checksum) still opens, with a quiet note (made with older models, it also says so).
	do(t, ctx, chromedp.Navigate(srv.URL+"/repo/?workers=1&case=v1#"+v1Link(t)))
	note := waitFor(t, ctx, "the v1 note", `document.getElementById("link-note") && document.getElementById("link-note").textContent`, 30*time.Second)
	if !strings.Contains(note, "no checksum") {
		t.Errorf("a v1 link: %s", note)
	}
}

// v1Link is a real link of the first format (no checksum), made by an earlier build (engine/clue/sharelink's fixture).
func v1Link(t *testing.T) string {
	t.Helper()
	const link = "v1.cnFmtDRggAGHFAZGCOuDPQMa2CHX-jpwxzwMcYZZM0Fgp30KA3O1yDr3h1Ut9n9WfrzkmxRgz8xgDAaXobpUHBgZBjXwXPvv3_IgNmxSRX_-gcASR0wp-9__VvWAJH9loUvJPf23mJ3R4tSrf_9--qCb-O8-B4gWK_3w76cuqrYP_zKgzKyf_1ZzIsvZ_bsN51_6988NWa7h31o4W__Nv-vIctv-VSM4G_-9QZZ7iyxnjyr37p8ygqPy7y2KvtNMyHKoZp5E4liiuuXtM2E4m-syqh_e_quDs5f-eyiHLDfj33MlCEu05cdPG5QwU3r5bxWIli549O-DN1pYu__-OjMr9-D_f__uaGHEXyUkau9msWOJd7_19_ct82emccIDBAAA__8"
	if s, err := sharelink.Decode(link); err != nil || s.Version != 1 {
		t.Fatalf("the v1 fixture: %v", err)
	}
	return link
}

// artifacts is where the test leaves its screenshot: $E2E_ARTIFACTS, or the system's temporary folder.
func artifacts(t *testing.T) string {
	dir := os.Getenv("E2E_ARTIFACTS")
	if dir == "" {
		dir = os.TempDir()
	}
	os.MkdirAll(dir, 0o755)
	return dir
}

// copySite copies the built site so that a test can break a file of it.
func copySite(t *testing.T, from string) string {
	t.Helper()
	to := filepath.Join(t.TempDir(), "site")
	err := filepath.WalkDir(from, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		if strings.HasSuffix(path, ".gz") {
			return nil // a test changes the copy's files: their gzip copies would be stale (file times are coarse)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return to
}

// TestBrowserWorkerFailures: a worker binary that does not load, and one from another build, are both told to
// the user in the page, not only in the console.
func TestBrowserWorkerFailures(t *testing.T) {
	chrome := findChrome(t)
	site := buildSite(t)

	broken := copySite(t, site)
	if err := os.WriteFile(filepath.Join(broken, "web", "worker.wasm"), []byte("not a wasm module"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := serve(broken)
	defer srv.Close()
	ctx := browser(t, chrome)
	do(t, ctx, chromedp.Navigate(srv.URL+"/repo/?workers=1"))
	msg := waitFor(t, ctx, "the load failure in the page", `document.getElementById("pool-error") && document.getElementById("pool-error").textContent`, time.Minute)
	if !strings.Contains(msg, "worker.wasm") || !strings.Contains(msg, "failed to load") {
		t.Errorf("the page says %s", msg)
	}

	other := copySite(t, site)
	buildWorker(t, other, "another-build")
	srv2 := serve(other)
	defer srv2.Close()
	ctx2 := browser(t, chrome)
	do(t, ctx2, chromedp.Navigate(srv2.URL+"/repo/?workers=1"))
	waitFor(t, ctx2, "the mixed-version warning", `window.deltaclue && window.deltaclue.stale && document.querySelector(".banner button")`, time.Minute)
}

// buildWorker builds the search worker into site's web/worker.wasm as the site does for its default models (the
// digits': dense layers only), stamped with version: a worker of another build than the page's.
func buildWorker(t *testing.T, site, version string) {
	t.Helper()
	cmd := exec.Command("go", "build", "-tags", "wasmsimd,denseonly", "-trimpath", "-ldflags", "-s -w -X main.Version="+version,
		"-o", filepath.Join(site, "web", "worker.wasm"), "./wasm/worker")
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building a worker of version %s: %v\n%s", version, err, b)
	}
}
