package app

import (
	_ "embed"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/internal/gallery"
	"github.com/deltaclue/deltaclue/internal/plural"
)

// Routes registers the page's components (the same in the browser and in the static-site generator).
func Routes() {
	app.Route("/", func() app.Composer { return &Explainer{} })
}

// WorkerFiles are the search worker's files for the default models (worker.wasm, the kernel matmul.wasm
// built for their layers, models.bin), served from web/ beside app.wasm: the
// service worker caches them under the page's version, so a deploy never pairs a new page with an old worker or
// the reverse. Other models' workers and bundles (web/<name>/) it keeps once a page has run them.
var WorkerFiles = []string{"/web/worker.js", "/web/worker.wasm", "/web/matmul.wasm", ModelsFile}

// serviceWorker is the site's app-worker.js template (see the file for how it caches).
//
//go:embed app-worker.js
var serviceWorker string

// Handler describes the site to go-app. repo, if non-empty, makes a site for GitHub Pages under /<repo>/;
// version is the build's content hash, the service worker's cache key; models are the models the site serves,
// the default first, which the page reads from go-app's environment (ModelsEnv).
func Handler(repo, version string, models []SiteModels) *app.Handler {
	page := PageDescriptions(models)
	servedOnce.Do(func() { servedDesc = chooseModels(page, "") }) // what the pre-rendered page shows
	env := map[string]string{ModelsEnv: page}
	cacheable := append([]string{"/web/icon.svg"}, WorkerFiles...)
	if models[0].Gallery {
		cacheable = append(cacheable, gallery.File) // the gallery works offline
	}
	var titles []string
	for _, m := range models {
		titles = append(titles, m.Description.Title)
	}
	var res app.ResourceResolver = app.LocalDir("")
	if repo != "" {
		res = app.GitHubPages(repo)
	}
	res = resources{res}
	return &app.Handler{
		Name:      "deltaclue",
		ShortName: "deltaclue",
		Title:     "deltaclue: why is the model unsure?",
		Description: "δ-CLUE in the browser: diverse, nearby, confident alternatives that explain a Bayesian neural network's uncertainty about " +
			served().aNoun() + " (" + plural.List(titles) + ").",
		Env:  env,
		Lang: "en",
		// The icon keeps its drawing inside the central circle a maskable icon needs; go-app lists the maskable
		// icon as 512×512, so it must be the large one.
		Icon:                  app.Icon{Default: "/web/icon-192.png", Large: "/web/icon-512.png", Maskable: "/web/icon-512.png", SVG: "/web/icon.svg"},
		ThemeColor:            "#1d4ed8",
		BackgroundColor:       "#ffffff",
		LoadingLabel:          "Loading deltaclue {progress}%",
		Styles:                []string{"/web/app.css"},
		Scripts:               []string{"/web/loader.js"},
		ServiceWorkerTemplate: StripLineComments(serviceWorker),
		Resources:             res,
		Version:               version,
		// go-app caches the PNG icons but not the SVG one, the page's favicon.
		CacheableResources: cacheable,
	}
}

// resources resolves the site's paths as go-app's resolver does (under /<repo>/ for GitHub Pages), and leaves
// alone every URL with a scheme and every reference within the page (#…, ?…), as go-app's resolver in the
// browser does: on the server go-app's resolvers prefix all but http(s) URLs, so the gallery's thumbnails (data:
// URLs) were pre-rendered as /<repo>data:image/png;…, 24 requests that failed on every visit.
type resources struct{ app.ResourceResolver }

func (r resources) Resolve(location string) string {
	if hasScheme(location) || strings.HasPrefix(location, "#") || strings.HasPrefix(location, "?") {
		return location
	}
	return r.ResourceResolver.Resolve(location)
}

// hasScheme reports whether s starts with a URL scheme (data:, blob:, https:, mailto:…), as an absolute URL does.
func hasScheme(s string) bool {
	for i, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return true
		default:
			return false
		}
	}
	return false
}

// StripLineComments drops a script's whole-line comments (lines whose first non-blank characters are "//"),
// which explain it in the repository but cost a first visit 4 KB gzipped over the site's three scripts. Code and
// comments after code are left as they are, so nothing it does changes.
func StripLineComments(js string) string {
	lines := strings.Split(js, "\n")
	kept := lines[:0]
	for _, l := range lines {
		if !strings.HasPrefix(strings.TrimSpace(l), "//") {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "\n")
}

// CompactJS drops a script's indentation, its blank lines and its whole-line // comments, but, with keepHead,
// for the comment block it opens with (a copyright notice). Lines are kept apart, so no statement runs into
// another; it is for scripts without multi-line strings or template literals (Go's wasm_exec.js: 0.9 KB less
// gzipped on a first visit, the site's own loader and worker 0.2 KB).
func CompactJS(js string, keepHead bool) string {
	lines := strings.Split(js, "\n")
	kept := lines[:0]
	head := keepHead
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if head && strings.HasPrefix(t, "//") {
			kept = append(kept, t)
			continue
		}
		head = false
		if t != "" && !strings.HasPrefix(t, "//") {
			kept = append(kept, t)
		}
	}
	return strings.Join(kept, "\n") + "\n"
}

// StripCSSComments drops a style sheet's comments (/* … */ outside quoted strings) and the blank lines they
// leave: they explain web/app.css in the repository but cost a first visit 1.1 KB gzipped. Nothing else changes.
func StripCSSComments(css string) string {
	var b strings.Builder
	var quote byte
	for i := 0; i < len(css); i++ {
		c := css[i]
		switch {
		case quote != 0:
			if c == '\\' && i+1 < len(css) {
				b.WriteByte(c)
				i++
				c = css[i]
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '/' && i+1 < len(css) && css[i+1] == '*':
			end := strings.Index(css[i+2:], "*/")
			if end < 0 {
				return b.String()
			}
			i += 2 + end + 1
			continue
		}
		b.WriteByte(c)
	}
	lines := strings.Split(b.String(), "\n")
	kept := lines[:0]
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "\n") + "\n"
}
