// Command site builds the explainer as a static site (what `make serve` and `make site` run): the page's
// app.wasm (go-app) and the search worker's worker.wasm (engine, search and models; no go-app, no gomlx), the
// worker's loader and SIMD kernel, styles and icons, and go-app's index.html, loader and service worker, all
// under one content-hash version.
//
//	go run ./cmd/site -out build/site               # a site served at /, offering the digits, the clothes and the credit applicants
//	go run ./cmd/site -out build/site -repo NAME    # a site for GitHub Pages under /NAME/
//	go run ./cmd/site -repo NAME -base-url https://USER.github.io/NAME/   # and its public address, for link previews
//	go run ./cmd/site -models DIR                   # a site explaining other models (a folder or a bundle file)
//	go run ./cmd/site -models digits,fashion        # a site offering several models, the first the default
//
// The page's og: tags (what a chat app or a social network shows for a shared link) must be absolute URLs: they
// are written when the build is told the site's public address (-base-url), and left out otherwise.
package main

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io/fs"
	"log"
	"math"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	deltaclue "github.com/deltaclue/deltaclue/app"
	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/glam"
	"github.com/deltaclue/deltaclue/engine/kernel"
	"github.com/deltaclue/deltaclue/internal/gallery"
	"github.com/deltaclue/deltaclue/internal/modelsource"
	"github.com/deltaclue/deltaclue/weights"
)

func main() {
	out := flag.String("out", "build/site", "folder to write the site into (replaced)")
	repo := flag.String("repo", "", "GitHub Pages repository name: the site then lives under /<repo>/")
	baseURL := flag.String("base-url", "", "the site's public address, e.g. https://user.github.io/<repo>/ (for the og: tags of link previews)")
	modelsSpec := flag.String("models", "digits,fashion,credit", "the models the site explains, separated by commas, the first the default: "+
		"digits or fashion (the shipped ones), a models folder (model.json and its .dcw files) or a bundle file")
	flag.Parse()
	base, err := parseBaseURL(*baseURL, *repo)
	if err != nil {
		log.Fatal("site: ", err)
	}
	served, err := openModels(*modelsSpec)
	if err != nil {
		log.Fatal("site: ", err)
	}
	if err := build(*out, *repo, base, served); err != nil {
		log.Fatal("site: ", err)
	}
}

// openModels opens the models a comma-separated list names, each once by name.
func openModels(specs string) ([]*modelsource.Models, error) {
	var all []*modelsource.Models
	seen := map[string]string{}
	for _, spec := range strings.Split(specs, ",") {
		spec = strings.TrimSpace(spec)
		if spec == "" {
			continue
		}
		m, err := modelsource.Open(spec)
		if err != nil {
			return nil, err
		}
		if other, ok := seen[m.Name()]; ok {
			return nil, fmt.Errorf("%s and %s are both called %q: a site serves each models' name once", other, spec, m.Name())
		}
		seen[m.Name()] = spec
		all = append(all, m)
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("-models names no models")
	}
	return all, nil
}

