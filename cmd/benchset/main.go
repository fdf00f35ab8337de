//go:build !js

// Command benchset measures, on this machine, how fast one δ-CLUE set is computed end to end (`make bench-set`):
// digit 1735 of the shipped test split, n = 100 restarts of exactly 100 Adam steps (no early stopping), every
// other parameter the default, timed
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
// and the default search (early stopping on) over the 24 gallery digits (app/gallery.json) in the page with 2
// workers, picked one after another in the gallery tab of one page load per round as a visitor would (so only
// the first search of a round meets cold workers): first result and full set, p50 and p90 over the digits and
// rounds. The configurations are interleaved (A B C D, A B C D, …) so that a change of load hits them alike;
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
//	go run ./cmd/benchset -engines-only [-runs 3] [-engines chromium,firefox,webkit]   # the engines alone
//	go run ./cmd/benchset -native-only [-workers 1] [-runs 1] …   # the native part alone, as JSON
//
// It is not part of `make test`. Chromium must be installed (Debian: apt-get install chromium); the engine
// comparison leaves out, loudly, an engine that is not (Debian: firefox-esr, webkit2gtk-driver and xvfb).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/deltaclue/deltaclue/app/sharelink"
	"github.com/deltaclue/deltaclue/cmd/benchset/nativebench"
	"github.com/deltaclue/deltaclue/engine/clue"
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
	flag.Bool("native-only", false, "run only the native benchmark of this tree and print JSON (see cmd/benchset/native)")
	flag.Parse()
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

// build is one tree under test: this one, or the base's worktree.
type build struct {
	Name         string `json:"name"` // "this tree" or "base <rev>"
	Rev          string `json:"rev"`
	root         string
	site         string
	url          string // the server's origin
	Fingerprint  uint32 `json:"fingerprint"`
	LinkFormat   string `json:"linkFormat"` // "v2" (sharelink.Encode) or "v1" (encodeV1)
	native       string // the native benchmark binary, "" when it did not build
	NativeError  string `json:"nativeError,omitempty"`
	PageError    string `json:"pageError,omitempty"` // why the page part cannot run, if it cannot
	MultiplyAdds int    `json:"pointStepMultiplyAdds"`
	// Evaluations is the set's Σ (steps + 1) from the first native run (0 until then, or without one).
	Evaluations int `json:"evaluations"`
}

// gflop is the set's work in GFLOP, 0 when unknown.
func (b *build) gflop() float64 {
	return 2 * float64(b.Evaluations) * float64(b.MultiplyAdds) / 1e9
}

// link is the share link (fragment, without "#") for an image and parameters, in the build's format.
func (b *build) link(img [784]uint8, p clue.Params) string {
	if b.LinkFormat == "v1" {
		return encodeV1(img, p, b.Fingerprint)
	}
	return sharelink.Encode(sharelink.State{Image: img, Params: p, Model: b.Fingerprint, Selected: sharelink.NoSelection})
}

// Sample is one measurement.
type Sample struct {
	Config string `json:"config"`
	Build  string `json:"build"`
	Run    int    `json:"run"`
	Digit  int    `json:"digit"`
	// The page's own clock (ms after the search started): the full set, the last and the first result; the
	// slowest worker's own seconds; the page's ready time (ms after navigation) and the wall time from
	// navigation to the finished set, as seen from here.
	ElapsedMs       float64   `json:"elapsedMs,omitempty"`
	LastResultMs    float64   `json:"lastResultMs,omitempty"`
	FirstResultMs   float64   `json:"firstResultMs,omitempty"`
	WorkerSeconds   []float64 `json:"workerSeconds,omitempty"`
	ReadyMs         float64   `json:"readyMs,omitempty"`
	NavigateToDone  float64   `json:"navigateToDoneMs,omitempty"`
	PageEvaluations int       `json:"pageEvaluations,omitempty"` // Σ (steps + 1) over the page's report
	// The native benchmark's in-process time and its count of evaluations.
	Ms          float64 `json:"ms,omitempty"`
	Evaluations int     `json:"evaluations,omitempty"`
	Error       string  `json:"error,omitempty"`
}

