//go:build !js

package main

// TensorFlow.js in headless Chromium: the npm packages (package.json and package-lock.json here, installed with
// npm ci into build/peers, which git ignores), the page (tfjs/, embedded) served cross-origin isolated beside
// our site on one local server, and the runs: a fresh page load each, driven through internal/browser.

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/deltaclue/deltaclue/internal/browser"
)

// tfjsVersion is the TF.js the page runs (package.json pins it, package-lock.json its bytes).
const tfjsVersion = "4.22.0"

//go:embed tfjs
var tfjsPage embed.FS

//go:embed package.json package-lock.json
var npmFiles embed.FS

// npmDir is where the npm packages are installed, under the module's root.
func npmDir(root string) string { return filepath.Join(root, "build", "peers") }

// tfjsInstalled says whether the npm packages are installed in dir, in the pinned version.
func tfjsInstalled(dir string) error {
	for _, pkg := range []string{"tfjs", "tfjs-backend-wasm"} {
		b, err := os.ReadFile(filepath.Join(dir, "node_modules", "@tensorflow", pkg, "package.json"))
		if err != nil {
			return fmt.Errorf("npm's @tensorflow/%s is not in %s (go run ./cmd/benchpeers -setup installs it): %w", pkg, dir, errMissing)
		}
		var p struct{ Version string }
		if json.Unmarshal(b, &p) != nil || p.Version != tfjsVersion {
			return fmt.Errorf("%s holds @tensorflow/%s %s, not %s (go run ./cmd/benchpeers -setup installs it): %w", dir, pkg, p.Version, tfjsVersion, errMissing)
		}
	}
	return nil
}

// installTFJS installs the npm packages into dir with npm ci (the lock file's exact versions and hashes),
// unless they are there already.
func installTFJS(ctx context.Context, dir string) error {
	if tfjsInstalled(dir) == nil {
		return nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return fmt.Errorf("npm is needed to install TensorFlow.js (Debian: apt-get install npm): %w", errMissing)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, name := range []string{"package.json", "package-lock.json"} {
		b, _ := npmFiles.ReadFile(name)
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	logf("installing @tensorflow/tfjs and @tensorflow/tfjs-backend-wasm %s into %s (npm ci)…", tfjsVersion, dir)
	cmd := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts")
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("npm ci in %s: %v\n%s", dir, err, lastLines(out.String(), 10))
	}
	return tfjsInstalled(dir)
}

// server serves, on 127.0.0.1, our site under /repo/ as a static host would (when site is not ""), and the
// TF.js page under /tfjs/ cross-origin isolated: index.html and peer.js, workload.bin, and the two packages'
// dist folders under lib/tfjs/ and lib/wasm/.
type server struct {
	srv    *http.Server
	origin string
}

func startServer(site, workload, npm string) (*server, error) {
	mux := http.NewServeMux()
	if site != "" {
		files := http.StripPrefix("/repo/", http.FileServer(http.Dir(site)))
		mux.Handle("/repo/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Cache-Control", "max-age=600")
			files.ServeHTTP(w, r)
		}))
	}
	page, _ := fs.Sub(tfjsPage, "tfjs")
	tfjs := http.NewServeMux()
	tfjs.Handle("/tfjs/lib/tfjs/", http.StripPrefix("/tfjs/lib/tfjs/", http.FileServer(http.Dir(filepath.Join(npm, "node_modules", "@tensorflow", "tfjs", "dist")))))
	tfjs.Handle("/tfjs/lib/wasm/", http.StripPrefix("/tfjs/lib/wasm/", http.FileServer(http.Dir(filepath.Join(npm, "node_modules", "@tensorflow", "tfjs-backend-wasm", "dist")))))
	tfjs.HandleFunc("/tfjs/workload.bin", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		http.ServeFile(w, r, workload)
	})
	tfjs.Handle("/tfjs/", http.StripPrefix("/tfjs/", http.FileServer(http.FS(page))))
	mux.Handle("/tfjs/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Embedder-Policy", "require-corp")
		if h.Get("Cache-Control") == "" {
			h.Set("Cache-Control", "max-age=600")
		}
		tfjs.ServeHTTP(w, r)
	}))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &server{srv: &http.Server{Handler: mux}, origin: "http://" + ln.Addr().String()}
	go s.srv.Serve(ln)
	return s, nil
}

func (s *server) Close() { s.srv.Close() }

// tfjsState is window.peer once the page is set up (or failed).
type tfjsState struct {
	Ready       bool    `json:"ready"`
	Error       string  `json:"error"`
	ReadyMs     float64 `json:"readyMs"`
	Threads     int     `json:"threads"`
	Backend     string  `json:"backend"`
	Isolated    bool    `json:"isolated"`
	SIMD        bool    `json:"simd"`
	Multithread bool    `json:"multithread"`
	Plain       bool    `json:"plain"`
}

// tfjsConfig is how the TF.js page runs: its threads, and plain (dense layers' gradients as tf.matMul records
// them, through the WASM backend's naive loop for a transposed product) or not (through Wᵀ stored once).
type tfjsConfig struct {
	threads int
	plain   bool
}