func build(out, repo string, base *url.URL, served []*modelsource.Models) error {
	if _, err := os.Stat("go.mod"); err != nil {
		return fmt.Errorf("run from the repository's root (no go.mod here)")
	}
	version, err := sourceHash()
	if err != nil {
		return err
	}
	// The source covers the shipped models' files; a site of other models is another build, whose version (what
	// the service worker caches the files under) covers their bundles too.
	if len(served) > 1 || !bytes.Equal(served[0].Bytes, weights.ShippedBundle()) {
		h := sha256.New()
		h.Write([]byte(version))
		for _, m := range served {
			fmt.Fprintf(h, "%d\n", len(m.Bytes))
			h.Write(m.Bytes)
		}
		version = hex.EncodeToString(h.Sum(nil))[:12]
	}
	if err := os.RemoveAll(out); err != nil {
		return err
	}
	web := filepath.Join(out, "web")
	if err := os.MkdirAll(web, 0o755); err != nil {
		return err
	}
	// Both binaries are built without inlining (-l), the worker except in the engine, whose loops it speeds up:
	// the page's UI and go-app do not need it, and a binary without it is larger raw but compresses better (measured:
	// app.wasm 2.71 → 2.58 MB gzipped, worker.wasm 1.16 → 1.09 MB), which is what a first visit downloads.
	const lean = "-gcflags=all=-l"
	const engineInlined = "-gcflags=github.com/deltaclue/deltaclue/engine/...="
	// The link codec, the figures and the raster live beside the explanation (engine/clue/…) but are no search:
	// lean like the page (inlined, they cost the first visit 12 KB gzipped). So are δ-CLUE's and GLAM-CLUE's own
	// packages (engine/clue, engine/glam): their loops call the engine's, whose inlining is what a step needs
	// (lean, the digits' worker is 3.5 KB gzipped smaller, and a digits set of 50 × 100 steps under Node took
	// 410–468 ms against 451–465 inlined, alternating).
	leanBeside := []string{"-gcflags=github.com/deltaclue/deltaclue/engine/clue=-l", "-gcflags=github.com/deltaclue/deltaclue/engine/glam=-l",
		"-gcflags=github.com/deltaclue/deltaclue/engine/clue/sharelink=-l",
		"-gcflags=github.com/deltaclue/deltaclue/engine/clue/figures=-l", "-gcflags=github.com/deltaclue/deltaclue/engine/clue/raster=-l"}
	wasm := func(dst, pkg string, tags string, ldflags string) error {
		args := append([]string{"build", "-trimpath", lean, engineInlined}, leanBeside...)
		if pkg == "./wasm/app" {
			// The page runs no search: the engine's code it holds (a small set's summary) is as lean as the rest
			// of it (0.5 KB gzipped less than inlined).
			args = []string{"build", "-trimpath", lean}
		}
		args = append(args, "-ldflags", "-s -w "+ldflags, "-o", filepath.Join(web, dst))
		if tags != "" {
			args = append(args, "-tags", tags)
		}
		cmd := exec.Command("go", append(args, pkg)...)
		cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
		if b, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("building %s: %v\n%s", pkg, err, b)
		}
		return nil
	}
	// The page is built for the kinds of input it shows: when the default models classify images, app.wasm leaves
	// the table's kind and regression out (build tag imagesonly; a first visit is the default models' page), and
	// models of rows or of a number get a page of their own in their folder, which the loader fetches for their
	// address.
	imagesOnly := !served[0].Description().FullPage()
	appTags := ""
	if imagesOnly {
		appTags = "imagesonly"
	}
	if err := wasm("app.wasm", "./wasm/app", appTags, ""); err != nil {
		return err
	}
	var site []deltaclue.SiteModels
	for i, m := range served {
		sm, err := writeModels(web, i, m, version, wasm)
		if err != nil {
			return fmt.Errorf("the %q models: %w", m.Name(), err)
		}
		if sm.App = imagesOnly && m.Description().FullPage(); sm.App {
			if err := wasm(filepath.Join(sm.Dir(i), "app.wasm"), "./wasm/app", "", "-X github.com/deltaclue/deltaclue/app.ownModels="+deltaclue.OwnDescription(sm, i)); err != nil {
				return fmt.Errorf("the %q models' page: %w", m.Name(), err)
			}
		}
		site = append(site, sm)
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return err
	}
	copies := map[string]string{
		filepath.Join("web", "worker.js"): "worker.js", filepath.Join("web", "app.css"): "app.css",
		filepath.Join("web", "loader.js"): "loader.js",
		filepath.Join("web", "icon.svg"):  "icon.svg",
	}
	for src, dst := range copies {
		b, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		switch filepath.Ext(dst) {
		case ".js":
			b = []byte(deltaclue.CompactJS(string(b), false))
		case ".css":
			b = []byte(deltaclue.StripCSSComments(string(b)))
		}
		if dst == "loader.js" {
			if b, err = modelDirs(b, site); err != nil {
				return err
			}
		}
		if err := os.WriteFile(filepath.Join(web, dst), b, 0o644); err != nil {
			return err
		}
	}
	for _, size := range []int{192, 512} {
		if err := writeIcon(filepath.Join(web, fmt.Sprintf("icon-%d.png", size)), size); err != nil {
			return err
		}
	}
	if err := writePages(out, repo, base, version, site); err != nil {
		return err
	}
	// The workers load the page's wasm_exec.js (go-app writes it at the site's root): it must be this Go's, the
	// one the binaries were built with.
	if err := sameWasmExec(out, filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", "wasm_exec.js")); err != nil {
		return err
	}
	if err := compactWasmExec(out); err != nil {
		return err
	}
	where := "served under " + siteRoot(repo)
	if base != nil {
		where = "served at " + base.String()
	}
	fmt.Printf("built %s (version %s, %s)\n", out, version, where)
	if err := writeGzipCopies(out); err != nil {
		return err
	}
	files := []string{"app.wasm"}
	for i, m := range site {
		files = append(files, m.Dir(i)+"worker.wasm", m.Dir(i)+"matmul.wasm", m.Dir(i)+"models.bin")
	}
	for _, f := range files {
		b, _ := os.ReadFile(filepath.Join(web, f))
		z, err := os.ReadFile(filepath.Join(web, f+".gz"))
		if err != nil {
			z = b // too small to be worth compressing
		}
		fmt.Printf("  %-20s %6.2f MB raw, %5.2f MB gzipped\n", f, float64(len(b))/1e6, float64(len(z))/1e6)
	}
	return nil
}