// Report is what -json writes.
type Report struct {
	When          string   `json:"when"`
	Tree          string   `json:"tree"` // git rev-parse --short HEAD, "+ uncommitted changes" if any
	Nproc         int      `json:"nproc"`
	CPU           string   `json:"cpu"`
	Chromium      string   `json:"chromium"`
	GoVersion     string   `json:"goVersion"`
	LoadAvgBefore string   `json:"loadavgBefore"`
	LoadAvgAfter  string   `json:"loadavgAfter"`
	Digit         int      `json:"digit"`
	Runs          int      `json:"runs"`
	Builds        []*build `json:"builds"`
	Samples       []Sample `json:"samples"`
	// Engines are the engine comparison's runs.
	Engines []EngineSample `json:"engines,omitempty"`
}

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
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	rep := &Report{When: time.Now().UTC().Format("2006-01-02 15:04 UTC"), Tree: treeID(root), Nproc: nproc(), CPU: cpuModel(),
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
	var digit [784]uint8
	copy(digit[:], set.Image(o.digit))
	var gallery []galleryDigit
	if o.gallery {
		if gallery, err = readGallery(filepath.Join(root, "app", "gallery.json")); err != nil {
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

	rep.LoadAvgBefore = loadavg()
	logf("load average before: %s", rep.LoadAvgBefore)
	p := nativebench.SetParams(setN, setSteps)
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
		for _, cfg := range []string{cPage1, cPage2, cNative1, cNative2} {
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
		logf("  (the sets took %s)", time.Since(roundStart).Round(100*time.Millisecond))
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
	var enginesTable bytes.Buffer
	if len(engines) > 0 {
		srv, url, err := serveSite(head.site)
		if err != nil {
			return err
		}
		defer srv.Close()
		eb := *head
		eb.url = url
		if rep.Engines, err = engineBench(ctx, &enginesTable, &eb, engines, chrome, head.link(digit, p), o.runs, o.timeout); err != nil {
			return fmt.Errorf("the engine comparison: %w", err)
		}
	}
	rep.LoadAvgAfter = loadavg()
	logf("load average after: %s (%s in all)", rep.LoadAvgAfter, time.Since(start).Round(time.Second))

	printReport(os.Stdout, rep, builds)
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
	return nil
}

// runEnginesOnly is -engines-only: the engine comparison of this tree, after one untimed native run that
// counts the set's objective evaluations (every page run must make as many).
func runEnginesOnly(ctx context.Context, o options, rep *Report, head *build, engines []string, chrome string, digit [784]uint8, start time.Time) error {
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
	rep.LoadAvgBefore = loadavg()
	logf("load average before: %s", rep.LoadAvgBefore)
	var table bytes.Buffer
	rep.Engines, err = engineBench(ctx, &table, head, engines, chrome, head.link(digit, nativebench.SetParams(setN, setSteps)), o.runs, o.timeout)
	if err != nil {
		return err
	}
	rep.LoadAvgAfter = loadavg()
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

// errorsOf summarises the failed samples of this tree (a base's failures are reported in the table only).
func errorsOf(samples []Sample) string {
	n := 0
	first := ""
	for _, s := range samples {
		if s.Error != "" && s.Build == "this tree" {
			if n == 0 {
				first = s.Config + ": " + s.Error
			}
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d runs of this tree failed; the first: %s", n, first)
}

func (s Sample) line() string {
	head := fmt.Sprintf("%-26s %-16s", s.Config, s.Build)
	switch {
	case s.Error != "":
		return head + " FAILED: " + s.Error
	case s.Ms > 0:
		return fmt.Sprintf("%s %8.0f ms  (%d evaluations)", head, s.Ms, s.Evaluations)
	}
	line := fmt.Sprintf("%s %8.0f ms set, last result %.0f, first %.0f, slowest worker %.0f ms", head, s.ElapsedMs, s.LastResultMs,
		s.FirstResultMs, 1000*maxOf(s.WorkerSeconds))
	if s.ReadyMs > 0 {
		line += fmt.Sprintf("; workers ready %.0f ms after navigation", s.ReadyMs)
	}
	return line
}

// ---- the trees ----

func moduleRoot() (string, error) {
	b, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(b))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("run benchset inside the deltaclue module (go env GOMOD is empty)")
	}
	return filepath.Dir(gomod), nil
}

func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(b)), nil
}

// treeID is the short commit id, with "with uncommitted changes" when the work tree differs from it.
func treeID(root string) string {
	id, err := git(root, "rev-parse", "--short", "HEAD")
	if err != nil {
		return "unknown commit"
	}
	if st, err := git(root, "status", "--porcelain"); err == nil && st != "" {
		id += " with uncommitted changes"
	}
	return id
}

// prepareBase checks out rev in a new detached worktree and returns its build and the cleanup that removes it.
func prepareBase(ctx context.Context, root, rev, tmp string) (*build, func(), error) {
	full, err := git(root, "rev-parse", "--verify", rev+"^{commit}")
	if err != nil {
		return nil, nil, fmt.Errorf("-base %s: %w", rev, err)
	}
	short, _ := git(root, "rev-parse", "--short", full)
	dir, err := os.MkdirTemp("", "benchset-base-")
	if err != nil {
		return nil, nil, err
	}
	os.Remove(dir) // git worktree add makes it
	logf("checking out %s in %s…", short, dir)
	if _, err := git(root, "worktree", "add", "--detach", dir, full); err != nil {
		return nil, nil, err
	}
	cleanup := func() {
		if _, err := git(root, "worktree", "remove", "--force", dir); err != nil {
			logf("removing the worktree: %v", err)
			os.RemoveAll(dir)
			git(root, "worktree", "prune")
		}
	}
	b := &build{Name: "base " + short, Rev: short, root: dir, LinkFormat: "v1"}
	// The base's native benchmark is its own engine driven by this folder's code: copied in when it has none.
	if _, err := os.Stat(filepath.Join(dir, "cmd", "benchset", "native")); err != nil {
		if err := copyDir(filepath.Join(root, "cmd", "benchset"), filepath.Join(dir, "cmd", "benchset")); err != nil {
			return b, cleanup, err
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "app", "sharelink")); err != nil {
		b.PageError = "this commit's page has no share links to open"
	}
	return b, cleanup, ctx.Err()
}

func copyDir(from, to string) error {
	return filepath.WalkDir(from, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
}

// goCmd runs go in dir and returns its combined output.
func goCmd(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	b, err := cmd.CombinedOutput()
	if err != nil {
		return string(b), fmt.Errorf("go %s (in %s): %v\n%s", strings.Join(args, " "), dir, err, tail(string(b)))
	}
	return string(b), nil
}

// buildTree builds a tree's site with its own cmd/site and its native benchmark, and learns its models'
// fingerprint and point-step cost.
func buildTree(ctx context.Context, b *build, dir string) error {
	t := time.Now()
	logf("building %s: the site (go run ./cmd/site) and the native benchmark…", b.Name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b.native = filepath.Join(dir, "native")
	if _, err := goCmd(ctx, b.root, "build", "-o", b.native, "./cmd/benchset/native"); err != nil {
		b.native, b.NativeError = "", compileError(err.Error())
		logf("%s: the native benchmark does not build, its native numbers are unavailable:\n%v", b.Name, err)
	}
	if b.native != "" {
		out, err := exec.CommandContext(ctx, b.native, "-fingerprint").Output()
		var r nativebench.Result
		if err == nil {
			err = json.Unmarshal(out, &r)
		}
		if err != nil {
			b.native, b.NativeError = "", "running it: "+err.Error()
		} else {
			if b.LinkFormat == "v2" && r.Fingerprint != b.Fingerprint {
				return fmt.Errorf("%s: the native benchmark's models (fingerprint %d) are not the ones this program embeds (%d): was weights/ changed meanwhile?", b.Name, r.Fingerprint, b.Fingerprint)
			}
			b.Fingerprint, b.MultiplyAdds = r.Fingerprint, r.PointStepMultiplyAdds
		}
	}
	if b.Fingerprint == 0 { // the base's, when its native benchmark did not build: only package weights
		out, err := goCmd(ctx, b.root, "run", "./cmd/benchset/fingerprint")
		if err == nil {
			var fp uint64
			fp, err = strconv.ParseUint(strings.TrimSpace(lastLine(out)), 10, 32)
			b.Fingerprint = uint32(fp)
		}
		if err != nil && b.PageError == "" {
			b.PageError = "its models' fingerprint is unknown, so no link can be made for it: " + compileError(err.Error())
		}
	}
	if b.PageError == "" {
		b.site = filepath.Join(dir, "site")
		if _, err := goCmd(ctx, b.root, "run", "./cmd/site", "-out", b.site, "-repo", "repo"); err != nil {
			if b.Name == "this tree" {
				return err
			}
			b.PageError = "its site does not build: " + compileError(err.Error())
			logf("%s: %v", b.Name, err)
		}
	}
	logf("built %s in %s (models' fingerprint %d, links %s)", b.Name, time.Since(t).Round(100*time.Millisecond), b.Fingerprint, b.LinkFormat)
	return ctx.Err()
}

// compileError is the first line of a failed go command's output that names a source position, else its first
// line.
func compileError(s string) string {
	for _, line := range strings.Split(s, "\n") {
		if strings.Contains(line, ".go:") {
			return strings.TrimSpace(line)
		}
	}
	return firstLine(s)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

func tail(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-20):], "\n")
}

// nativeRun runs one set in a new process of the build's native benchmark.
func nativeRun(ctx context.Context, s *Sample, b *build, digit, workers int) {
	cmd := exec.CommandContext(ctx, b.native, "-digit", strconv.Itoa(digit), "-n", strconv.Itoa(setN), "-steps", strconv.Itoa(setSteps),
		"-workers", strconv.Itoa(workers), "-runs", "1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var r nativebench.Result
	if err == nil {
		err = json.Unmarshal(out, &r)
	}
	if err == nil && len(r.Runs) != 1 {
		err = fmt.Errorf("%d runs in its output", len(r.Runs))
	}
	if err != nil {
		s.Error = fmt.Sprintf("%v %s", err, firstLine(stderr.String()))
		return
	}
	s.Ms, s.Evaluations = r.Runs[0].Ms, r.Runs[0].Evaluations
	if b.Evaluations == 0 {
		b.Evaluations = s.Evaluations
	} else if b.Evaluations != s.Evaluations {
		s.Error = fmt.Sprintf("%d objective evaluations, where the first run had %d", s.Evaluations, b.Evaluations)
	}
}

// ---- the gallery ----

// galleryDigit is an entry of app/gallery.json: the page shows its image under the alt text "test digit N".
type galleryDigit struct {
	Index int `json:"index"`
}

func readGallery(path string) ([]galleryDigit, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var g []galleryDigit
	if err := json.Unmarshal(b, &g); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(g) == 0 {
		return nil, fmt.Errorf("%s holds no digits", path)
	}
	return g, nil
}

// ---- the browser ----

func findChrome(flagPath string) (string, error) {
	for _, p := range []string{flagPath, os.Getenv("CHROME_PATH"), "/usr/bin/chromium"} {
		if p == "" {
			continue
		}
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
		if p == flagPath {
			return "", fmt.Errorf("no Chromium at -chrome %s (Debian: apt-get install chromium)", p)
		}
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("Chromium not found at /usr/bin/chromium nor on $PATH: install it (Debian: apt-get install chromium) or pass -chrome / set CHROME_PATH")
}

func chromeVersion(chrome string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	b, err := exec.CommandContext(ctx, chrome, "--version").Output()
	if err != nil {
		return chrome + " (version unknown)"
	}
	return strings.TrimSpace(string(b))
}

// serveSite serves a site under /repo/ on 127.0.0.1, as GitHub Pages would.
func serveSite(dir string) (*http.Server, string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", err
	}
	mux := http.NewServeMux()
	mux.Handle("/repo/", http.StripPrefix("/repo", http.FileServer(http.Dir(dir))))
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	return srv, "http://" + ln.Addr().String(), nil
}

// startBrowser starts headless Chromium with a fresh profile, and returns its context and the function that
// closes it (safe to call more than once).
func startBrowser(chrome, tmp string) (context.Context, func(), error) {
	profile := filepath.Join(tmp, "chromium-profile")
	var out bytes.Buffer
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chrome),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1280, 1800),
		chromedp.CombinedOutput(&out),
	)
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	chromedp.Listen(ctx, func(ev any) {
		switch e := ev.(type) {
		case *cdpruntime.EventExceptionThrown:
			logf("page exception: %s %s", e.ExceptionDetails.Text, e.ExceptionDetails.Exception.Description)
		case *cdpruntime.EventConsoleAPICalled:
			if e.Type == "error" {
				for _, a := range e.Args {
					logf("console error: %s %s", a.Value, a.Description)
				}
			}
		}
	})
	closed := false
	closeAll := func() {
		if !closed {
			closed = true
			cancelC()
			cancelA()
		}
	}
	if _, err := chromedp.Run(ctx, chromedp.Navigate("about:blank")); err != nil {
		closeAll()
		return nil, nil, fmt.Errorf("starting Chromium: %w\n%s", err, tail(out.String()))
	}
	return ctx, closeAll, nil
}

