package app

import (
	_ "embed"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// Routes registers the page's components (the same in the browser and in the static-site generator).
func Routes() {
	app.Route("/", func() app.Composer { return &Explainer{} })
}

// WorkerFiles are the search worker's files, served from web/ beside app.wasm: the service worker caches them
// under the page's version, so a deploy never pairs a new page with an old worker or the reverse.
var WorkerFiles = []string{"/web/worker.js", "/web/wasm_exec.js", "/web/worker.wasm", "/web/matmul.wasm", ModelsFile}

// serviceWorker is the site's app-worker.js template (see the file for how it caches).
//
//go:embed app-worker.js
var serviceWorker string

// Handler describes the site to go-app. repo, if non-empty, makes a site for GitHub Pages under /<repo>/;
// version is the build's content hash, the service worker's cache key.
func Handler(repo, version string) *app.Handler {
	var res app.ResourceResolver = app.LocalDir("")
	if repo != "" {
		res = app.GitHubPages(repo)
	}
	return &app.Handler{
		Name:                  "deltaclue",
		ShortName:             "deltaclue",
		Title:                 "deltaclue: why is the model unsure?",
		Description:           "δ-CLUE in the browser: diverse, nearby, confident alternatives that explain a Bayesian neural network's uncertainty about a handwritten digit.",
		Lang:                  "en",
		Icon:                  app.Icon{Default: "/web/icon-192.png", Large: "/web/icon-512.png", SVG: "/web/icon.svg"},
		ThemeColor:            "#1d4ed8",
		BackgroundColor:       "#ffffff",
		LoadingLabel:          "Loading deltaclue {progress}%",
		Styles:                []string{"/web/app.css"},
		Scripts:               []string{"/web/loader.js"},
		ServiceWorkerTemplate: serviceWorker,
		Resources:             res,
		Version:               version,
		CacheableResources:    WorkerFiles,
	}
}