// writeGzipCopies writes name.gz beside every text and binary file of the site that gzip makes smaller, as a
// static host compresses what it serves: `make serve` (internal/static) serves these copies, so that the
// site is measured as visitors get it, and a host that serves precompressed files can use them as they are.
func writeGzipCopies(out string) error {
	return filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		switch filepath.Ext(p) {
		case ".wasm", ".js", ".css", ".html", ".webmanifest", ".bin", ".svg", ".json":
		default:
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil || len(b) < 1024 {
			return err
		}
		var z bytes.Buffer
		w, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
		w.Write(b)
		w.Close()
		if z.Len() >= len(b) {
			return nil
		}
		return os.WriteFile(p+".gz", z.Bytes(), 0o644)
	})
}

// sourceHash is the first 12 hex digits of a SHA-256 over everything the site is built from: one version
// for app.wasm, worker.wasm and the service worker's cache.
func sourceHash() (string, error) {
	var files []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch path {
			case ".git", "build", "data", "docs", "training":
				return filepath.SkipDir
			}
			return nil
		}
		switch {
		case strings.HasSuffix(path, "_test.go"):
		case strings.HasSuffix(path, ".go"), path == "go.mod", path == "go.sum",
			strings.HasPrefix(path, "web"+string(filepath.Separator)), strings.HasSuffix(path, ".dcw"),
			strings.HasSuffix(path, ".json") && strings.HasPrefix(path, "app"), strings.HasSuffix(path, ".wasm"):
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	sort.Strings(files)
	h := sha256.New()
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s %d\n", f, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:12], nil
}