// pageDump is window.deltaclue without its bulky fields, for error messages.
func pageDump(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[string](`JSON.stringify(Object.assign({}, window.deltaclue || {}, {report: undefined, cards: undefined, trajectory: undefined, link: undefined}))`))
	if err != nil {
		return "unknown: " + err.Error()
	}
	return v
}

// pageState is what a run reads from window.deltaclue.
type pageState struct {
	State         string             `json:"state"`
	Results       int                `json:"results"`
	Total         int                `json:"total"`
	ElapsedMs     float64            `json:"elapsedMs"`
	LastResultMs  float64            `json:"lastResultMs"`
	FirstResultMs float64            `json:"firstResultMs"`
	WorkerSeconds string             `json:"workerSeconds"`
	Workers       int                `json:"workers"`
	LinkError     string             `json:"linkError"`
	PoolError     string             `json:"poolError"`
	RunError      string             `json:"runError"`
	Timing        map[string]float64 `json:"timing"`
	Evaluations   int                `json:"evaluations"`
}

// finished is true (as the page's state, in JSON) once the run is over, whichever way it ended.
const finished = `(() => {
	const d = window.deltaclue;
	if (!d || d.benchsetMark || !(d.state == "done" || d.state == "failed" || d.state == "cancelled" || d.linkError || d.poolError)) return false;
	let evaluations = -1;
	try { evaluations = JSON.parse(d.report).explanations.reduce((a, e) => a + e.steps + 1, 0); } catch (e) {}
	return JSON.stringify({state: d.state, results: d.results, total: d.total, elapsedMs: d.elapsedMs,
		lastResultMs: d.lastResultMs, firstResultMs: d.firstResultMs, workerSeconds: d.workerSeconds, workers: d.workers,
		linkError: d.linkError, poolError: d.poolError, runError: d.runError, timing: d.timing, evaluations});
})()`

