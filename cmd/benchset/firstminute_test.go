//go:build !js

package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestPhaseOrder: the page's known keys in the order they happen, then its other keys sorted, then the hook's.
func TestPhaseOrder(t *testing.T) {
	got := phaseOrder([]string{phDone, "workersStarted", "ready", phFirst, "mounted", "alpha", phStarted, phShown, "checked"})
	want := []string{"mounted", "checked", "ready", "alpha", "workersStarted", phStarted, phFirst, phDone, phShown}
	if !slices.Equal(got, want) {
		t.Errorf("phaseOrder = %q, want %q", got, want)
	}
	if got := phaseOrder(nil); len(got) != 0 {
		t.Errorf("phaseOrder(nil) = %q", got)
	}
}

// TestVisit: the page's state becomes phases since navigation; a key that is not a positive number is left
// out; a set the hook missed is marked polled; a run that did not finish whole is an error.
func TestVisit(t *testing.T) {
	st := visitState{State: "done", RunID: 3, Results: 100, Total: 100, Workers: 2, ElapsedMs: 400, FirstResultMs: 60,
		Timing: map[string]any{"mounted": 900.5, "ready": 1500.0, "loaded": nil, "odd": "x", "zero": 0.0},
		First:  1560, Done: 1900, Shown: 1916, Evaluations: 5}
	v, err := st.visit(2, 100, 5)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"mounted": 900.5, "ready": 1500, phStarted: 1500, phFirst: 1560, phDone: 1900, phShown: 1916}
	if len(v.Phases) != len(want) {
		t.Errorf("phases %v, want %v", v.Phases, want)
	}
	for k, x := range want {
		if v.Phases[k] != x {
			t.Errorf("phase %q = %v, want %v", k, v.Phases[k], x)
		}
	}
	if v.onScreen() != 1916 || v.Polled {
		t.Errorf("on screen %v, polled %v", v.onScreen(), v.Polled)
	}

	st.Done, st.Shown, st.First, st.Now = 0, 0, 0, 2000
	v, err = st.visit(2, 100, 5)
	if err != nil {
		t.Fatal(err)
	}
	if !v.Polled || v.onScreen() != 2000 || v.Phases[phFirst] != 2000-400+60 {
		t.Errorf("without the hook: polled %v, on screen %v, first %v", v.Polled, v.onScreen(), v.Phases[phFirst])
	}

	for _, bad := range []visitState{
		{State: "failed", Errors: "boom"},
		{State: "done", Workers: 1, Results: 100, Total: 100},
		{State: "done", Workers: 2, Results: 99, Total: 100},
		{State: "done", Workers: 2, Results: 100, Total: 100, Evaluations: 4},
	} {
		if _, err := bad.visit(2, 100, 5); err == nil {
			t.Errorf("%+v is not an error", bad)
		}
	}
	if (*Visit)(nil).onScreen() == (*Visit)(nil).onScreen() { // NaN
		t.Error("a missing visit has a time")
	}
}

// TestPrintFirst: the table has the rows, the phases in order, blank cells for what a build lacks, failures,
// and the ratio of this tree to the base.
func TestPrintFirst(t *testing.T) {
	visit := func(ready, shown, elapsed float64) *Visit {
		return &Visit{Phases: map[string]float64{"mounted": 100, "ready": ready, phDone: shown - 10, phShown: shown}, ElapsedMs: elapsed}
	}
	rep := &Report{Runs: 2, Digit: 1735, First: []FirstSample{
		{Config: fLink, Build: "base x", Run: 1, Cold: &Visit{Phases: map[string]float64{phDone: 5990, phShown: 6000}, ElapsedMs: 1500}, AgainMs: 500, Second: visit(1000, 2000, 400)},
		{Config: fLink, Build: "this tree", Run: 1, Cold: visit(900, 2000, 600), AgainMs: 500, Second: visit(500, 1200, 400)},
		{Config: fLink, Build: "this tree", Run: 2, Cold: visit(1100, 2200, 500), AgainMs: 500, Second: visit(500, 1000, 400)},
		{Config: fNoStop, Build: "this tree", Run: 1, Error: "timeout"},
		{Config: fPreview, Build: "this tree", Run: 1, PenUpToShownMs: []float64{600, 200, 300, 250}, PreviewMs: []float64{550, 180, 260, 220}},
		{Config: fCredit, Build: "this tree", Run: 1, Cold: visit(400, 900, 480), AgainMs: 180, WarmMs: []float64{150, 130, 120, 110, 97, 91, 99, 93}},
		{Config: fLink, Engine: "Firefox 1", Run: 1, Cold: visit(1000, 1500, 500)}, // not in the Chromium table
	}}
	builds := []*build{{Name: "base x"}, {Name: "this tree"}}
	var b bytes.Buffer
	printFirst(&b, rep, builds)
	out := b.String()
	for _, want := range []string{
		"default link, cold → set on screen", "6000 [6000–6000]", "2100 [2000–2200]", "0.35",
		"    mounted", "    ready", "1000 [900–1100]", "first ÷ again", "1.10 [1.00–1.20]", "3.00 [3.00–3.00]",
		"second visit (same profile) → set on screen", "1100 [1000–1200]",
		"1 failed", "p50 of later strokes", "250 [250–250]", "600 [600–600]", "240 [240–240]",
		"warm: p50 of the 6th to 10th search", "97 [97–97]",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "1500 [1500–1500]\n") || strings.Contains(out, "Firefox") {
		t.Errorf("an engine's run is in Chromium's table:\n%s", out)
	}
	// The phases in order: mounted before ready before the set.
	if i, j, k := strings.Index(out, "    mounted"), strings.Index(out, "    ready"), strings.Index(out, "    "+phDone); !(i < j && j < k) {
		t.Errorf("phases out of order:\n%s", out)
	}
	if firstErrors(rep.First) == "" {
		t.Error("a failed run of this tree is not an error")
	}
}

