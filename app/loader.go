package app

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/app/webjs"
)

// modelsState is what the page knows of the models, and what it has of them: the assets web/loader.js compiled
// and checked, the bundle's download, what the workers say they run, and when each of these happened; the
// input's amortised answers (their translations') and the global view (their groups). What they are (their
// description: the input, the classes) is served() (model.go).
type modelsState struct {
	amortised amortisedView // the input's amortised answers: published, painted, awaited (amortised.go)
	global    globalState   // the global view: GLAM-CLUE's groups, fetched when asked (panel_global.go)

	assets      app.Value  // the compiled worker and kernel and the checked models bundle (web/loader.js)
	loaded      int        // bytes of the models bundle fetched so far
	total       int        // its size
	version     string     // the page's build
	fingerprint uint32     // the models' fingerprint, as the workers report it
	name        string     // the models' name (their description's), as the workers report it
	stale       bool       // a worker runs another build than the page
	offline     offlineUse // whether the browser lets the page be kept for offline use (web/loader.js)
	// when the page mounted, loaded and checked the models, had every worker ready, adopted the loader's early
	// run (ms since navigation; nil before the page mounts)
	timing map[string]float64
}

// ModelsFile is where the site serves the default models' bundle; another models' is in web/<name>/ (file).
// The page refuses a bundle whose SHA-256 is not the one its description of the models gives.
const ModelsFile = "/web/models.bin"

// loadAssets fetches and compiles the workers' files once for the page (web/loader.js), checks the models
// bundle against the build's SHA-256, and then starts n workers on them. While it loads, the page works: the
// drawing pad, the gallery and uploads need no workers.
func (e *Explainer) loadAssets(ctx app.Context, n int) {
	m := served()
	e.models.total = m.bytes
	e.models.timing = map[string]float64{"mounted": now()}
	page := "/web/app.wasm"
	if !tablesLeftOut && m.app { // the page of models of rows, in their folder
		page = m.file("app.wasm")
	}
	urls := map[string]any{
		"worker": ctx.ResolveStaticResource(m.file("worker.wasm")), "kernel": ctx.ResolveStaticResource(m.file("matmul.wasm")),
		"models": ctx.ResolveStaticResource(m.file("models.bin")), "app": ctx.ResolveStaticResource(page),
	}
	lastShown := time.Time{}
	progress := webjs.FuncOf(func(_ app.Value, args []app.Value) any {
		loaded := args[0].Int()
		if time.Since(lastShown) < 100*time.Millisecond && loaded < e.models.total {
			return nil
		}
		lastShown = time.Now()
		ctx.Dispatch(func(app.Context) { e.models.loaded = loaded })
		return nil
	})
	load := app.Window().Get("deltaclueLoad")
	if load.IsUndefined() {
		e.workers.err = "The page's loader (web/loader.js) is missing: reload the page."
		progress.Release()
		return
	}
	webjs.Promise(load.Invoke(urls, "app-"+app.Getenv("GOAPP_VERSION"), progress), func(assets app.Value) {
		progress.Release()
		loadedAt := now()
		// The loader hashed the bundle natively (SubtleCrypto); in Go, on the page's thread, it was a task of
		// 20–45 ms, four times that on a slow phone. Go copies and hashes it only where the browser could not.
		size, hash := assets.Get("models").Get("byteLength").Int(), ""
		if d := assets.Get("digest"); d.Type() == app.TypeString {
			hash = d.String()
		}
		if hash == "" {
			sum := sha256.Sum256(webjs.Bytes(assets.Get("models")))
			hash = hex.EncodeToString(sum[:])
		}
		checked := now()
		ctx.Dispatch(func(ctx app.Context) {
			e.models.timing["loaded"], e.models.timing["checked"] = loadedAt, checked
			e.models.loaded = size
			if got, want := hash, m.sha256; want != "" && got != want {
				e.workers.err = fmt.Sprintf("The models bundle (web/%smodels.bin) failed its integrity check: its SHA-256 is %.12s…, "+
					"this build expects %.12s…. Nothing will run on it. Reload the page; if this persists, the site is damaged.", m.dir, got, want)
				if early := assets.Get("pool"); early.Truthy() {
					early.Call("terminate") // the loader's workers started on it before the check
				}
				return
			}
			e.models.assets = assets
			if w, ok := e.settings.Workers(); ok { // changed while loading
				n = w
			}
			e.startPool(ctx, n)
		})
	}, func(msg string) {
		progress.Release()
		ctx.Dispatch(func(app.Context) {
			e.workers.err = "The search workers could not start: " + msg + ". Check the connection and reload the page."
		})
	})
}

// now is the page's clock: milliseconds since the navigation started (performance.now).
func now() float64 { return app.Window().Get("performance").Call("now").Float() }

// timeOrigin is when the page's clock (now) started, in ms since the Unix epoch: a worker's clock differs by
// the two origins.
func timeOrigin() float64 { return app.Window().Get("performance").Get("timeOrigin").Float() }
