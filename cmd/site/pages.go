package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	deltaclue "github.com/deltaclue/deltaclue/app"
)

// siteRoot is the path the site lives under: "/" or "/<repo>/".
func siteRoot(repo string) string {
	if repo == "" {
		return "/"
	}
	return "/" + repo + "/"
}

// parseBaseURL checks the site's public address (nil when none is given): an absolute http(s) URL whose path
// is the one the site is built for.
func parseBaseURL(raw, repo string) (*url.URL, error) {
	if raw == "" {
		return nil, nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil {
		return nil, fmt.Errorf("the base URL %q is not an absolute http(s) address such as https://user.github.io/%s", raw, strings.TrimPrefix(siteRoot(repo), "/"))
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("the base URL %q has a query or a fragment; give the site's address alone", raw)
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	if u.Path != siteRoot(repo) {
		return nil, fmt.Errorf("the base URL %q lives under %s, but the site is built for %s (set REPO to match)", raw, u.Path, siteRoot(repo))
	}
	u.RawPath = ""
	return u, nil
}

var routes sync.Once

// writePages writes go-app's files (index.html, app.js, app-worker.js, the manifest…) into out and sets right
// what go-app cannot be told: the manifest's scope, the og: tags, and the pre-rendered page's boolean attributes.
func writePages(out, repo string, base *url.URL, version string, models []deltaclue.SiteModels) error {
	routes.Do(deltaclue.Routes)
	if err := app.GenerateStaticWebsite(out, deltaclue.Handler(repo, version, models)); err != nil {
		return err
	}
	edits := []struct {
		file string
		edit func([]byte) ([]byte, error)
	}{
		{"manifest.webmanifest", func(b []byte) ([]byte, error) { return fixManifest(b, siteRoot(repo)) }},
		{"index.html", func(b []byte) ([]byte, error) { return fixSocialTags(b, base) }},
		{"index.html", func(b []byte) ([]byte, error) { return fixBooleanAttributes(b), nil }},
	}
	for _, e := range edits {
		path := filepath.Join(out, e.file)
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if b, err = e.edit(b); err != nil {
			return fmt.Errorf("%s: %w", e.file, err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			return err
		}
	}
	if err := writeEmbedExample(out); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, ".nojekyll"), nil, 0o644)
}

// fixManifest gives the web app manifest the site's scope: go-app writes scope "/" with start_url "/<repo>",
// which claims the whole host for a site under /<repo>/, and a start URL that is not the page's own address.
// It also drops the icons' empty "purpose", which is not a valid value.
func fixManifest(b []byte, root string) ([]byte, error) {
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	m["scope"], m["start_url"] = root, root
	icons, _ := m["icons"].([]any)
	for _, i := range icons {
		if icon, ok := i.(map[string]any); ok && icon["purpose"] == "" {
			delete(icon, "purpose")
		}
	}
	return json.Marshal(m)
}

// goappSocialTag matches the og:url and og:image tags go-app writes (with the line they sit on); their
// attributes come in any order.
var goappSocialTag = regexp.MustCompile(`(\n[ \t]*)?<meta\s[^>]*\bproperty="og:(url|image)"[^>]*>`)

// fixSocialTags rewrites go-app's og:url and og:image, which it makes from a domain it is not given
// ("https://", "https:///repo"): absolute URLs under base, or no tags at all without one. It fails if go-app
// wrote anything else than one of each, so that a change in go-app's page cannot pass unseen.
func fixSocialTags(page []byte, base *url.URL) ([]byte, error) {
	seen := map[string]int{}
	out := goappSocialTag.ReplaceAllFunc(page, func(tag []byte) []byte {
		m := goappSocialTag.FindSubmatch(tag)
		name := string(m[2])
		seen[name]++
		if base == nil {
			return nil
		}
		content := base.String()
		if name == "image" {
			content = base.JoinPath("web", "icon-512.png").String()
		}
		return fmt.Appendf(nil, `%s<meta property="og:%s" content="%s">`, m[1], name, html.EscapeString(content))
	})
	if seen["url"] != 1 || seen["image"] != 1 {
		return nil, fmt.Errorf("go-app's page has %d og:url and %d og:image tags, want one of each", seen["url"], seen["image"])
	}
	return out, nil
}

// htmlTag matches a start tag; booleanFalse an HTML boolean attribute written as ="false", which HTML reads as
// set; ariaBare an aria-* attribute written with no value, which ARIA reads as not set.
var (
	htmlTag      = regexp.MustCompile(`<[a-zA-Z](?:[^<>"]|"[^"]*")*>`)
	booleanFalse = regexp.MustCompile(`\s(?:checked|disabled|hidden|open|selected|readonly|required|multiple|autofocus)="false"`)
	ariaBare     = regexp.MustCompile(`(\saria-[a-z]+)([\s/>])`)
)

// fixBooleanAttributes makes the HTML go-app pre-renders, the page's first paint, say what the page says once
// it runs: go-app writes Hidden(false) as hidden="false" (hidden, for HTML) and Aria("selected", true) as a bare
// aria-selected (false, for ARIA), so that the first paint hid the pad, opened every fold, ticked every box and
// selected every option. In the browser go-app sets these as properties, which is right.
func fixBooleanAttributes(page []byte) []byte {
	body := bytes.Index(page, []byte("<body"))
	if body < 0 {
		return page
	}
	fixed := htmlTag.ReplaceAllFunc(page[body:], func(tag []byte) []byte {
		tag = booleanFalse.ReplaceAll(tag, nil)
		for ariaBare.Match(tag) { // again: two bare attributes in a row share the space between them
			tag = ariaBare.ReplaceAll(tag, []byte(`$1="true"$2`))
		}
		return tag
	})
	return append(page[:body:body], fixed...)
}
