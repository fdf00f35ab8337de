package static

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestHandlerServesTheGzipCopy(t *testing.T) {
	dir := t.TempDir()
	body := bytes.Repeat([]byte("deltaclue "), 1000)
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(body)
	zw.Close()
	os.MkdirAll(filepath.Join(dir, "web"), 0o755)
	os.WriteFile(filepath.Join(dir, "web", "app.wasm"), body, 0o644)
	os.WriteFile(filepath.Join(dir, "web", "app.wasm.gz"), z.Bytes(), 0o644)
	os.WriteFile(filepath.Join(dir, "index.html"), []byte("<p>page</p>"), 0o644)
	os.WriteFile(filepath.Join(dir, "index.html.gz"), z.Bytes(), 0o644) // not the page: shows which was served
	os.WriteFile(filepath.Join(dir, "plain.txt"), []byte("plain"), 0o644)

	for _, prefix := range []string{"", "/repo"} {
		srv := httptest.NewServer(Handler(dir, prefix))
		get := func(p, enc string) *http.Response {
			req, _ := http.NewRequest("GET", srv.URL+prefix+p, nil)
			if enc != "" {
				req.Header.Set("Accept-Encoding", enc)
			}
			resp, err := http.DefaultTransport.RoundTrip(req) // no transparent decompression
			if err != nil {
				t.Fatal(err)
			}
			return resp
		}
		resp := get("/web/app.wasm", "gzip, deflate, br")
		b, _ := io.ReadAll(resp.Body)
		if resp.Header.Get("Content-Encoding") != "gzip" || resp.Header.Get("Content-Type") != "application/wasm" || !bytes.Equal(b, z.Bytes()) {
			t.Errorf("%q: app.wasm to a gzip browser: %q %q, %d bytes", prefix, resp.Header.Get("Content-Encoding"), resp.Header.Get("Content-Type"), len(b))
		}
		resp = get("/web/app.wasm", "")
		b, _ = io.ReadAll(resp.Body)
		if resp.Header.Get("Content-Encoding") != "" || !bytes.Equal(b, body) {
			t.Errorf("%q: app.wasm without gzip: %q, %d bytes", prefix, resp.Header.Get("Content-Encoding"), len(b))
		}
		resp = get("/web/app.wasm", "gzip;q=0")
		if resp.Header.Get("Content-Encoding") != "" {
			t.Errorf("%q: gzip;q=0 got gzip", prefix)
		}
		resp = get("/", "gzip")
		if resp.Header.Get("Content-Encoding") != "gzip" || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" {
			t.Errorf("%q: / : %q %q", prefix, resp.Header.Get("Content-Encoding"), resp.Header.Get("Content-Type"))
		}
		resp = get("/plain.txt", "gzip")
		b, _ = io.ReadAll(resp.Body)
		if resp.Header.Get("Content-Encoding") != "" || string(b) != "plain" || resp.Header.Get("Cache-Control") != "no-cache" {
			t.Errorf("%q: plain.txt: %q %q", prefix, resp.Header.Get("Content-Encoding"), b)
		}
		// A file changed after its copy was written is served as it is now.
		later := time.Now().Add(time.Minute)
		os.Chtimes(filepath.Join(dir, "web", "app.wasm"), later, later)
		resp = get("/web/app.wasm", "gzip")
		b, _ = io.ReadAll(resp.Body)
		if resp.Header.Get("Content-Encoding") != "" || !bytes.Equal(b, body) {
			t.Errorf("%q: a stale gzip copy was served for a changed file", prefix)
		}
		os.Chtimes(filepath.Join(dir, "web", "app.wasm"), time.Now().Add(-time.Hour), time.Now().Add(-time.Hour))
		if resp := get("/../../etc/passwd.gz", "gzip"); resp.StatusCode == 200 {
			t.Errorf("%q: a path out of the site was served", prefix)
		}
		srv.Close()
	}
}