// tfjsOpen loads the TF.js page afresh (run makes the address new) and waits until it is set up with the
// threads asked for.
func tfjsOpen(ctx context.Context, br browser.Browser, origin string, t tfjsConfig, run int, timeout time.Duration) (*tfjsState, error) {
	plain := 0
	if t.plain {
		plain = 1
	}
	if err := br.Navigate(ctx, fmt.Sprintf("%s/tfjs/?threads=%d&plain=%d&run=%d", origin, t.threads, plain, run)); err != nil {
		return nil, fmt.Errorf("opening the TF.js page: %w", err)
	}
	raw, err := browser.WaitFor(ctx, br, `window.peer && (window.peer.ready || window.peer.error) && JSON.stringify(Object.assign({}, window.peer, {check: undefined, time: undefined, profile: undefined}))`,
		timeout, 50*time.Millisecond)
	if err != nil {
		return nil, fmt.Errorf("the TF.js page did not get ready: %w", err)
	}
	var text string
	var st tfjsState
	if err := json.Unmarshal(raw, &text); err == nil {
		err = json.Unmarshal([]byte(text), &st)
	}
	switch {
	case err != nil:
		return nil, fmt.Errorf("reading window.peer: %w", err)
	case st.Error != "":
		return nil, fmt.Errorf("the TF.js page failed: %s", firstLine(st.Error))
	case !st.Isolated || !st.Multithread:
		return nil, fmt.Errorf("the TF.js page is not cross-origin isolated (crossOriginIsolated %v, multithreading %v): no SharedArrayBuffer, no threads", st.Isolated, st.Multithread)
	case st.Threads != t.threads:
		return nil, fmt.Errorf("TF.js's WASM backend runs %d threads, not %d", st.Threads, t.threads)
	case st.Plain != t.plain:
		return nil, fmt.Errorf("the TF.js page did not take plain=%v", t.plain)
	case !strings.HasPrefix(st.Backend, "TF.js "+tfjsVersion+", wasm"):
		return nil, fmt.Errorf("the page runs %s, not TF.js %s on wasm", st.Backend, tfjsVersion)
	}
	return &st, nil
}

// tfjsCheck runs the check on a fresh page load.
func tfjsCheck(ctx context.Context, br browser.Browser, origin string, t tfjsConfig, run int, timeout time.Duration) (*Outcome, error) {
	if _, err := tfjsOpen(ctx, br, origin, t, run, timeout); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var o Outcome
	if err := br.Await(ctx, `window.peer.check()`, &o); err != nil {
		return nil, fmt.Errorf("the TF.js check: %w", err)
	}
	return &o, nil
}

// tfjsTime times a fresh page load: its start-up, the cold search and warm ones.
func tfjsTime(ctx context.Context, br browser.Browser, origin string, t tfjsConfig, run, warm int, timeout time.Duration) (*TimeResult, error) {
	st, err := tfjsOpen(ctx, br, origin, t, run, timeout)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var r TimeResult
	if err := br.Await(ctx, fmt.Sprintf(`window.peer.time(%d)`, warm), &r); err != nil {
		return nil, fmt.Errorf("the TF.js searches: %w", err)
	}
	r.Backend = fmt.Sprintf("%s, %d threads, SIMD %v", st.Backend, st.Threads, st.SIMD)
	return &r, nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// tfjsOps are the layers tfjs/peer.js builds: a chain of them, convolutions without groups or dilation.
var tfjsOps = []string{"dense", "conv2d", "conv-transpose2d", "flatten", "reshape", "relu", "leaky-relu", "sigmoid", "tanh", "dropout"}

// tfjsLacks says, in one sentence, why tfjs/peer.js cannot build the workload's networks: the first layer it
// lacks (a graph's merge or a layer reading another than the one before it, a layer of another op, a grouped or
// dilated convolution); nil when it can.
func tfjsLacks(h *Header) error {
	nets := append([]PeerNetwork{h.Decoder}, h.Classifier.Networks...)
	for n, net := range nets {
		where := "the VAE's decoder"
		if n > 0 {
			where = "the classifier"
			if len(nets) > 2 {
				where = fmt.Sprintf("the classifier's network %d", n-1)
			}
		}
		for i, l := range net.Layers {
			var lack string
			switch {
			case !contains(tfjsOps, l.Op):
				lack = "is " + article(l.Op)
			case len(l.Inputs) > 0 && (len(l.Inputs) != 1 || l.Inputs[0] != i-1):
				lack = fmt.Sprintf("(%s) reads layers %v, not the one before it (a graph)", l.Op, l.Inputs)
			case l.Groups > 1 || (l.Dilation != [2]int{} && l.Dilation != [2]int{1, 1}):
				lack = fmt.Sprintf("is %s with groups %d and dilation %v", article(l.Op), max(l.Groups, 1), l.Dilation)
			default:
				continue
			}
			return fmt.Errorf("the TF.js peer (tfjs/peer.js) builds chains of %s only, and %s's layer %d %s", strings.Join(tfjsOps, ", "), where, i, lack)
		}
	}
	return nil
}

// article is word with "a" or "an" before it, as it sounds ("an add", "an elu", "a dense").
func article(word string) string {
	if word != "" && strings.ContainsRune("aeio", rune(word[0])) {
		return "an " + word
	}
	return "a " + word
}
