//go:build !js

// Command benchset measures, on this machine, how fast one δ-CLUE set is computed end to end (`make bench-set`)
// on the digits' site (the shipped models, and MNIST's images, mnist.Pixels bytes each): test digit 1735 of the
// shipped test split, n = 100 restarts of exactly 100 Adam steps (no early stopping), every other parameter the
// default, timed
//
//   - in headless Chromium, through the real page, with 1 and with 2 search workers: a fresh page load per run
//     opens the set's share link (?workers=N#v2.…), which runs the search once every worker is ready, and the
//     page's own clock is read from window.deltaclue (elapsedMs: click to finished set; lastResultMs: to the
//     last result; firstResultMs; and the slowest worker's own compute time, the largest of workerSeconds);
//   - natively, with the restarts split over 1 and over 2 goroutines (restart i on i % w), timed in-process by
//     cmd/benchset/native;
//
// the same set in every browser engine, side by side (-engines, default chromium,firefox,webkit; see
// engines.go): Chromium, Firefox and WebKitGTK (Safari's engine), each driven through internal/browser with
// one browser per engine, interleaved round by round; per engine and round, a fresh page load opens the set's
// link with 2 workers (the link's own run, and navigation → workers ready on the page's clock) and then Explain
// is pressed again (the warm rerun); every run's explanations are hashed, to show the engines give the same bits;
//
// and the default search (early stopping on) over the 24 gallery digits (web/gallery.json) in the page with 2
// workers, picked one after another in the gallery tab of one page load per round as a visitor would (so only
// the first search of a round meets cold workers): first result and full set, p50 and p90 over the digits and
// rounds;
//
// and the first minute (firstminute.go, -first-minute, on by default): what a visitor meets before the page is
// warm, in Chromium with 2 workers, each run in a fresh browser context (cold cache, no service worker): the
// default share link of the test digit opened cold → the set on screen, with its phases in ms since navigation
// (every key of window.deltaclue.timing, the first result, the set); that search clicked again; a second visit
// in the same profile; the no-early-stop set's link cold and again; a cold load without a link, a test digit
// picked from the gallery and Explain pressed, and again; a phone (CPU throttled 4×, 390×844) opening the link
// cold; and pen-up → live preview on screen. The cold link, again and the second visit also run in every
// engine (firstengines.go), a new browser per run.
//
// The site is served under /repo/ pre-compressed, as a static host serves it (serve.go). The configurations
// are interleaved (A B C D, A B C D, …) so that a change of load hits them alike;
// each runs -runs times, and the table gives the median, min and max in ms and GFLOP/s, where the set's GFLOP
// are 2 × Σ over restarts (steps + 1) × PointStepMultiplyAdds / 1e9 from the native run's explanations (the
// page's own report must count the same evaluations, or the run is marked failed). It also prints how much
// later than its slowest worker's compute the page declared the set done.
//
// With -base REV (make bench-set BASE=REV) it also builds the site and the native benchmark of that commit in a
// temporary git worktree (git worktree add --detach), copying this folder into it when it has none so that the
// native part runs that commit's own engine, and runs every configuration for both builds, interleaved, in a
// two-column table with the ratio. The base's share links are written in format v1, which every build reads,
// with the base's own models' fingerprint.
//
//	go run ./cmd/benchset [-runs 3] [-base REV] [-json FILE] [-gallery=false] [-chrome PATH] [-engines LIST]
//	go run ./cmd/benchset -first-minute-only [-runs 3] [-base REV] [-gallery=false] [-engines LIST]   # the first minute
//	go run ./cmd/benchset -engines-only [-runs 3] [-engines chromium,firefox,webkit]   # the engines alone
//	go run ./cmd/benchset -native-only [-workers 1] [-runs 1] …   # the native part alone, as JSON
//
// It is not part of `make test`. Chromium must be installed (Debian: apt-get install chromium); the engine
// comparison leaves out, loudly, an engine that is not (Debian: firefox-esr, webkit2gtk-driver and xvfb).
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/deltaclue/deltaclue/cmd/benchset/nativebench"
	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/internal/benchenv"
	"github.com/deltaclue/deltaclue/internal/browser"
	"github.com/deltaclue/deltaclue/mnist"
	"github.com/deltaclue/deltaclue/weights"
)

