//go:build !js

package app

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	drive "github.com/deltaclue/deltaclue/internal/browser"
)

// deniedHostPage embeds the explainer at %[1]s (another site's address) and, once the frame has loaded, asks it
// to open the link %[2]s; it keeps every message the frame sends (window.said(type)).
const deniedHostPage = `<!doctype html><html><head><meta charset="utf-8"><title>a course page</title></head><body style="margin:0">
<iframe id="f" src="%[1]s?embed=1" style="width:760px;height:720px;border:0"></iframe>
<script>
  window.heard = [];
  const f = document.getElementById("f");
  window.addEventListener("message", (e) => { if (e.source === f.contentWindow) window.heard.push(e.data); });
  f.addEventListener("load", () => f.contentWindow.postMessage({type: "deltaclue:open", link: %[2]q, id: "open"}, "*"));
  window.said = (type) => window.heard.filter((d) => d && d.type === type);
</script></body></html>`

// storageServer serves a site as a static host does, counting the requests for each file of it.
type storageServer struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int
}

func serveCounted(dir, prefix string) *storageServer {
	s := &storageServer{hits: map[string]int{}}
	h := serveAt(dir, prefix).Config.Handler
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[strings.TrimPrefix(r.URL.Path, prefix)]++
		s.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	return s
}

func (s *storageServer) count(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

// TestBrowserStorageDenied, in Chromium, Firefox and WebKitGTK, at /repo/ and at the root: the page and the embed
// run where the browser denies them storage (localStorage, sessionStorage, IndexedDB, the Cache API, service
// workers), and lose only offline use.
//   - A host page on another site (localhost, against the explainer on 127.0.0.1) embeds the explainer in a
//     browser that denies third-party frames their storage, and sends it deltaclue:open: it hears ready and done,
//     with the native engine's counts per label. The frame never asks for the service worker (the loader found
//     its storage denied: so the browser did deny it), and shows no note about it.
//   - A top-level visit in a browser that denies every site its storage opens a link: the native set, bit for
//     bit, and "What am I looking at?" says in one sentence that the page will not work offline.
//
// WebKitGTK has no setting that denies storage to third-party frames alone (it partitions it): there both visits
// run with storage denied to every page (drive.StorageNoThirdParty).
func TestBrowserStorageDenied(t *testing.T) {
	_, link := embedLink(t)
	sites := []struct{ name, repo, prefix string }{{"subpath", "repo", "/repo"}, {"root", "", ""}}
	dirs := map[string]string{"repo": buildSite(t), "": buildSiteFor(t, "")}
	native, _ := nativeReport(t, "#"+link)
	want := make([]int, 10)
	for _, x := range native {
		if x.Accepted {
			want[x.Label]++
		}
	}
	for _, engine := range drive.Engines {
		t.Run(engine, func(t *testing.T) {
			framed := startEngineWith(t, engine, drive.Options{Width: 900, Height: 900, Storage: drive.StorageNoThirdParty})
			blocked := startEngineWith(t, engine, drive.Options{Storage: drive.StorageNone})
			for _, site := range sites {
				t.Run(site.name, func(t *testing.T) {
					srv := serveCounted(dirs[site.repo], site.prefix)
					defer srv.Close()
					frameURL := srv.URL + site.prefix + "/" // http://127.0.0.1:port/…
					host := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						w.Header().Set("Content-Type", "text/html; charset=utf-8")
						fmt.Fprintf(w, deniedHostPage, frameURL, "#"+link)
					}))
					defer host.Close()
					hostURL := strings.Replace(host.URL, "127.0.0.1", "localhost", 1) + "/" // another site
					name := framed.Engine() + " at " + site.prefix + "/"

					// The embed on another site's page.
					engineDo(t, framed, "opening the host page", func(ctx context.Context) error { return framed.Navigate(ctx, hostURL) })
					engineWait(t, framed, "the frame's ready", `window.said("deltaclue:ready").length == 1`, 2*time.Minute)
					done := engineWait(t, framed, "the frame's set", `window.said("deltaclue:done")[0]`, 2*time.Minute)
					var d struct {
						Sentence, Link string
						ID             any
						Labels         []int
					}
					if err := json.Unmarshal(done, &d); err != nil {
						t.Fatal(err)
					}
					if fmt.Sprint(d.Labels) != fmt.Sprint(want) || d.ID != "open" || !strings.HasPrefix(d.Sentence, "The model reads a 7") ||
						!strings.HasPrefix(d.Link, frameURL) {
						t.Errorf("%s: the frame's done message %s: want the counts per label %v, id \"open\" and a link to %s", name, done, want, frameURL)
					}
					if errs := engineEval[json.RawMessage](t, framed, `window.said("deltaclue:error")`); string(errs) != "[]" {
						t.Errorf("%s: the frame sent errors: %s", name, errs)
					}
					if n := srv.count("/app-worker.js"); n != 0 {
						t.Errorf("%s: the frame asked for its service worker %d times: its storage was not denied, or the loader did not see it", name, n)
					}
					t.Logf("%s: a frame on another site, storage denied: ready, then %s", name, done)

					// A top-level visit with every site's storage denied.
					engineDo(t, blocked, "opening the link", func(ctx context.Context) error {
						return blocked.Navigate(ctx, frameURL+"#"+link)
					})
					run := engineFinished(t, blocked, "the link's set, storage denied")
					sameAsNative(t, name+", storage denied", run)
					note := engineWait(t, blocked, "the offline note", `document.getElementById("offline-note") && document.getElementById("offline-note").textContent`, 30*time.Second)
					if got, wantNote := strings.Trim(string(note), `"`), (offlineUse{Known: true, Reason: "denied"}).Sentence(); got != wantNote {
						t.Errorf("%s: the offline note says %q, want %q", name, got, wantNote)
					}
					if n := srv.count("/app-worker.js"); n != 0 {
						t.Errorf("%s: the page asked for its service worker %d times with storage denied", name, n)
					}
					reason := engineEval[string](t, blocked, `document.getElementById("offline-note").title`)
					t.Logf("%s: top level, storage denied: %d explanations, the native set; why no offline use: %s", name, len(run.Report.Explanations), reason)
				})
			}
		})
	}
}
