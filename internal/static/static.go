// Package static serves a built site as a static host does: files under a path prefix, every one revalidated
// (so a rebuilt site is picked up), and the gzip copy that cmd/site writes beside each large file (name.gz)
// served in its place to a browser that accepts gzip, as GitHub Pages and most hosts compress what they serve;
// a copy older than its file is ignored.
package static

import (
	"mime"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Handler serves dir under prefix ("" or "/" for the root).
func Handler(dir, prefix string) http.Handler {
	prefix = "/" + strings.Trim(prefix, "/")
	if prefix != "/" {
		prefix += "/"
	}
	files := http.FileServer(http.Dir(dir))
	serve := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		w.Header().Add("Vary", "Accept-Encoding")
		name := path.Clean("/" + r.URL.Path)
		if strings.HasSuffix(r.URL.Path, "/") {
			name = path.Join(name, "index.html")
		}
		if file := filepath.Join(dir, filepath.FromSlash(name)); acceptsGzip(r) && freshCopy(file, file+".gz") {
			gz := file + ".gz"
			ctype := mime.TypeByExtension(path.Ext(name))
			if ctype == "" {
				ctype = "application/octet-stream"
			}
			w.Header().Set("Content-Type", ctype)
			w.Header().Set("Content-Encoding", "gzip")
			http.ServeFile(w, r, gz)
			return
		}
		files.ServeHTTP(w, r)
	})
	if prefix == "/" {
		return serve
	}
	mux := http.NewServeMux()
	mux.Handle(prefix, http.StripPrefix(strings.TrimSuffix(prefix, "/"), serve))
	return mux
}

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		if enc, q, _ := strings.Cut(strings.TrimSpace(part), ";"); strings.TrimSpace(enc) == "gzip" && strings.TrimSpace(q) != "q=0" {
			return true
		}
	}
	return false
}

// freshCopy says whether gz is a regular file written no earlier than file: a copy older than its file (a
// file changed after the build, as tests do) is not served for it.
func freshCopy(file, gz string) bool {
	z, err := os.Stat(gz)
	if err != nil || !z.Mode().IsRegular() {
		return false
	}
	f, err := os.Stat(file)
	return err == nil && !z.ModTime().Before(f.ModTime())
}