// The workload.
const (
	setN     = 100
	setSteps = 100
)

type options struct {
	runs    int
	base    string
	jsonOut string
	chrome  string
	digit   int
	gallery bool
	timeout time.Duration
	keep    bool
	// engines lists the browser engines compared on the set (the link's run and a warm rerun, 2 workers);
	// enginesOnly runs that comparison alone.
	engines     string
	enginesOnly bool
	// firstMinute adds the first minute's rows (firstminute.go); firstMinuteOnly runs them (and the gallery)
	// alone.
	firstMinute     bool
	firstMinuteOnly bool
	// firstOnly, if not empty, are the first minute's configurations to run (their names, as the table's), the
	// others left out.
	firstOnly string
}

func main() {
	for i, a := range os.Args[1:] {
		if a == "-native-only" || a == "--native-only" {
			args := append(slices.Clone(os.Args[1:i+1]), os.Args[i+2:]...)
			os.Exit(nativebench.Main(args, os.Stdout, os.Stderr))
		}
	}
	var o options
	flag.IntVar(&o.runs, "runs", 3, "runs of each configuration (at least 1; the median needs 3)")
	flag.StringVar(&o.base, "base", "", "a git revision to compare with, side by side (built in a temporary worktree)")
	flag.StringVar(&o.jsonOut, "json", "", "also write every measurement to this JSON file")
	flag.StringVar(&o.chrome, "chrome", "", "Chromium binary (default: $CHROME_PATH, else /usr/bin/chromium, else chromium on $PATH)")
	flag.IntVar(&o.digit, "digit", 1735, "the set's digit: an index into the shipped test split")
	flag.BoolVar(&o.gallery, "gallery", true, "also time the default search over the 24 gallery digits (2 workers)")
	flag.DurationVar(&o.timeout, "timeout", 3*time.Minute, "how long one page run may take")
	flag.BoolVar(&o.keep, "keep", false, "keep the temporary folder (sites, binaries) and print where it is")
	flag.StringVar(&o.engines, "engines", strings.Join(browser.Engines, ","), "browser engines to compare on the set, side by side (\"\" for none)")
	flag.BoolVar(&o.enginesOnly, "engines-only", false, "run only the engine comparison (this tree)")
	flag.BoolVar(&o.firstMinute, "first-minute", true, "also time the first minute: cold link → set, first search vs again, a second visit, the phone, the live preview, and the engines' cold link")
	flag.BoolVar(&o.firstMinuteOnly, "first-minute-only", false, "run only the first minute's rows and the gallery (with -base side by side)")
	flag.StringVar(&o.firstOnly, "first-configs", "", "only these first-minute configurations, comma-separated (\""+strings.Join(firstConfigs, "\", \"")+"\")")
	flag.Bool("native-only", false, "run only the native benchmark of this tree and print JSON (see cmd/benchset/native)")
	flag.Parse()
	if o.firstOnly != "" {
		var keep []string
		for _, c := range strings.Split(o.firstOnly, ",") {
			if c = strings.TrimSpace(c); !slices.Contains(firstConfigs, c) {
				fmt.Fprintf(os.Stderr, "benchset: -first-configs: no configuration %q (there are %q)\n", c, firstConfigs)
				os.Exit(2)
			}
			keep = append(keep, c)
		}
		firstConfigs = keep
	}
	if o.runs < 1 {
		fmt.Fprintln(os.Stderr, "benchset: -runs must be at least 1")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, o)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchset:", err)
		os.Exit(1)
	}
}

// logf reports progress on stderr; the table goes to stdout.
func logf(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }

// The configurations, in the order each round runs them.
const (
	cPage1   = "page, 1 worker"
	cPage2   = "page, 2 workers"
	cNative1 = "native, 1 core"
	cNative2 = "native, 2 cores"
	cGallery = "gallery, page, 2 workers"
)

func run(ctx context.Context, o options) (err error) {
	start := time.Now()
	chrome, err := findChrome(o.chrome)
	if err != nil {
		return err
	}
	root, err := benchenv.ModuleRoot()
	if err != nil {
		return err
	}
	rep := &Report{When: time.Now().UTC().Format("2006-01-02 15:04 UTC"), Tree: benchenv.TreeID(root), Nproc: benchenv.NProc(), CPU: benchenv.CPUModel(),
		Chromium: chromeVersion(chrome), GoVersion: runtime.Version(), Digit: o.digit, Runs: o.runs}

	tmp, err := os.MkdirTemp("", "benchset-")
	if err != nil {
		return err
	}
	defer func() {
		if o.keep {
			logf("kept %s", tmp)
		} else {
			os.RemoveAll(tmp)
		}
	}()

	// The workload's inputs, from this tree: the set's digit and the gallery.
	set, err := mnist.HeldOut()
	if err != nil {
		return err
	}
	if o.digit < 0 || o.digit >= set.Len() {
		return fmt.Errorf("-digit %d is outside the test split (0..%d)", o.digit, set.Len()-1)
	}
	var digit [mnist.Pixels]uint8
	copy(digit[:], set.Image(o.digit))
	var gallery []galleryDigit
	if o.gallery {
		if gallery, err = digitsGallery(); err != nil {
			return err
		}
	}

	// This tree.
	head := &build{Name: "this tree", Rev: rep.Tree, root: root, LinkFormat: "v2"}
	if head.Fingerprint, err = weights.ShippedFingerprint(); err != nil {
		return err
	}
	builds := []*build{head}
	if o.base != "" {
		base, cleanup, err := prepareBase(ctx, root, o.base, tmp)
		if cleanup != nil {
			defer cleanup()
		}
		if err != nil {
			return err
		}
		builds = []*build{base, head}
	}
	for _, b := range builds {
		if err := ctx.Err(); err != nil {
			return err
		}
		dir := filepath.Join(tmp, strings.ReplaceAll(b.Name, " ", "-"))
		if err := buildTree(ctx, b, dir); err != nil {
			return err
		}
	}
	rep.Builds = builds
	if head.native == "" {
		return fmt.Errorf("this tree's native benchmark did not build: %s", head.NativeError)
	}
	if head.PageError != "" {
		return fmt.Errorf("this tree's page cannot run: %s", head.PageError)
	}

	var engines []string
	for _, e := range strings.Split(o.engines, ",") {
		if e = strings.TrimSpace(e); e != "" {
			engines = append(engines, e)
		}
	}
	if o.enginesOnly {
		return runEnginesOnly(ctx, o, rep, head, engines, chrome, digit, start)
	}
	sets := !o.firstMinuteOnly
	first := o.firstMinute || o.firstMinuteOnly
	if !sets {
		// One untimed native run per build counts the set's objective evaluations, which every page run of
		// the no-early-stop set must make.
		for _, b := range builds {
			if b.native != "" {
				var s Sample
				if nativeRun(ctx, &s, b, o.digit, 2); s.Error != "" {
					logf("%s: the native run: %s", b.Name, s.Error)
				}
			}
		}
	}

	// One browser for every run; each build's site on its own origin.
	for _, b := range builds {
		if b.PageError != "" {
			continue
		}
		srv, url, err := serveSite(b.site)
		if err != nil {
			return err
		}
		defer srv.Close()
		b.url = url
	}
	bctx, closeBrowser, err := startBrowser(chrome, tmp)
	if err != nil {
		return err
	}
	defer closeBrowser()
	stopOnCancel := context.AfterFunc(ctx, closeBrowser)
	defer stopOnCancel()

	// A first, untimed visit per build: Chromium fetches and caches the site and its service worker installs,
	// so that every timed run is a page load like a returning visitor's (its workers still start cold).
	nav := 0
	for _, b := range builds {
		if b.url == "" {
			continue
		}
		nav++
		url := fmt.Sprintf("%s/repo/?workers=1&warmup=%d", b.url, nav)
		if _, err := chromedp.Run(bctx, chromedp.Navigate(url)); err != nil {
			return fmt.Errorf("%s: opening the page: %w", b.Name, err)
		}
		if _, err := chromedp.Run(bctx, chromedp.Poll[bool](`!!(window.deltaclue && window.deltaclue.ready >= 1)`,
			chromedp.WithPollingTimeout(o.timeout), chromedp.WithPollingInterval(100*time.Millisecond))); err != nil {
			return fmt.Errorf("%s: the page's worker did not get ready: %w (page state %s)", b.Name, err, pageDump(bctx))
		}
	}

	rep.LoadAvgBefore = benchenv.LoadAvg()
	logf("load average before: %s", rep.LoadAvgBefore)
	p := nativebench.SetParams(setN, setSteps)
	firstRuns := map[*build]firstRun{}
	fashion, fashionTree, err := fashionLink(root)
	if err != nil {
		return err
	}
	credit, creditTree, err := rowLink(root, "credit")
	if err != nil {
		return err
	}
	concrete, concreteTree, err := rowLink(root, "concrete")
	if err != nil {
		return err
	}
	for _, b := range builds {
		firstRuns[b] = firstRun{b: b, linkDefault: b.link(digit, clue.Defaults()), linkNoStop: b.link(digit, p), digit: o.digit, nav: &nav, timeout: o.timeout}
		if fashion != "" && sameFashion(b.root, fashionTree) {
			f := firstRuns[b]
			f.linkFashion = fashion
			firstRuns[b] = f
		}
		if credit != "" && sameWeights(b.root, "credit", creditTree) {
			f := firstRuns[b]
			f.linkCredit = forBuild(credit, b.root)
			firstRuns[b] = f
		}
		if concrete != "" && sameWeights(b.root, "concrete", concreteTree) {
			f := firstRuns[b]
			f.linkConcrete = forBuild(concrete, b.root)
			firstRuns[b] = f
		}
	}
	add := func(s Sample) {
		rep.Samples = append(rep.Samples, s)
		logf("  %s", s.line())
	}
	for r := 1; r <= o.runs; r++ {
		logf("round %d of %d", r, o.runs)
		roundStart := time.Now()
		order := builds
		if r%2 == 0 { // alternate which build goes first
			order = slices.Clone(builds)
			slices.Reverse(order)
		}
		var setConfigs []string
		if sets {
			setConfigs = []string{cPage1, cPage2, cNative1, cNative2}
		}
		for _, cfg := range setConfigs {
			for _, b := range order {
				if err := ctx.Err(); err != nil {
					return err
				}
				s := Sample{Config: cfg, Build: b.Name, Run: r, Digit: o.digit}
				switch cfg {
				case cPage1, cPage2:
					if b.url == "" {
						continue
					}
					workers := 1
					if cfg == cPage2 {
						workers = 2
					}
					nav++
					pageRun(bctx, &s, b, workers, nav, b.link(digit, p), o.timeout)
				case cNative1, cNative2:
					if b.native == "" {
						continue
					}
					workers := 1
					if cfg == cNative2 {
						workers = 2
					}
					nativeRun(ctx, &s, b, o.digit, workers)
				}
				add(s)
			}
		}
		if sets {
			logf("  (the sets took %s)", time.Since(roundStart).Round(100*time.Millisecond))
		}
		if first {
			firstStart := time.Now()
			if err := firstRound(ctx, bctx, rep, order, firstRuns, r); err != nil {
				return err
			}
			logf("  (the first minute took %s)", time.Since(firstStart).Round(100*time.Millisecond))
		}
		if len(gallery) > 0 {
			galleryStart := time.Now()
			if err := galleryRound(ctx, bctx, rep, order, gallery, r, &nav, o.timeout); err != nil {
				return err
			}
			for _, b := range builds {
				logf("  %s", gallerySummary(rep.Samples, b.Name, r))
			}
			logf("  (the gallery took %s)", time.Since(galleryStart).Round(100*time.Millisecond))
		}
	}
	// The engines, this tree only: after the rounds above, on a server of their own.
	var enginesTable, firstEnginesTable bytes.Buffer
	if len(engines) > 0 {
		srv, url, err := serveSite(head.site)
		if err != nil {
			return err
		}
		defer srv.Close()
		eb := *head
		eb.url = url
		if sets {
			if rep.Engines, err = engineBench(ctx, &enginesTable, &eb, engines, chrome, head.link(digit, p), o.runs, o.timeout); err != nil {
				return fmt.Errorf("the engine comparison: %w", err)
			}
		}
		if first {
			f := firstRuns[head]
			f.b = &eb
			samples, err := engineFirstMinute(ctx, &firstEnginesTable, f, engines, chrome, o.runs)
			rep.First = append(rep.First, samples...)
			if err != nil {
				return fmt.Errorf("the engines' first minute: %w", err)
			}
		}
	}
	rep.LoadAvgAfter = benchenv.LoadAvg()
	logf("load average after: %s (%s in all)", rep.LoadAvgAfter, time.Since(start).Round(time.Second))

	printReport(os.Stdout, rep, builds)
	printFirst(os.Stdout, rep, builds)
	os.Stdout.Write(firstEnginesTable.Bytes())
	os.Stdout.Write(enginesTable.Bytes())
	if err := writeJSON(o.jsonOut, rep); err != nil {
		return err
	}
	if bad := errorsOf(rep.Samples); bad != "" {
		return errors.New(bad)
	}
	if bad := engineErrors(rep.Engines); bad != "" {
		return errors.New(bad)
	}
	if bad := firstErrors(rep.First); bad != "" {
		return errors.New(bad)
	}
	return nil
}

