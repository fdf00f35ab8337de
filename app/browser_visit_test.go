//go:build !js

package app

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// pagesServer serves a site under /repo/ as GitHub Pages does (gzip, Cache-Control: max-age=600, validators),
// and counts what crosses the network: every request that reaches it, with the bytes it sent.
type pagesServer struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int   // path → responses with a body
	sent map[string]int64 // path → bytes sent (compressed)
	down bool             // refuse every request, as a server that is gone
}

type countingWriter struct {
	http.ResponseWriter
	n int64
}

func (c *countingWriter) Write(b []byte) (int, error) {
	n, err := c.ResponseWriter.Write(b)
	c.n += int64(n)
	return n, err
}

// gzipWriter compresses a 200 response's body, as a static host does; other statuses (304) pass through.
type gzipWriter struct {
	http.ResponseWriter
	z *gzip.Writer
}

func (g *gzipWriter) WriteHeader(code int) {
	if code == http.StatusOK {
		g.Header().Del("Content-Length")
		g.Header().Set("Content-Encoding", "gzip")
		g.Header().Set("Vary", "Accept-Encoding")
		g.z = gzip.NewWriter(g.ResponseWriter)
	}
	g.ResponseWriter.WriteHeader(code)
}

func (g *gzipWriter) Write(b []byte) (int, error) {
	if g.z == nil {
		return g.ResponseWriter.Write(b)
	}
	return g.z.Write(b)
}

func (g *gzipWriter) close() {
	if g.z != nil {
		g.z.Close()
	}
}

func servePages(dir string) *pagesServer {
	s := &pagesServer{hits: map[string]int{}, sent: map[string]int64{}}
	files := http.StripPrefix("/repo", http.FileServer(http.Dir(dir)))
	mux := http.NewServeMux()
	mux.Handle("/repo/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		down := s.down
		s.mu.Unlock()
		if down {
			http.Error(w, "gone", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Cache-Control", "max-age=600")
		cw := &countingWriter{ResponseWriter: w}
		if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			gw := &gzipWriter{ResponseWriter: cw}
			files.ServeHTTP(gw, r)
			gw.close()
		} else {
			files.ServeHTTP(cw, r)
		}
		s.mu.Lock()
		if cw.n > 0 {
			s.hits[r.URL.Path]++
		}
		s.sent[r.URL.Path] += cw.n
		s.mu.Unlock()
	}))
	s.Server = httptest.NewServer(mux)
	return s
}

// snapshot returns the hits and bytes so far, and resets them.
func (s *pagesServer) snapshot() (map[string]int, map[string]int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, b := s.hits, s.sent
	s.hits, s.sent = map[string]int{}, map[string]int64{}
	return h, b
}

func gzipSize(t *testing.T, path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	w, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
	w.Write(b)
	w.Close()
	return z.Len()
}

// waitCached waits until the service worker's cache holds every large file of the build.
func waitCached(t *testing.T, ctx context.Context) {
	t.Helper()
	waitFor(t, ctx, "the service worker's cache", `(async () => {
		if (!navigator.serviceWorker.controller) return false;
		const keys = await caches.keys();
		const cache = await caches.open(keys.find(k => k.startsWith("app-")));
		const urls = (await cache.keys()).map(r => new URL(r.url).pathname);
		const need = ["web/app.wasm", "web/worker.wasm", "web/matmul.wasm", "web/models.bin", "web/worker.js", "web/loader.js"];
		return need.every(n => urls.some(u => u.endsWith(n))) && urls.length;
	})()`, time.Minute)
}