// pageRun opens a link in a fresh page load with the given number of workers and reads the page's clock once
// the set is done. nav makes every URL new, so that each run is a real page load.
func pageRun(ctx context.Context, s *Sample, b *build, workers, nav int, link string, timeout time.Duration) {
	url := fmt.Sprintf("%s/repo/?workers=%d&run=%d#%s", b.url, workers, nav, link)
	t := time.Now()
	if _, err := chromedp.Run(ctx, chromedp.Navigate(url)); err != nil {
		s.Error = "opening the page: " + err.Error()
		return
	}
	readFinished(ctx, s, b, workers, timeout)
	s.NavigateToDone = float64(time.Since(t).Milliseconds())
}

// galleryRound explains every gallery digit once per build, interleaved, each build in its own tab opened
// (without a link) for the round: as a visitor picks one digit after another from the gallery, so that only
// the first search of a round meets cold workers.
func galleryRound(ctx, bctx context.Context, rep *Report, order []*build, gallery []galleryDigit, round int, nav *int, timeout time.Duration) error {
	tabs := map[*build]context.Context{}
	for _, b := range order {
		if b.url == "" {
			continue
		}
		tctx, cancel := chromedp.NewContext(bctx)
		defer cancel()
		*nav++
		url := fmt.Sprintf("%s/repo/?workers=2&run=%d", b.url, *nav)
		if _, err := chromedp.Run(tctx, chromedp.Navigate(url)); err != nil {
			return fmt.Errorf("%s: opening the page for the gallery: %w", b.Name, err)
		}
		if _, err := chromedp.Run(tctx, chromedp.Poll[bool](`!!(window.deltaclue && window.deltaclue.ready == 2 && document.getElementById("tab-gallery"))`,
			chromedp.WithPollingTimeout(timeout), chromedp.WithPollingInterval(100*time.Millisecond))); err != nil {
			return fmt.Errorf("%s: the page's workers did not get ready: %w (page state %s)", b.Name, err, pageDump(tctx))
		}
		if _, err := chromedp.Run(tctx, chromedp.Evaluate[bool](`(document.getElementById("tab-gallery").click(), true)`)); err != nil {
			return fmt.Errorf("%s: opening the gallery tab: %w", b.Name, err)
		}
		tabs[b] = tctx
	}
	for _, g := range gallery {
		for _, b := range order {
			tctx := tabs[b]
			if tctx == nil {
				continue
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			s := Sample{Config: cGallery, Build: b.Name, Run: round, Digit: g.Index}
			galleryRun(tctx, &s, b, g.Index, timeout)
			rep.Samples = append(rep.Samples, s)
			if s.Error != "" {
				logf("  %s", s.line())
			}
		}
	}
	return nil
}

// galleryRun picks a gallery digit, waits for the page to take it as its input, presses Explain, and reads the
// page's clock once the set is done.
func galleryRun(ctx context.Context, s *Sample, b *build, digit int, timeout time.Duration) {
	if _, err := chromedp.Call(ctx, page.BringToFront, cdp.Empty{}); err != nil {
		s.Error = err.Error()
		return
	}
	found, err := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf(`(() => {
		const img = document.querySelector('img[alt="test digit %d"]');
		if (!img || !img.closest("button")) return "";
		const before = location.hash;
		img.closest("button").click();
		return before || "#";
	})()`, digit)))
	switch {
	case err != nil:
		s.Error = "picking the digit: " + err.Error()
		return
	case found == "":
		s.Error = fmt.Sprintf("digit %d is not in this build's gallery", digit)
		return
	}
	// The input is taken once the link changes, and Explain is enabled once the page has rendered.
	ready := fmt.Sprintf(`(() => { const r = document.getElementById("run"); return !!r && !r.disabled && location.hash.length > 4 && location.hash != %q; })()`, found)
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](ready, chromedp.WithPollingTimeout(30*time.Second), chromedp.WithPollingInterval(20*time.Millisecond))); err != nil {
		s.Error = "the page did not take the digit: " + err.Error()
		return
	}
	// The mark goes with the current window.deltaclue: every later publication replaces the object, so a set
	// marked done without it is this one.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(window.deltaclue.benchsetMark = true, document.getElementById("run").click(), true)`)); err != nil {
		s.Error = "pressing Explain: " + err.Error()
		return
	}
	readFinished(ctx, s, b, 2, timeout)
}