// runEnginesOnly is -engines-only: the engine comparison of this tree, after one untimed native run that
// counts the set's objective evaluations (every page run must make as many).
func runEnginesOnly(ctx context.Context, o options, rep *Report, head *build, engines []string, chrome string, digit [mnist.Pixels]uint8, start time.Time) error {
	var s Sample
	nativeRun(ctx, &s, head, o.digit, 2)
	if s.Error != "" {
		return fmt.Errorf("the native run: %s", s.Error)
	}
	srv, url, err := serveSite(head.site)
	if err != nil {
		return err
	}
	defer srv.Close()
	head.url = url
	rep.LoadAvgBefore = benchenv.LoadAvg()
	logf("load average before: %s", rep.LoadAvgBefore)
	var table bytes.Buffer
	rep.Engines, err = engineBench(ctx, &table, head, engines, chrome, head.link(digit, nativebench.SetParams(setN, setSteps)), o.runs, o.timeout)
	if err != nil {
		return err
	}
	rep.LoadAvgAfter = benchenv.LoadAvg()
	logf("load average after: %s (%s in all)", rep.LoadAvgAfter, time.Since(start).Round(time.Second))
	fmt.Printf("\nbench-set -engines-only, %s, tree %s\nmachine: nproc %d, %s; %s\nload average before %s, after %s\n",
		rep.When, rep.Tree, rep.Nproc, rep.CPU, rep.GoVersion, rep.LoadAvgBefore, rep.LoadAvgAfter)
	fmt.Printf("the set: test digit %d; the native engine makes %d objective evaluations\n", rep.Digit, head.Evaluations)
	os.Stdout.Write(table.Bytes())
	if err := writeJSON(o.jsonOut, rep); err != nil {
		return err
	}
	if bad := engineErrors(rep.Engines); bad != "" {
		return errors.New(bad)
	}
	return nil
}
