//go:build !js

package main

// Our engine natively: `benchpeers native` is run as a fresh process per round (os.Executable, so the same
// build): it opens the models, reads x0 from the workload file, and runs the search (clue.Search with the
// workload's parameters, restart i on goroutine i % workers, as the page splits it over its workers, GOMAXPROCS
// = workers), once cold and then -warm times, and prints JSON like the peers' time mode. -cpuprofile FILE writes a
// CPU profile of the warm searches (run it by hand on a workload the harness kept with -keep).

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"time"

	"github.com/deltaclue/deltaclue/cmd/benchset/nativebench"
	"github.com/deltaclue/deltaclue/engine/clue"
)

// started is when the process started (as near as Go lets a program know).
var started = time.Now()

// TimedRun is one timed search: its wall time and the mean of its restarts' final costs (the same for every
// run of one implementation, which shows the work was done).
type TimedRun struct {
	Ms       float64 `json:"ms"`
	MeanCost float64 `json:"mean_cost"`
}

// TimeResult is what a fresh process or page load reports: its start-up (to the models built, ready to search),
// the first search and the warm ones after it.
type TimeResult struct {
	ReadyMs float64    `json:"ready_ms"`
	Cold    TimedRun   `json:"cold"`
	Warm    []TimedRun `json:"warm"`
	// What the implementation ran on.
	Threads int    `json:"threads"`
	Torch   string `json:"torch,omitempty"`
	Python  string `json:"python,omitempty"`
	Backend string `json:"backend,omitempty"`
}

// readWorkload reads a workload file's header and data.
func readWorkload(path string) (*Header, []float32, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	if len(b) < 12 || string(b[:8]) != workloadMagic {
		return nil, nil, fmt.Errorf("%s is not a workload file", path)
	}
	n := int(binary.LittleEndian.Uint32(b[8:12]))
	if 12+n > len(b) {
		return nil, nil, fmt.Errorf("%s is cut short", path)
	}
	var h Header
	if err := json.Unmarshal(b[12:12+n], &h); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	off := (12 + n + 3) / 4 * 4
	data := make([]float32, (len(b)-off)/4)
	if err := binary.Read(bytes.NewReader(b[off:]), binary.LittleEndian, data); err != nil {
		return nil, nil, err
	}
	return &h, data, nil
}

// nativeMain is `benchpeers native`.
func nativeMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("benchpeers native", flag.ContinueOnError)
	fs.SetOutput(stderr)
	workload := fs.String("workload", "", "the workload file")
	models := fs.String("models", "", "the models (as benchpeers -models)")
	warm := fs.Int("warm", 3, "warm searches after the cold one")
	workers := fs.Int("workers", 2, "goroutines the restarts are split over (and GOMAXPROCS)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the warm searches to this file (go tool pprof reads it)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	r, err := nativeTime(*workload, *models, *warm, *workers, *cpuProfile)
	if err != nil {
		fmt.Fprintln(stderr, "benchpeers native:", err)
		return 1
	}
	json.NewEncoder(stdout).Encode(r)
	return 0
}

// nativeTime runs the cold search and warm ones; with profile not "", it writes a CPU profile of the warm ones
// there.
func nativeTime(path, spec string, warm, workers int, profile string) (*TimeResult, error) {
	if workers < 1 {
		return nil, errors.New("-workers must be at least 1")
	}
	runtime.GOMAXPROCS(workers)
	h, data, err := readWorkload(path)
	if err != nil {
		return nil, err
	}
	opened, err := openModels(spec)
	if err != nil {
		return nil, err
	}
	if fp := opened.Bundle.Fingerprint(); fp != h.Fingerprint {
		return nil, fmt.Errorf("the models %q (fingerprint %d) are not the workload's (%d)", spec, fp, h.Fingerprint)
	}
	models, err := clue.LoadBundle(opened.Bundle)
	if err != nil {
		return nil, err
	}
	x0 := data[h.X0.Offset : h.X0.Offset+product(h.X0.Shape)]
	prob, err := clue.NewProblem(models, x0)
	if err != nil {
		return nil, err
	}
	p := nativebench.SetParams(h.Search.N, h.Search.Steps)
	r := &TimeResult{ReadyMs: msSince(started), Threads: workers}
	for i := range 1 + warm {
		if i == 1 && profile != "" {
			f, err := os.Create(profile)
			if err != nil {
				return nil, err
			}
			defer f.Close()
			if err := pprof.StartCPUProfile(f); err != nil {
				return nil, err
			}
			defer pprof.StopCPUProfile()
		}
		run, err := nativeSearch(prob, p, workers)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			r.Cold = run
		} else {
			r.Warm = append(r.Warm, run)
		}
	}
	return r, nil
}

// nativeSearch runs the search with restart i on goroutine i % workers (nativebench.SearchSplit, as
// `make bench-set` runs it) and times it.
func nativeSearch(prob *clue.Problem, p clue.Params, workers int) (TimedRun, error) {
	all, elapsed, err := nativebench.SearchSplit(prob, p, workers)
	if err != nil {
		return TimedRun{}, err
	}
	var costs []float64
	for _, e := range all {
		if e.Failed != "" || e.Steps != p.MaxSteps {
			return TimedRun{}, fmt.Errorf("restart %d: %d steps of %d %s", e.Restart, e.Steps, p.MaxSteps, e.Failed)
		}
		costs = append(costs, float64(e.Cost))
	}
	return TimedRun{Ms: float64(elapsed.Microseconds()) / 1000, MeanCost: mean(costs)}, nil
}

// runNative runs `benchpeers native` as a fresh process of this very binary.
func runNative(ctx context.Context, workload, spec string, warm, workers int) (*TimeResult, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, self, "native", "-workload", workload, "-models", spec,
		"-warm", fmt.Sprint(warm), "-workers", fmt.Sprint(workers))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%v: %s", err, lastLines(stderr.String(), 5))
	}
	var r TimeResult
	if err := json.Unmarshal(out, &r); err != nil {
		return nil, fmt.Errorf("reading its output: %w", err)
	}
	return &r, nil
}

func msSince(t time.Time) float64 { return float64(time.Since(t).Microseconds()) / 1000 }

func product(xs []int) int {
	n := 1
	for _, x := range xs {
		n *= x
	}
	return n
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
