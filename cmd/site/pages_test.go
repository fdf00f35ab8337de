package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	deltaclue "github.com/deltaclue/deltaclue/app"
	"github.com/deltaclue/deltaclue/weights"
)

// site writes go-app's pages as cmd/site does, for /<repo>/ (or the root) and a public address (or none).
func site(t *testing.T, repo, baseURL string) (page string, manifest map[string]any, worker string) {
	t.Helper()
	base, err := parseBaseURL(baseURL, repo)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if err := writePages(out, repo, base, "test", []deltaclue.SiteModels{{Description: weights.DigitsDescription(), Gallery: true, Global: true}}); err != nil {
		t.Fatal(err)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if err := json.Unmarshal([]byte(read("manifest.webmanifest")), &manifest); err != nil {
		t.Fatal(err)
	}
	return read("index.html"), manifest, read("app-worker.js")
}

var urlAttr = regexp.MustCompile(`\s(src|href)="([^"]*)"`)

func TestPages(t *testing.T) {
	for _, repo := range []string{"", "demo"} {
		root := siteRoot(repo)
		page, manifest, worker := site(t, repo, "")

		// The manifest's scope is the site's, and its start URL the page's own address.
		if manifest["scope"] != root || manifest["start_url"] != root {
			t.Errorf("%s: manifest scope %v, start_url %v, want %s for both", root, manifest["scope"], manifest["start_url"], root)
		}
		for _, i := range manifest["icons"].([]any) {
			icon := i.(map[string]any)
			if src := icon["src"].(string); !strings.HasPrefix(src, root+"web/") {
				t.Errorf("%s: manifest icon %s is not under %sweb/", root, src, root)
			}
			if p, ok := icon["purpose"]; ok && p != "maskable" && p != "any" {
				t.Errorf("%s: manifest icon %v has purpose %q", root, icon["src"], p)
			}
		}

		// Every URL in the page is a data: URL or under the site's root. The gallery's thumbnails are drawn when its
		// tab opens, not prerendered: a first visit does not download them (7 KB of index.html gzipped).
		thumbs := 0
		for _, m := range urlAttr.FindAllStringSubmatch(page, -1) {
			u := m[2]
			switch {
			case strings.HasPrefix(u, "data:image/png;base64,"):
				thumbs++
			case strings.Contains(u, "data:"):
				t.Errorf("%s: a data: URL was rewritten into %.60s…", root, u)
			case strings.HasPrefix(u, "https://"), strings.HasPrefix(u, "#"):
			case !strings.HasPrefix(u, root):
				t.Errorf("%s: %s=%q is not under the site's root", root, m[1], u)
			}
		}
		if thumbs != 0 {
			t.Errorf("%s: %d thumbnails with a data: URL prerendered, want none (the gallery draws them when opened)", root, thumbs)
		}

		// Without a public address, no og:url or og:image (they would not be absolute); the other og: tags stay.
		if strings.Contains(page, "og:url") || strings.Contains(page, "og:image") || strings.Contains(page, `"https://"`) {
			t.Errorf("%s: og:url or og:image written without a base URL", root)
		}
		if !strings.Contains(page, `property="og:title"`) {
			t.Errorf("%s: og:title is missing", root)
		}

		// The service worker's list, as its install step reads it, holds the root once.
		list := regexp.MustCompile(`const resourcesToCache = (\[.*\]);`).FindStringSubmatch(worker)
		if list == nil || strings.Contains(worker, "{{") {
			t.Fatalf("%s: app-worker.js is not filled in:\n%s", root, worker)
		}
		var files []string
		json.Unmarshal([]byte(list[1]), &files)
		seen := map[string]bool{}
		for _, f := range files {
			if f == root || f+"/" == root {
				f = root
			}
			if seen[f] {
				t.Errorf("%s: the service worker's list holds %s twice", root, f)
			}
			seen[f] = true
		}
		for _, f := range []string{"", "app.js", "web/app.wasm", "web/worker.wasm", "web/models.bin", "web/icon.svg"} {
			if !seen[root+f] {
				t.Errorf("%s: the service worker's list lacks %s: %v", root, root+f, files)
			}
		}
	}
}

func TestPagesBaseURL(t *testing.T) {
	for _, c := range []struct{ repo, base, url, image string }{
		{"", "https://example.org", "https://example.org/", "https://example.org/web/icon-512.png"},
		{"demo", "https://user.github.io/demo/", "https://user.github.io/demo/", "https://user.github.io/demo/web/icon-512.png"},
		{"demo", "http://127.0.0.1:8080/demo", "http://127.0.0.1:8080/demo/", "http://127.0.0.1:8080/demo/web/icon-512.png"},
	} {
		page, _, _ := site(t, c.repo, c.base)
		for prop, want := range map[string]string{"og:url": c.url, "og:image": c.image} {
			tag := `<meta property="` + prop + `" content="` + want + `">`
			if strings.Count(page, tag) != 1 || strings.Count(page, prop+`"`) != 1 {
				t.Errorf("base %s: want exactly one %s", c.base, tag)
			}
		}
	}
}

func TestParseBaseURL(t *testing.T) {
	for _, c := range []struct{ raw, repo, want, err string }{
		{"", "", "", ""},
		{"https://user.github.io/repo/", "repo", "https://user.github.io/repo/", ""},
		{"https://user.github.io/repo", "repo", "https://user.github.io/repo/", ""},
		{"https://example.org", "", "https://example.org/", ""},
		{"https://user.github.io/", "repo", "", "built for /repo/"},
		{"https://user.github.io/other/", "repo", "", "built for /repo/"},
		{"https://example.org/sub/", "", "", "built for /"},
		{"user.github.io/repo/", "repo", "", "not an absolute http(s) address"},
		{"ftp://example.org/", "", "", "not an absolute http(s) address"},
		{"https:///repo/", "repo", "", "not an absolute http(s) address"},
		{"https://example.org/?a=1", "", "", "query or a fragment"},
		{"https://example.org/#x", "", "", "query or a fragment"},
	} {
		u, err := parseBaseURL(c.raw, c.repo)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%q for %q: error %v, want one saying %q", c.raw, c.repo, err, c.err)
		case c.err == "" && err != nil:
			t.Errorf("%q for %q: %v", c.raw, c.repo, err)
		case c.err == "" && c.want == "" && u != nil:
			t.Errorf("%q: %v, want none", c.raw, u)
		case c.want != "" && (u == nil || u.String() != c.want):
			t.Errorf("%q: %v, want %s", c.raw, u, c.want)
		}
	}
}

