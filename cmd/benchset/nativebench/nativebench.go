// Package nativebench is the native half of `make bench-set`: one δ-CLUE set of a test digit run with
// clue.Search natively, its restarts split over w goroutines, timed in-process, printed as JSON.
//
// It imports only the engine's packages (clue, engine, weights, mnist) and the standard library, so that
// cmd/benchset can copy it into an older commit's worktree and build it there against that commit's own engine
// (cmd/benchset/native is its entry point; `go run ./cmd/benchset -native-only` runs the same).
package nativebench

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/deltaclue/deltaclue/engine"
	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/mnist"
	"github.com/deltaclue/deltaclue/weights"
)

// Result is what Main prints.
type Result struct {
	Fingerprint           uint32 `json:"fingerprint"`           // weights.ShippedFingerprint: what share links carry
	PointStepMultiplyAdds int    `json:"pointStepMultiplyAdds"` // engine.PointStepMultiplyAdds(vae, bnn)
	Digit                 int    `json:"digit"`
	N                     int    `json:"n"`
	MaxSteps              int    `json:"maxSteps"`
	GoVersion             string `json:"goVersion"`
	GOMAXPROCS            int    `json:"gomaxprocs"`
	Runs                  []Run  `json:"runs"`
}

// Run is one timed set.
type Run struct {
	Workers      int     `json:"workers"`      // goroutines the restarts were split over (restart i on i % workers)
	Ms           float64 `json:"ms"`           // wall time of the searches, in-process
	Evaluations  int     `json:"evaluations"`  // Σ over restarts of (steps + 1): objective evaluations
	Explanations int     `json:"explanations"` // results (n)
	Accepted     int     `json:"accepted"`
}

// SetParams are the workload's parameters: the defaults, n restarts of exactly maxSteps Adam steps (no early
// stopping: rel_tol = abs_tol = 0).
func SetParams(n, maxSteps int) clue.Params {
	p := clue.Defaults()
	p.N, p.MaxSteps, p.RelTol, p.AbsTol = n, maxSteps, 0, 0
	return p
}

// Main runs the command with its arguments (without the program name) and returns the exit code.
func Main(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("benchset -native-only", flag.ContinueOnError)
	fs.SetOutput(stderr)
	digit := fs.Int("digit", 1735, "index of the test digit in the digits' shipped test split (mnist.HeldOut)")
	n := fs.Int("n", 100, "restarts")
	steps := fs.Int("steps", 100, "Adam steps per restart (no early stopping)")
	workers := fs.Int("workers", 1, "goroutines to split the restarts over")
	runs := fs.Int("runs", 1, "sets to time, one after another")
	fpOnly := fs.Bool("fingerprint", false, "only print the result's header (fingerprint, multiply-adds), run nothing")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	r, err := run(*digit, *n, *steps, *workers, *runs, *fpOnly)
	if err != nil {
		fmt.Fprintln(stderr, "benchset -native-only:", err)
		return 1
	}
	b, _ := json.Marshal(r)
	fmt.Fprintln(stdout, string(b))
	return 0
}

func run(digit, n, steps, workers, runs int, fpOnly bool) (*Result, error) {
	fp, err := weights.ShippedFingerprint()
	if err != nil {
		return nil, err
	}
	m, err := clue.ShippedModels()
	if err != nil {
		return nil, err
	}
	r := &Result{Fingerprint: fp, PointStepMultiplyAdds: engine.PointStepMultiplyAdds(m.VAE, m.BNN), Digit: digit, N: n,
		MaxSteps: steps, GoVersion: runtime.Version(), GOMAXPROCS: runtime.GOMAXPROCS(0)}
	if fpOnly {
		return r, nil
	}
	set, err := mnist.HeldOut()
	if err != nil {
		return nil, err
	}
	if digit < 0 || digit >= set.Len() {
		return nil, fmt.Errorf("digit %d is outside the test split (0..%d)", digit, set.Len()-1)
	}
	// The page explains the link's image, k/255 per pixel: the test split's bytes are exactly that.
	x0 := make([]float32, len(set.Image(digit)))
	for i, v := range set.Image(digit) {
		x0[i] = float32(v) / 255
	}
	prob, err := clue.NewProblem(m, x0)
	if err != nil {
		return nil, err
	}
	p := SetParams(n, steps)
	if workers < 1 {
		return nil, fmt.Errorf("workers = %d", workers)
	}
	for range runs {
		one, err := timeSet(prob, p, workers)
		if err != nil {
			return nil, err
		}
		r.Runs = append(r.Runs, one)
	}
	return r, nil
}

// timeSet runs the set split over workers goroutines (SearchSplit) and times it.
func timeSet(prob *clue.Problem, p clue.Params, workers int) (Run, error) {
	all, elapsed, err := SearchSplit(prob, p, workers)
	if err != nil {
		return Run{}, err
	}
	r := Run{Workers: workers, Ms: float64(elapsed.Microseconds()) / 1000, Explanations: len(all)}
	for _, e := range all {
		r.Evaluations += e.Steps + 1
		if e.Accepted {
			r.Accepted++
		}
	}
	return r, nil
}

// SearchSplit runs the search with restart i on goroutine i % workers (as the page splits it over its
// workers), merges the results by restart, and returns them with the wall time the searches took.
func SearchSplit(prob *clue.Problem, p clue.Params, workers int) ([]clue.Explanation, time.Duration, error) {
	total := p.Restarts()
	shares := make([][]int, workers)
	for i := range total {
		shares[i%workers] = append(shares[i%workers], i)
	}
	outs := make([][]clue.Explanation, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	start := time.Now()
	for k, share := range shares {
		if len(share) == 0 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[k], errs[k] = clue.Search(context.Background(), prob, p, share, nil)
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	var all []clue.Explanation
	for k := range outs {
		if errs[k] != nil {
			return nil, elapsed, errs[k]
		}
		all = append(all, outs[k]...)
	}
	sort.Slice(all, func(a, b int) bool { return all[a].Restart < all[b].Restart })
	if len(all) != total {
		return all, elapsed, fmt.Errorf("%d explanations for %d restarts", len(all), total)
	}
	return all, elapsed, nil
}

// Exit is Main for a program's main function.
func Exit() { os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr)) }