// TestBrowserFirstVisit: with 4 workers, app.wasm, worker.wasm and the models bundle each cross the network
// once, the distinct files weigh at most 5 MB gzipped, a second visit moves at most 100 KB, and with the server
// gone the page reloads and explains from the service worker's cache.
func TestBrowserFirstVisit(t *testing.T) {
	chrome := findChrome(t)
	site := buildSite(t)
	srv := servePages(site)
	defer srv.Close()
	// With 1 and 2 workers first, each in a fresh browser: a first visit costs the same whatever the pool.
	for _, n := range []int{1, 2} {
		fresh := browser(t, chrome)
		do(t, fresh, chromedp.Navigate(fmt.Sprintf("%s/repo/?workers=%d", srv.URL, n)))
		waitFor(t, fresh, "the workers", fmt.Sprintf(`window.deltaclue && window.deltaclue.ready == %d`, n), time.Minute)
		waitCached(t, fresh)
		hits, sent := srv.snapshot()
		var total int64
		for _, b := range sent {
			total += b
		}
		t.Logf("first visit, %d worker(s): %d files, %.2f MB sent; the page's clock (ms): %s", n, len(hits), float64(total)/1e6,
			eval[string](t, fresh, `JSON.stringify(window.deltaclue.timing)`))
		for _, f := range []string{"/repo/web/app.wasm", "/repo/web/worker.wasm", "/repo/web/models.bin"} {
			if hits[f] != 1 {
				t.Errorf("%d workers: %s crossed the network %d times, want once", n, f, hits[f])
			}
		}
	}

	ctx := browser(t, chrome)
	start := time.Now()
	do(t, ctx, chromedp.Navigate(srv.URL+"/repo/?workers=4"))
	waitFor(t, ctx, "4 workers", `window.deltaclue && window.deltaclue.ready == 4`, time.Minute)
	cold := time.Since(start)
	t.Logf("the page's clock (ms since navigation): %s", eval[string](t, ctx, `JSON.stringify(window.deltaclue.timing)`))
	waitCached(t, ctx)
	hits, sent := srv.snapshot()

	var paths []string
	for p := range hits {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var total int64
	gz := 0
	for _, p := range paths {
		total += sent[p]
		file := filepath.Join(site, strings.TrimPrefix(p, "/repo/"))
		if st, err := os.Stat(file); err == nil && st.IsDir() {
			file = filepath.Join(file, "index.html")
		}
		size := gzipSize(t, file)
		gz += size
		t.Logf("  %-28s %d× %8d bytes sent (gzip -9: %8d)", p, hits[p], sent[p], size)
	}
	t.Logf("first visit, 4 workers: ready after %s; %d files, %.2f MB sent; distinct files %.2f MB gzipped (budget 5, target 4)",
		cold.Round(time.Millisecond), len(paths), float64(total)/1e6, float64(gz)/1e6)
	for _, f := range []string{"/repo/web/app.wasm", "/repo/web/worker.wasm", "/repo/web/models.bin"} {
		if hits[f] != 1 {
			t.Errorf("%s crossed the network %d times, want once", f, hits[f])
		}
	}
	if gz > 5_000_000 {
		t.Errorf("the first visit's distinct files weigh %d bytes gzipped, over the 5 MB budget", gz)
	}

	// A second visit: everything from the service worker's cache.
	do(t, ctx, chromedp.Navigate(srv.URL+"/repo/?workers=4&again=1"))
	waitFor(t, ctx, "4 workers again", `window.deltaclue && window.deltaclue.ready == 4`, time.Minute)
	_, sent = srv.snapshot()
	total = 0
	for _, n := range sent {
		total += n
	}
	t.Logf("second visit: %d bytes sent", total)
	if total > 100_000 {
		t.Errorf("a second visit moved %d bytes, over 100 KB", total)
	}

	// Offline: the server refuses everything; a reload still loads, explains a gallery digit, and finishes.
	srv.mu.Lock()
	srv.down = true
	srv.mu.Unlock()
	do(t, ctx, chromedp.Reload())
	waitFor(t, ctx, "the workers offline", `window.deltaclue && window.deltaclue.ready == 4`, time.Minute)
	do(t, ctx, chromedp.Click(chromedp.ID("tab-gallery")))
	do(t, ctx, chromedp.Click(chromedp.CSS(".thumb")))
	waitFor(t, ctx, "the model's view offline", `document.getElementById("pred-label")`, 30*time.Second)
	setField(t, ctx, "n", "20")
	do(t, ctx, chromedp.Click(chromedp.ID("run")))
	waitFor(t, ctx, "an explanation offline", `window.deltaclue.state == "done" && window.deltaclue.results == 20`, time.Minute)
	t.Log("offline: the page reloaded from the service worker's cache and explained a gallery digit")
}

// TestBrowserSlowFirstVisit reports (does not assert) the first visit's time on a 10 Mbit/s connection.
func TestBrowserSlowFirstVisit(t *testing.T) {
	if testing.Short() {
		t.Skip("a timing report, not a check: skipped with -short")
	}
	chrome := findChrome(t)
	srv := servePages(buildSite(t))
	defer srv.Close()
	ctx := browser(t, chrome)
	do(t, ctx, chromedp.Navigate("about:blank"))
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, network.EmulateNetworkConditionsByRule, network.EmulateNetworkConditionsByRuleParams{
		MatchedNetworkConditions: []*network.Conditions{{Latency: 20, DownloadThroughput: 10e6 / 8, UploadThroughput: 10e6 / 8}}}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	do(t, ctx, chromedp.Navigate(srv.URL+"/repo/?workers=2"))
	waitFor(t, ctx, "the workers on 10 Mbit/s", `window.deltaclue && window.deltaclue.ready == 2`, 3*time.Minute)
	t.Logf("first visit on a throttled 10 Mbit/s, 20 ms connection: workers ready after %s", time.Since(start).Round(time.Millisecond))
}

// TestBrowserCorruptModels: one byte of the models bundle changed: the page says so and runs nothing.
func TestBrowserCorruptModels(t *testing.T) {
	chrome := findChrome(t)
	broken := copySite(t, buildSite(t))
	path := filepath.Join(broken, "web", "models.bin")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/3] ^= 0x10
	os.WriteFile(path, b, 0o644)
	srv := servePages(broken)
	defer srv.Close()
	ctx := browser(t, chrome)
	do(t, ctx, chromedp.Navigate(srv.URL+"/repo/?workers=2"))
	msg := waitFor(t, ctx, "the bundle's failure", `document.getElementById("pool-error") && document.getElementById("pool-error").textContent`, time.Minute)
	if !strings.Contains(msg, "integrity check") || !strings.Contains(msg, "Nothing will run") {
		t.Errorf("the page says %s", msg)
	}
	time.Sleep(500 * time.Millisecond)
	if n := eval[int](t, ctx, `window.deltaclue.ready`); n != 0 {
		t.Errorf("%d workers started on a damaged bundle", n)
	}
	drawFour(t, ctx)
	if !eval[bool](t, ctx, `document.getElementById("run").disabled`) {
		t.Error("Explain is enabled with no models")
	}
}