// readFinished waits for the page's run to end and reads its clock into s.
func readFinished(ctx context.Context, s *Sample, b *build, workers int, timeout time.Duration) {
	text, err := chromedp.Run(ctx, chromedp.Poll[string](finished,
		chromedp.WithPollingTimeout(timeout), chromedp.WithPollingInterval(50*time.Millisecond)))
	if err != nil {
		if errors.Is(err, chromedp.ErrPollingTimeout) {
			err = fmt.Errorf("the set was not done after %v (page state %s)", timeout, pageDump(ctx))
		}
		s.Error = err.Error()
		return
	}
	var st pageState
	if err := json.Unmarshal([]byte(text), &st); err != nil {
		s.Error = "reading window.deltaclue: " + err.Error()
		return
	}
	if st.State != "done" {
		s.Error = fmt.Sprintf("the page ended in state %q (%s)", st.State, strings.Join(nonEmpty(st.LinkError, st.PoolError, st.RunError), "; "))
		return
	}
	s.ElapsedMs, s.LastResultMs, s.FirstResultMs = st.ElapsedMs, st.LastResultMs, st.FirstResultMs
	s.ReadyMs = st.Timing["ready"]
	s.WorkerSeconds, err = parseSeconds(st.WorkerSeconds)
	var problems []string
	if err != nil {
		problems = append(problems, err.Error())
	}
	if len(s.WorkerSeconds) != workers {
		problems = append(problems, fmt.Sprintf("%d worker times for %d workers (%q)", len(s.WorkerSeconds), workers, st.WorkerSeconds))
	}
	if st.Workers != 0 && st.Workers != workers {
		problems = append(problems, fmt.Sprintf("the page ran %d workers, not %d", st.Workers, workers))
	}
	if st.Results != st.Total {
		problems = append(problems, fmt.Sprintf("%d results of %d", st.Results, st.Total))
	}
	s.PageEvaluations = max(st.Evaluations, 0)
	if s.Config != cGallery && b.Evaluations > 0 && st.Evaluations > 0 && st.Evaluations != b.Evaluations {
		problems = append(problems, fmt.Sprintf("the page's set made %d objective evaluations, the native one %d", st.Evaluations, b.Evaluations))
	}
	if len(problems) > 0 {
		s.Error = strings.Join(problems, "; ")
	}
}

