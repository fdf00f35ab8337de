//go:build !js

package main

// Serving a built site on 127.0.0.1 as a static host serves it: under /repo/ (as GitHub Pages serves a project
// site), every file compressed once ahead of time (gzip -9, or the build's own .gz next to it) and sent with
// Content-Encoding: gzip to a browser that accepts it, with Cache-Control: max-age=600, an ETag and
// Last-Modified (so a revalidation is a 304). Compressing ahead of time keeps gzip's CPU out of the timed runs,
// as on a real host, where the bytes come compressed from a cache.

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"mime"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// siteFile is one file of a served site: its bytes raw and gzipped, its type, ETag and date.
type siteFile struct {
	raw, gz []byte
	ctype   string
	etag    string
	mod     time.Time
}

// loadSite reads every file under dir and compresses it, keyed by its URL path ("/web/app.wasm"); a
// directory's index.html is also its directory's path ("/").
func loadSite(dir string) (map[string]*siteFile, error) {
	files := map[string]*siteFile{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, ".gz") {
			return err
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		st, err := d.Info()
		if err != nil {
			return err
		}
		f := &siteFile{raw: raw, mod: st.ModTime(), ctype: mime.TypeByExtension(filepath.Ext(p))}
		if f.ctype == "" {
			f.ctype = http.DetectContentType(raw)
		}
		sum := sha256.Sum256(raw)
		f.etag = `"` + hex.EncodeToString(sum[:8]) + `"`
		if gz, err := os.ReadFile(p + ".gz"); err == nil { // the build's own
			f.gz = gz
		} else {
			var z bytes.Buffer
			w, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
			w.Write(raw)
			w.Close()
			f.gz = z.Bytes()
		}
		rel, _ := filepath.Rel(dir, p)
		u := "/" + filepath.ToSlash(rel)
		files[u] = f
		if path.Base(u) == "index.html" {
			files[strings.TrimSuffix(u, "index.html")] = f
		}
		return nil
	})
	if err == nil && len(files) == 0 {
		err = fmt.Errorf("%s holds no files", dir)
	}
	return files, err
}

// siteHandler serves files under prefix ("/repo"), pre-compressed when the request accepts gzip.
func siteHandler(files map[string]*siteFile, prefix string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rel, ok := strings.CutPrefix(r.URL.Path, prefix)
		f := files[rel]
		if !ok || f == nil {
			http.NotFound(w, r)
			return
		}
		h := w.Header()
		h.Set("Content-Type", f.ctype)
		h.Set("Cache-Control", "max-age=600")
		h.Set("ETag", f.etag)
		h.Set("Vary", "Accept-Encoding")
		body := f.raw
		if acceptsGzip(r.Header.Get("Accept-Encoding")) {
			h.Set("Content-Encoding", "gzip")
			body = f.gz
		}
		http.ServeContent(w, r, "", f.mod, bytes.NewReader(body))
	})
}

// acceptsGzip reads an Accept-Encoding header: whether it lists gzip without q=0.
func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(name), "gzip") {
			return strings.ReplaceAll(strings.TrimSpace(params), " ", "") != "q=0"
		}
	}
	return false
}

// serveSite serves a site under /repo/ on 127.0.0.1, as GitHub Pages would, and returns its origin.
func serveSite(dir string) (*http.Server, string, error) {
	files, err := loadSite(dir)
	if err != nil {
		return nil, "", err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", err
	}
	mux := http.NewServeMux()
	mux.Handle("/repo/", siteHandler(files, "/repo"))
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	return srv, "http://" + ln.Addr().String(), nil
}