// fixSocialTags takes go-app's tags whatever the order of their attributes, and refuses a page that lacks one.
func TestFixSocialTags(t *testing.T) {
	base, _ := parseBaseURL("https://u.github.io/r/", "r")
	page := "<head>\n    <meta content=\"https:///r\" property=\"og:url\">\n    <meta property=\"og:title\" content=\"t\">\n" +
		"    <meta property=\"og:image\" content=\"https://\">\n</head>"
	got, err := fixSocialTags([]byte(page), base)
	want := "<head>\n    <meta property=\"og:url\" content=\"https://u.github.io/r/\">\n    <meta property=\"og:title\" content=\"t\">\n" +
		"    <meta property=\"og:image\" content=\"https://u.github.io/r/web/icon-512.png\">\n</head>"
	if err != nil || string(got) != want {
		t.Errorf("got %q, %v", got, err)
	}
	got, err = fixSocialTags([]byte(page), nil)
	if want := "<head>\n    <meta property=\"og:title\" content=\"t\">\n</head>"; err != nil || string(got) != want {
		t.Errorf("without a base: got %q, %v", got, err)
	}
	if _, err := fixSocialTags([]byte("<head><meta property=\"og:title\" content=\"t\"></head>"), base); err == nil {
		t.Error("a page without og:url and og:image passed")
	}
}

// The first paint says what the running page says: no boolean attribute set by "false", no bare aria-* (which
// ARIA reads as unset); values and the head are left alone.
func TestFixBooleanAttributes(t *testing.T) {
	page := `<head><meta name="author" content></head>
<body><div class="tab-panel" hidden="false"><canvas id="pad"></canvas></div><div hidden>x</div>
<button role="tab" aria-selected aria-current>Draw</button><button aria-selected="false" disabled="false" title="a > b" hidden="false">G</button>
<details open="false"><summary>s</summary></details><input type="checkbox" checked="false" aria-invalid/><option selected="false" value="x">x</option>
<p>hidden="false" in a text stays</p></body>`
	want := `<head><meta name="author" content></head>
<body><div class="tab-panel"><canvas id="pad"></canvas></div><div hidden>x</div>
<button role="tab" aria-selected="true" aria-current="true">Draw</button><button aria-selected="false" title="a > b">G</button>
<details><summary>s</summary></details><input type="checkbox" aria-invalid="true"/><option value="x">x</option>
<p>hidden="false" in a text stays</p></body>`
	if got := string(fixBooleanAttributes([]byte(page))); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// The site's own page: the pad is shown, every fold closed, and every select shows its first choice at most once.
	page, _, _ = site(t, "", "")
	if m := regexp.MustCompile(`\s(checked|disabled|hidden|open|selected)="false"`).FindString(page); m != "" {
		t.Errorf("the page still has %s", m)
	}
	if !regexp.MustCompile(`<div class="tab-panel[^"]*">\s*<canvas[^>]*id="pad"`).MatchString(page) {
		t.Error("the pre-rendered pad is hidden")
	}
}