func nonEmpty(xs ...string) []string {
	var out []string
	for _, x := range xs {
		if x != "" {
			out = append(out, x)
		}
	}
	return out
}

// parseSeconds reads Go's fmt.Sprint of a []float64, e.g. "[0.84 0.86]".
func parseSeconds(s string) ([]float64, error) {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "[") || !strings.HasSuffix(t, "]") {
		return nil, fmt.Errorf("workerSeconds %q is not a Go-formatted list", s)
	}
	var out []float64
	for _, f := range strings.Fields(t[1 : len(t)-1]) {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return nil, fmt.Errorf("workerSeconds %q: %v", s, err)
		}
		out = append(out, v)
	}
	return out, nil
}

// ---- the machine ----

func nproc() int {
	if b, err := exec.Command("nproc").Output(); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			return n
		}
	}
	return runtime.NumCPU()
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(b))
}

// ---- statistics and the table ----

func maxOf(xs []float64) float64 {
	m := 0.0
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

// quantile is the q-quantile of xs, interpolated linearly between order statistics; NaN for none.
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	h := q * float64(len(s)-1)
	lo := int(math.Floor(h))
	if lo+1 >= len(s) {
		return s[lo]
	}
	return s[lo] + (h-float64(lo))*(s[lo+1]-s[lo])
}

// stat is a row's numbers for one build.
type stat struct {
	med, lo, hi float64
	n           int
}

func statOf(xs []float64) stat {
	if len(xs) == 0 {
		return stat{med: math.NaN()}
	}
	return stat{med: quantile(xs, 0.5), lo: slices.Min(xs), hi: slices.Max(xs), n: len(xs)}
}

// values picks one number of every good sample of a configuration and build.
func values(samples []Sample, cfg, build string, f func(Sample) float64) []float64 {
	var out []float64
	for _, s := range samples {
		if v := f(s); s.Config == cfg && s.Build == build && s.Error == "" && !math.IsNaN(v) {
			out = append(out, v)
		}
	}
	return out
}

func failures(samples []Sample, cfg, build string) int {
	n := 0
	for _, s := range samples {
		if s.Config == cfg && s.Build == build && s.Error != "" {
			n++
		}
	}
	return n
}