// TestFashionAgainstDigits: the Fashion link's cold time to its set on screen against the digits' link, medians
// of the same build's runs, and the verdict against the target.
func TestFashionAgainstDigits(t *testing.T) {
	shown := func(ms float64) *Visit { return &Visit{Phases: map[string]float64{phShown: ms}} }
	samples := []FirstSample{
		{Config: fLink, Build: "this tree", Run: 1, Cold: shown(2000)},
		{Config: fLink, Build: "this tree", Run: 2, Cold: shown(2200)},
		{Config: fFashion, Build: "this tree", Run: 1, Cold: shown(2400)},
		{Config: fFashion, Build: "this tree", Run: 2, Cold: shown(2600)},
		{Config: fFashion, Build: "this tree", Run: 3, Error: "timeout"},
		{Config: fFashion, Build: "base x", Run: 1, Cold: shown(9000)},
		{Config: fLink, Build: "base x", Run: 1, Cold: shown(3000)},
	}
	if got := fashionAgainstDigits(samples, "this tree"); !strings.Contains(got, "2500 ms (median of 2)") || !strings.Contains(got, "2100 ms (of 2)") ||
		!strings.Contains(got, "×1.19, within the target ×1.25") {
		t.Errorf("this tree: %q", got)
	}
	if got := fashionAgainstDigits(samples, "base x"); !strings.Contains(got, "×3.00, OVER the target") {
		t.Errorf("base: %q", got)
	}
	if got := fashionAgainstDigits(samples[:2], "this tree"); got != "" {
		t.Errorf("without a Fashion run: %q, want nothing", got)
	}
}

// TestCellOf: median [min–max], failures noted, blank for nothing.
func TestCellOf(t *testing.T) {
	if c, m := cellOf([]float64{3, 1, 2}, 0, 0); c != "2 [1–3]" || m != 2 {
		t.Errorf("cellOf = %q, %v", c, m)
	}
	if c, _ := cellOf([]float64{1.234}, 1, 2); c != "1.23 [1.23–1.23] (1 failed)" {
		t.Errorf("cellOf = %q", c)
	}
	if c, m := cellOf(nil, 2, 0); c != "2 failed" || !math.IsNaN(m) {
		t.Errorf("cellOf = %q, %v", c, m)
	}
	if c, _ := cellOf(nil, 0, 0); c != "" {
		t.Errorf("cellOf = %q", c)
	}
	if q := quantile([]float64{4, 1, 3, 2}, 0.5); q != 2.5 {
		t.Errorf("median of 1..4 = %v", q)
	}
}

// TestServeSite: the site is served pre-compressed to a browser that accepts gzip, raw to one that does not,
// a directory as its index.html, with a 304 for a revalidation.
func TestServeSite(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "web"), 0o755)
	os.WriteFile(filepath.Join(dir, "index.html"), []byte("<!doctype html><p>hello"), 0o644)
	os.WriteFile(filepath.Join(dir, "web", "app.wasm"), bytes.Repeat([]byte("wasm"), 1000), 0o644)
	files, err := loadSite(dir)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(siteHandler(files, "/repo"))
	defer srv.Close()
	get := func(path, enc, etag string) *http.Response {
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		req.Header.Set("Accept-Encoding", enc)
		if etag != "" {
			req.Header.Set("If-None-Match", etag)
		}
		res, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := get("/repo/web/app.wasm", "gzip, deflate", "")
	if res.Header.Get("Content-Encoding") != "gzip" || res.Header.Get("Content-Type") != "application/wasm" || res.Header.Get("Cache-Control") != "max-age=600" {
		t.Errorf("headers %v", res.Header)
	}
	z, err := gzip.NewReader(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(z)
	res.Body.Close()
	if len(b) != 4000 {
		t.Errorf("%d bytes after gunzip", len(b))
	}
	res = get("/repo/", "identity", "")
	b, _ = io.ReadAll(res.Body)
	res.Body.Close()
	if res.Header.Get("Content-Encoding") != "" || !strings.Contains(string(b), "hello") || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
		t.Errorf("the index: %v %q", res.Header, b)
	}
	if res := get("/repo/web/app.wasm", "gzip", res.Header.Get("ETag")); res.StatusCode != http.StatusOK {
		t.Errorf("a revalidation with another file's ETag: %d, want 200", res.StatusCode)
	}
	etag := get("/repo/web/app.wasm", "gzip", "").Header.Get("ETag")
	if res := get("/repo/web/app.wasm", "gzip", etag); res.StatusCode != http.StatusNotModified {
		t.Errorf("a revalidation: %d, want 304", res.StatusCode)
	}
	if res := get("/repo/missing.js", "gzip", ""); res.StatusCode != http.StatusNotFound {
		t.Errorf("a missing file: %d", res.StatusCode)
	}
	if res := get("/other/index.html", "gzip", ""); res.StatusCode != http.StatusNotFound {
		t.Errorf("outside the prefix: %d", res.StatusCode)
	}
	for h, want := range map[string]bool{"gzip": true, "deflate, gzip;q=0.5": true, "gzip;q=0": false, "br": false, "": false} {
		if acceptsGzip(h) != want {
			t.Errorf("acceptsGzip(%q) = %v", h, !want)
		}
	}
}