// writeIcon draws the icon (a dashed δ-ball around a point, on blue) as a PNG.
func writeIcon(path string, size int) error {
	blue, white, light := color.RGBA{29, 78, 216, 255}, color.RGBA{255, 255, 255, 255}, color.RGBA{147, 197, 253, 255}
	// Three colours and no blending: a paletted PNG is the same picture at a third of the bytes (both icons are
	// part of a first visit).
	img := image.NewPaletted(image.Rect(0, 0, size, size), color.Palette{blue, white, light})
	s := float64(size) / 64
	for y := 0; y < size; y++ {
		for x := 0; x < size; x++ {
			fx, fy := (float64(x)+0.5)/s, (float64(y)+0.5)/s
			c := blue
			r := math.Hypot(fx-32, fy-32)
			angle := math.Atan2(fy-32, fx-32)
			switch {
			case r < 5:
				c = white
			case math.Abs(r-20) < 2 && math.Mod(angle+math.Pi, math.Pi/8) < math.Pi/13:
				c = white
			case math.Hypot(fx-46, fy-21) < 4, math.Hypot(fx-19, fy-40) < 4:
				c = light
			}
			img.Set(x, y, c)
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// compactWasmExec drops the site's wasm_exec.js's comments and indentation (deltaclue.CompactJS): every first
// visit downloads it.
func compactWasmExec(out string) error {
	path := filepath.Join(out, "wasm_exec.js")
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return os.WriteFile(path, []byte(deltaclue.CompactJS(string(b), true)), 0o644)
}

// sameWasmExec checks that the site's wasm_exec.js (go-app's copy, which the page and the workers load) is the
// Go toolchain's, byte for byte.
func sameWasmExec(out, toolchain string) error {
	site, err := os.ReadFile(filepath.Join(out, "wasm_exec.js"))
	if err != nil {
		return err
	}
	want, err := os.ReadFile(toolchain)
	if err != nil {
		return err
	}
	if !bytes.Equal(site, want) {
		return fmt.Errorf("the site's wasm_exec.js (go-app's) is not this Go's %s: build the site with the Go that built go-app's copy", toolchain)
	}
	return nil
}

// modelDirs writes the served models' folders into the loader (its deltaclueModelDirs), so that its early
// downloads fetch the files of the models a page's address names, and the models whose page is their own
// (deltaclueModelApps: its app.wasm in their folder).
func modelDirs(loader []byte, site []deltaclue.SiteModels) ([]byte, error) {
	const empty = "const deltaclueModelDirs = {};"
	if !bytes.Contains(loader, []byte(empty)) {
		return nil, fmt.Errorf("web/loader.js has no %q to fill in", empty)
	}
	const emptyApps = "const deltaclueModelApps = [];"
	if !bytes.Contains(loader, []byte(emptyApps)) {
		return nil, fmt.Errorf("web/loader.js has no %q to fill in", emptyApps)
	}
	dirs, apps := map[string]string{}, []string{}
	for i, m := range site {
		dirs[m.Description.Name] = m.Dir(i)
		if m.App {
			apps = append(apps, m.Description.Name)
		}
	}
	js, err := json.Marshal(dirs)
	if err != nil {
		return nil, err
	}
	appsJS, err := json.Marshal(apps)
	if err != nil {
		return nil, err
	}
	loader = bytes.Replace(loader, []byte(empty), []byte("const deltaclueModelDirs = "+string(js)+";"), 1)
	return bytes.Replace(loader, []byte(emptyApps), []byte("const deltaclueModelApps = "+string(appsJS)+";"), 1), nil
}

// writeModels writes the i-th served models' files into web/<dir> (app.SiteModels.Dir): their bundle, the
// search worker built for their layers and stamped with the bundle's SHA-256, their gallery and their global
// view's groups when they have them.
func writeModels(web string, i int, m *modelsource.Models, version string, wasm func(dst, pkg, tags, ldflags string) error) (deltaclue.SiteModels, error) {
	sm := deltaclue.SiteModels{Description: m.Description()}
	dir := filepath.Join(web, sm.Dir(i))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return sm, err
	}
	// The models travel as data, fetched once by the page and checked against the SHA-256 its description of
	// them gives.
	if err := os.WriteFile(filepath.Join(dir, "models.bin"), m.Bytes, 0o644); err != nil {
		return sm, err
	}
	sum := sha256.Sum256(m.Bytes)
	sm.SHA256, sm.Bytes = hex.EncodeToString(sum[:]), len(m.Bytes)
	// The worker runs the models' layers and no others: a worker for dense models (the digits') leaves the image
	// layers out (engine's build tag denseonly), 28 KB gzipped less for a first visit, and so does its kernel
	// (matmul_dense.wasm, 0.8 KB less).
	tags, kern := "wasmsimd", kernel.WASM
	if m.Description().DenseOnly() {
		tags, kern = tags+",denseonly", kernel.DenseWASM
	}
	if err := os.WriteFile(filepath.Join(dir, "matmul.wasm"), kern, 0o644); err != nil {
		return sm, err
	}
	if err := wasm(filepath.Join(sm.Dir(i), "worker.wasm"), "./wasm/worker", tags, fmt.Sprintf("-X main.Version=%s -X main.ModelsSHA256=%x", version, sum)); err != nil {
		return sm, err
	}
	var err error
	if sm.Gallery, err = writeGallery(dir, m); err != nil {
		return sm, err
	}
	// The global view's groups: the digits' are web/global.json in the repository; other models' are made
	// from their folder's groups.json (deltaclue global) and the models.
	var global []byte
	switch {
	case m.ShippedDigits:
		if global, err = os.ReadFile(filepath.Join("web", "global.json")); err != nil {
			return sm, err
		}
	case m.Groups != nil && m.Test != nil:
		models, ts, err := glam.LoadBundle(m.Bundle)
		if err != nil {
			return sm, err
		}
		if global, err = deltaclue.MakeGlobalData(m.Groups, models, ts, m.Test, m.Description().Input); err != nil {
			return sm, fmt.Errorf("the global view: %w", err)
		}
	}
	if global != nil {
		sm.Global = true
		if err := os.WriteFile(filepath.Join(dir, "global.json"), global, 0o644); err != nil {
			return sm, err
		}
	}
	return sm, nil
}

// writeGallery writes the gallery the page offers (gallery.json in dir): the models' test items they are least
// sure of (the digits': their shipped test split's). Models without test items have none; it says whether it
// wrote one.
func writeGallery(web string, served *modelsource.Models) (bool, error) {
	if served.Test == nil {
		return false, nil
	}
	m, err := clue.LoadBundle(served.Bundle)
	if err != nil {
		return false, err
	}
	js, err := gallery.Make(m, served.Test, gallery.Size)
	if err != nil {
		return false, fmt.Errorf("the gallery: %w", err)
	}
	return true, os.WriteFile(filepath.Join(web, filepath.Base(gallery.File)), js, 0o644)
}