func gallerySummary(samples []Sample, build string, run int) string {
	var first, full []float64
	for _, s := range samples {
		if s.Config == cGallery && s.Build == build && s.Run == run && s.Error == "" {
			first, full = append(first, s.FirstResultMs), append(full, s.ElapsedMs)
		}
	}
	return fmt.Sprintf("%-26s %-16s %d digits: first result p50 %.0f p90 %.0f ms, full set p50 %.0f p90 %.0f ms",
		cGallery, build, len(full), quantile(first, 0.5), quantile(first, 0.9), quantile(full, 0.5), quantile(full, 0.9))
}

// row is one line of the table: a measure, its unit and how to get it from a sample, and whether less is
// better (times) or more (rates).
type row struct {
	label string
	cfg   string
	get   func(Sample) float64
	rate  bool // GFLOP/s: computed from another row's times
}

func printReport(w io.Writer, rep *Report, builds []*build) {
	fmt.Fprintf(w, "\nbench-set, %s, tree %s\n", rep.When, rep.Tree)
	fmt.Fprintf(w, "machine: nproc %d, %s; %s; %s\n", rep.Nproc, rep.CPU, rep.Chromium, rep.GoVersion)
	fmt.Fprintf(w, "load average before %s, after %s\n", rep.LoadAvgBefore, rep.LoadAvgAfter)
	for _, b := range builds {
		fmt.Fprintf(w, "%s: models' fingerprint %d, links %s", b.Name, b.Fingerprint, b.LinkFormat)
		if b.Evaluations > 0 {
			fmt.Fprintf(w, "; the set is %d objective evaluations × %.2f M multiply-adds = %.1f GFLOP",
				b.Evaluations, float64(b.MultiplyAdds)/1e6, b.gflop())
		}
		if b.NativeError != "" {
			fmt.Fprintf(w, "; native part unavailable: %s", b.NativeError)
		}
		if b.PageError != "" {
			fmt.Fprintf(w, "; page part unavailable: %s", b.PageError)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "the set: test digit %d, n = %d restarts × %d Adam steps (no early stopping), defaults otherwise; %d runs each, interleaved\n",
		rep.Digit, setN, setSteps, rep.Runs)
	fmt.Fprintf(w, "times in ms: median [min–max]; GFLOP/s from the median time\n\n")

	elapsed := func(s Sample) float64 { return s.ElapsedMs }
	rows := []row{}
	for _, cfg := range []string{cPage1, cPage2} {
		rows = append(rows,
			row{cfg + ": set (elapsedMs)", cfg, elapsed, false},
			row{"  GFLOP/s", cfg, elapsed, true},
			row{"  all results (lastResultMs)", cfg, func(s Sample) float64 { return s.LastResultMs }, false},
			row{"  first result (firstResultMs)", cfg, func(s Sample) float64 { return s.FirstResultMs }, false},
			row{"  slowest worker's compute", cfg, func(s Sample) float64 { return 1000 * maxOf(s.WorkerSeconds) }, false},
			row{"  GFLOP/s per slowest worker", cfg, func(s Sample) float64 { return 1000 * maxOf(s.WorkerSeconds) }, true},
			row{"  set − slowest worker's compute", cfg, func(s Sample) float64 { return s.ElapsedMs - 1000*maxOf(s.WorkerSeconds) }, false},
			row{"  (page load → workers ready)", cfg, func(s Sample) float64 {
				if s.ReadyMs == 0 { // not published by older builds
					return math.NaN()
				}
				return s.ReadyMs
			}, false},
		)
	}
	for _, cfg := range []string{cNative1, cNative2} {
		get := func(s Sample) float64 { return s.Ms }
		rows = append(rows, row{cfg + ": set", cfg, get, false}, row{"  GFLOP/s", cfg, get, true})
	}

	two := len(builds) == 2
	if two {
		fmt.Fprintf(w, "%-40s %26s %26s %9s\n", "", builds[0].Name, builds[1].Name, "this/base")
	} else {
		fmt.Fprintf(w, "%-40s %26s\n", "", builds[0].Name)
	}
	cell := func(b *build, r row) (string, float64) {
		xs := values(rep.Samples, r.cfg, b.Name, r.get)
		st := statOf(xs)
		fail := failures(rep.Samples, r.cfg, b.Name)
		switch {
		case st.n == 0 && fail > 0:
			return fmt.Sprintf("%d failed", fail), math.NaN()
		case st.n == 0:
			return "n/a", math.NaN()
		case r.rate:
			if b.gflop() == 0 {
				return "n/a", math.NaN()
			}
			v := b.gflop() / (st.med / 1000)
			return fmt.Sprintf("%.1f", v), v
		}
		s := fmt.Sprintf("%.0f [%.0f–%.0f]", st.med, st.lo, st.hi)
		if fail > 0 {
			s += fmt.Sprintf(" (%d failed)", fail)
		}
		return s, st.med
	}
	for _, r := range rows {
		if !two {
			s, _ := cell(builds[0], r)
			fmt.Fprintf(w, "%-40s %26s\n", r.label, s)
			continue
		}
		s0, v0 := cell(builds[0], r)
		s1, v1 := cell(builds[1], r)
		ratio := ""
		if !math.IsNaN(v0) && !math.IsNaN(v1) && v0 != 0 {
			ratio = fmt.Sprintf("%.2f", v1/v0)
		}
		fmt.Fprintf(w, "%-40s %26s %26s %9s\n", r.label, s0, s1, ratio)
	}

	if values(rep.Samples, cGallery, builds[len(builds)-1].Name, elapsed) == nil {
		fmt.Fprintln(w)
		return
	}
	fmt.Fprintf(w, "\n%s: the default search (early stopping) on each of the %d gallery digits, all runs pooled\n", cGallery, countDigits(rep.Samples))
	grows := []struct {
		label string
		get   func(Sample) float64
		q     float64
	}{
		{"  first result p50", func(s Sample) float64 { return s.FirstResultMs }, 0.5},
		{"  first result p90", func(s Sample) float64 { return s.FirstResultMs }, 0.9},
		{"  full set p50", elapsed, 0.5},
		{"  full set p90", elapsed, 0.9},
		{"  set − slowest worker's compute p50", func(s Sample) float64 { return s.ElapsedMs - 1000*maxOf(s.WorkerSeconds) }, 0.5},
		{"  set − slowest worker's compute max", func(s Sample) float64 { return s.ElapsedMs - 1000*maxOf(s.WorkerSeconds) }, 1},
	}
	gcell := func(b *build, get func(Sample) float64, q float64) (string, float64) {
		xs := values(rep.Samples, cGallery, b.Name, get)
		if len(xs) == 0 {
			return "n/a", math.NaN()
		}
		v := quantile(xs, q)
		return fmt.Sprintf("%.0f", v), v
	}
	for _, g := range grows {
		if !two {
			s, _ := gcell(builds[0], g.get, g.q)
			fmt.Fprintf(w, "%-40s %26s\n", g.label, s)
			continue
		}
		s0, v0 := gcell(builds[0], g.get, g.q)
		s1, v1 := gcell(builds[1], g.get, g.q)
		ratio := ""
		if !math.IsNaN(v0) && !math.IsNaN(v1) && v0 != 0 {
			ratio = fmt.Sprintf("%.2f", v1/v0)
		}
		fmt.Fprintf(w, "%-40s %26s %26s %9s\n", g.label, s0, s1, ratio)
	}
	// The gallery's throughput: its objective evaluations over its summed set times.
	thr := func(b *build) (string, float64) {
		evals, ms := 0.0, 0.0
		for _, s := range rep.Samples {
			if s.Config == cGallery && s.Build == b.Name && s.Error == "" && s.PageEvaluations > 0 {
				evals += float64(s.PageEvaluations)
				ms += s.ElapsedMs
			}
		}
		if ms == 0 || b.MultiplyAdds == 0 {
			return "n/a", math.NaN()
		}
		v := 2 * evals * float64(b.MultiplyAdds) / 1e9 / (ms / 1000)
		return fmt.Sprintf("%.1f", v), v
	}
	if !two {
		s, _ := thr(builds[0])
		fmt.Fprintf(w, "%-40s %26s\n", "  GFLOP/s (Σ work / Σ set time)", s)
	} else {
		s0, v0 := thr(builds[0])
		s1, v1 := thr(builds[1])
		ratio := ""
		if !math.IsNaN(v0) && !math.IsNaN(v1) && v0 != 0 {
			ratio = fmt.Sprintf("%.2f", v1/v0)
		}
		fmt.Fprintf(w, "%-40s %26s %26s %9s\n", "  GFLOP/s (Σ work / Σ set time)", s0, s1, ratio)
	}
	for _, b := range builds {
		if n := failures(rep.Samples, cGallery, b.Name); n > 0 {
			fmt.Fprintf(w, "  %s: %d gallery runs failed\n", b.Name, n)
		}
	}
	fmt.Fprintln(w)
}

func countDigits(samples []Sample) int {
	seen := map[int]bool{}
	for _, s := range samples {
		if s.Config == cGallery {
			seen[s.Digit] = true
		}
	}
	return len(seen)
}

// writeJSON writes the report to path as indented JSON, when a path is given (-json).
func writeJSON(path string, rep *Report) error {
	if path == "" {
		return nil
	}
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return err
	}
	logf("wrote %s", path)
	return nil
}
