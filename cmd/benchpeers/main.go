//go:build !js

// Command benchpeers (`make bench-peers`) compares our engine with TensorFlow.js and PyTorch on the same δ-CLUE
// search on the same weights, interleaved in one run:
//
//   - our engine in headless Chromium through the real page (cmd/site's build, 2 search workers: the set's share
//     link opened on a fresh page load, then Explain pressed again), as `make bench-set` runs it, and natively
//     (clue.Search, restart i on goroutine i % 2, GOMAXPROCS 2) in a fresh process per round;
//   - TensorFlow.js 4.22.0 with its WASM backend on 2 threads (XNNPACK; SharedArrayBuffer, so the page is served
//     cross-origin isolated), in the same Chromium (tfjs/peer.js);
//   - PyTorch (Debian's python3-torch) natively with torch.set_num_threads(2) (peer.py).
//
// The search is the default δ-CLUE search (clue.Defaults: n = 100 restarts from scheme S1's starts, Adam with
// learning rate 0.1, projection onto the L2 ball of radius δ = 2 around z0 = μφ(x0), the objective H_total of
// the MC-dropout predictive with the classifier's K fixed masks + λx = 0.03 × the L1 distance of the decoded
// image to x0), exactly T = 100 steps per restart, no early stop (rel_tol = abs_tol = 0: the Spread rule's
// tolerance is then 0 and never met, as `make bench-set` runs it). The peers read one workload file
// (workload.go): the decoder's and the classifier's layer lists with their tensors, the masks, x0, z0 and every
// restart's start, so that all start from the same points.
//
// Correctness comes first: each peer's first step (cost and gradient at the starts) must agree with the
// engine's within 1e-4 relative, and its final points and costs must be close (reference.go); a peer that
// disagrees is reported and not timed. Then R rounds, each a fresh page load or process per implementation in
// the order ours-browser, TF.js, ours-native, PyTorch: its start-up, its first (cold) search and W warm ones.
// The table gives the cold search's median over rounds and the warm searches' median over all; it goes to
// stdout, and with -md and -json into docs/peers.md (between its results markers) and docs/peers.json.
//
//	go run ./cmd/benchpeers [-models fashion|digits|DIR] [-rounds 3] [-warm 3] [-md docs/peers.md -json docs/peers.json]
//	go run ./cmd/benchpeers -short           # n = 8, T = 5, one round: a quick check that everything runs and agrees
//	go run ./cmd/benchpeers -check-only      # the correctness checks alone
//	go run ./cmd/benchpeers -setup           # install the npm packages into build/peers (npm ci), nothing else
//	go run ./cmd/benchpeers -from docs/peers.json -md docs/peers.md   # the tables of an earlier run, again
//
// It needs Chromium, npm (the first time, for TensorFlow.js) and a Python with torch (Debian: apt-get install
// chromium npm python3-torch); a peer that cannot run is left out, loudly.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/deltaclue/deltaclue/internal/benchenv"
)

// The implementations, in the order each round runs them.
const (
	implPage   = "browser"
	implTFJS   = "tfjs"
	implNative = "native"
	implTorch  = "torch"
)

var allImpls = []string{implPage, implTFJS, implNative, implTorch}

type options struct {
	models    string
	index     int
	short     bool
	n, steps  int
	rounds    int
	warm      int
	threads   int
	checks    int
	impls     []string
	checkOnly bool
	tfjsPlain bool
	python    string
	chrome    string
	mdOut     string
	jsonOut   string
	timeout   time.Duration
	keep      bool
	out       io.Writer // the tables (nil: stdout)
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "native" {
		os.Exit(nativeMain(os.Args[2:], os.Stdout, os.Stderr))
	}
	var o options
	var impls string
	setup := flag.Bool("setup", false, "only install the npm packages (TensorFlow.js) into build/peers, and exit")
	from := flag.String("from", "", "run nothing: print the tables of an earlier run's -json file (and write them into -md)")
	flag.StringVar(&o.models, "models", "", `the models: "fashion" (the default, when they can be opened; else "digits"), "digits", a models folder or a bundle file`)
	flag.IntVar(&o.index, "index", -1, "the test item to explain (default: the digits' test digit 1735, or the item the classifier is least sure of)")
	flag.BoolVar(&o.short, "short", false, "a short run for CI: n = 8 restarts, T = 5 steps, one round, one warm search")
	flag.IntVar(&o.n, "n", 100, "restarts")
	flag.IntVar(&o.steps, "steps", 100, "Adam steps per restart (exactly: no early stop)")
	flag.IntVar(&o.rounds, "rounds", 3, "rounds: a fresh page load or process per implementation each")
	flag.IntVar(&o.warm, "warm", 3, "warm searches after the cold one, per round")
	flag.IntVar(&o.threads, "threads", 2, "the page's search workers, the native goroutines, TF.js's and PyTorch's threads")
	flag.IntVar(&o.checks, "checks", 8, "restarts whose first step (cost and gradient) is compared")
	flag.StringVar(&impls, "impls", strings.Join(allImpls, ","), "the implementations: browser (our page), tfjs, native (our engine), torch")
	flag.BoolVar(&o.checkOnly, "check-only", false, "run the correctness checks of TF.js and PyTorch alone")
	flag.BoolVar(&o.tfjsPlain, "tfjs-plain", false, "TF.js's dense layers with the gradient tf.matMul records (dy·Wᵀ, which the WASM backend multiplies in a naive loop) instead of through Wᵀ stored once")
	flag.StringVar(&o.python, "python", "", "a Python with torch and numpy (default: /usr/bin/python3, else python3)")
	flag.StringVar(&o.chrome, "chrome", "", "Chromium binary (default: $CHROME_PATH, else chromium on $PATH)")
	flag.StringVar(&o.mdOut, "md", "", "also write the results into this Markdown file, between its results markers (docs/peers.md)")
	flag.StringVar(&o.jsonOut, "json", "", "also write every measurement to this JSON file (docs/peers.json)")
	flag.DurationVar(&o.timeout, "timeout", 10*time.Minute, "how long one page or process may take")
	flag.BoolVar(&o.keep, "keep", false, "keep the temporary folder (workload, site) and print where it is")
	flag.Parse()
	for _, s := range strings.Split(impls, ",") {
		if s = strings.TrimSpace(s); s != "" {
			o.impls = append(o.impls, s)
		}
	}
	if o.short {
		o.n, o.steps, o.rounds, o.warm = 8, 5, 1, 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	if *from != "" {
		err = render(*from, o.mdOut)
	} else if *setup {
		var root string
		if root, err = benchenv.ModuleRoot(); err == nil {
			err = installTFJS(ctx, npmDir(root))
		}
	} else if err = o.validate(); err == nil {
		var rep *Report
		rep, err = run(ctx, o)
		if err == nil {
			err = rep.failure()
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchpeers:", err)
		os.Exit(1)
	}
}

// render prints the tables of an earlier run's JSON report, and writes them into mdPath when it is not "".
func render(jsonPath, mdPath string) error {
	b, err := os.ReadFile(jsonPath)
	if err != nil {
		return err
	}
	var rep Report
	if err := json.Unmarshal(b, &rep); err != nil {
		return fmt.Errorf("%s: %w", jsonPath, err)
	}
	printTimes(os.Stdout, &rep)
	printChecks(os.Stdout, &rep)
	return rep.write(mdPath, "")
}

func (o *options) validate() error {
	switch {
	case o.n < 1 || o.steps < 1 || o.rounds < 1 || o.warm < 0 || o.threads < 1 || o.checks < 1:
		return errors.New("-n, -steps, -rounds, -threads and -checks must be at least 1, -warm at least 0")
	case len(o.impls) == 0:
		return errors.New("-impls names no implementation")
	}
	for _, s := range o.impls {
		if !contains(allImpls, s) {
			return fmt.Errorf("-impls: unknown implementation %q (want %s)", s, strings.Join(allImpls, ", "))
		}
	}
	return nil
}

// logf reports progress on stderr; the tables go to stdout.
func logf(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
