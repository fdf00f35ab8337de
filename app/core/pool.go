package core

import (
	"fmt"
	"sort"
	"time"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/internal/plural"
	"github.com/deltaclue/deltaclue/wasm/worker/searchworker"
)

// Worker is what the page knows of one search worker.
type Worker struct {
	Ready    bool
	Version  string    // the build it runs, from its ready message
	ReadyAt  float64   // when it said ready, ms since navigation
	Early    bool      // started by web/loader.js before the page ran, and not replaced since
	Starts   int       // how many times it was started again because it never said ready
	Stepped  bool      // it has sent news from within a search (a heartbeat or results): its code is warm
	LastSeen time.Time // its last message, or its start
	// LongestStep is the longest silence between two pieces of its news from within a search: a worker speaks
	// only between the search's steps, and one step of a big model (a ResNet) on a slow device can outlast
	// WorkerSilence, so the limit grows with what this worker has shown a step takes.
	LongestStep time.Duration
	newsOf      int // the request of its last news from within a search (a silence is a step's only within one)
}

// Pool is the page's search workers and the search spread over them. Its zero value is a pool of no workers,
// with no run.
type Pool struct {
	Workers    []Worker
	Run        Run
	Sweep      *Sweep         // the δ sweep, if one was run on this input
	Costly     *Costly        // a costly link's question, waiting for the user's choice
	Restarted  int            // workers replaced during a run, over the page's life
	Superseded int            // live previews dropped for a later stroke before they finished
	Heap, Sys  map[int]uint64 // each worker's live Go heap and Go's memory after its last search
	// StepSeconds is what a restart-step costs one worker on this device: the least that any search or warm-up a
	// worker finished has taken (0 before any), since noise (the machine's other work, code not yet optimised, a
	// small batch) only adds time. A search that would take longer than SlowSearch asks first.
	StepSeconds float64
	lastID      int
	probes      map[int]bool // the timing searches under way (Costly)
	generation  int          // counts Resize: a start check of earlier workers is ignored
	previewSeq  int          // counts lifted pens (and what holds previews): only the latest preview may start
}

// NewPool is a pool of n workers just started at now; early says the loader started them.
func NewPool(n int, early bool, now time.Time) *Pool {
	p := &Pool{Workers: make([]Worker, n), Heap: map[int]uint64{}, Sys: map[int]uint64{}}
	for k := range p.Workers {
		p.Workers[k] = Worker{Early: early, LastSeen: now}
	}
	return p
}

// Resize is the shell's new set of n workers, just started at now (early: by the loader): the run, its IDs
// and the counts are kept.
func (p *Pool) Resize(n int, early bool, now time.Time) {
	p.generation++
	p.Workers = make([]Worker, n)
	for k := range p.Workers {
		p.Workers[k] = Worker{Early: early, LastSeen: now}
	}
}

// NewID returns a request ID no earlier request had (every run, sweep radius, trace and inspection gets one).
func (p *Pool) NewID() int {
	p.lastID++
	return p.lastID
}

// SkipIDs makes the next IDs larger than id (the loader's early run took id).
func (p *Pool) SkipIDs(id int) { p.lastID = max(p.lastID, id) }

// ReadyCount is how many workers have said ready.
func (p *Pool) ReadyCount() int { return len(p.ReadyWorkers()) }

// ReadyWorkers lists the workers that have said ready.
func (p *Pool) ReadyWorkers() []int {
	var ks []int
	for k, w := range p.Workers {
		if w.Ready {
			ks = append(ks, k)
		}
	}
	return ks
}

// AllEarly says whether every worker is one the loader started (none has been replaced since).
func (p *Pool) AllEarly() bool {
	for _, w := range p.Workers {
		if !w.Early {
			return false
		}
	}
	return true
}

// ReadySpan is when the first and the last of the workers said ready (ms since navigation; 0 if none did).
func (p *Pool) ReadySpan() (first, last float64) {
	for _, w := range p.Workers {
		if w.Ready && (first == 0 || w.ReadyAt < first) {
			first = w.ReadyAt
		}
		if w.Ready && w.ReadyAt > last {
			last = w.ReadyAt
		}
	}
	return first, last
}

// GivenUp counts the workers that never said ready in tries starts.
func (p *Pool) GivenUp(tries int) int {
	n := 0
	for _, w := range p.Workers {
		if !w.Ready && w.Starts >= tries {
			n++
		}
	}
	return n
}

// Silent is how long worker k has said nothing at now (since it started, if it never did).
func (p *Pool) Silent(k int, now time.Time) time.Duration { return now.Sub(p.Workers[k].LastSeen) }

// SilenceLimit is how long worker k, which has work, may say nothing before it is taken for dead: ColdSilence
// (or more, for a share whose first step this device measured to be long) until its first news from within a
// search, then WorkerSilence doubled for each of the run's failures, and at least three times the longest step
// it has shown (a big model's, on a slow device).
func (p *Pool) SilenceLimit(k int) time.Duration {
	if !p.Workers[k].Stepped {
		// A first step may be long for a big model: six times what this device takes for its share at the
		// measured speed (twice that, cold code, with a margin of three), if that is longer.
		step := time.Duration(6 * p.StepSeconds * float64(len(p.Run.Owed[k])) * float64(time.Second))
		return max(ColdSilence, step)
	}
	return max(min(WorkerSilence<<min(p.Run.Failures, 8), ColdSilence), 3*p.Workers[k].LongestStep)
}

// replace marks worker k as started afresh at now (not ready, not early, cold) and asks the shell to do it.
func (p *Pool) replace(k int, now time.Time) Command {
	p.Workers[k] = Worker{Starts: p.Workers[k].Starts, LastSeen: now}
	return Replace{Worker: k}
}

// Replace is the shell's own replacement of worker k at now (one that never said ready): the worker table
// follows, and the caller starts the worker.
func (p *Pool) Replace(k int, now time.Time) { p.replace(k, now) }

// Said takes worker k's message r, which came at now (at: ms since navigation, when the browser delivered it),
// into the pool and its run, and returns what the shell must do. Messages of other requests (inspections,
// traces, sweeps) change only the worker's clock here: the shell handles them.
func (p *Pool) Said(k int, r searchworker.Response, now time.Time, at float64) []Command {
	if k < 0 || k >= len(p.Workers) {
		return nil
	}
	w := &p.Workers[k]
	if r.Type == "alive" || r.Type == "results" {
		if w.Stepped && w.newsOf == r.ID {
			w.LongestStep = max(w.LongestStep, now.Sub(w.LastSeen))
		}
		w.Stepped, w.newsOf = true, r.ID
	}
	w.LastSeen = now
	if r.Type == "warm" && r.RestartSteps > 0 && r.Seconds > 0 {
		p.noteStep(r.Seconds / float64(r.RestartSteps))
		return nil
	}
	if p.probes[r.ID] {
		p.probeSaid(r)
		return nil
	}
	if i, ok := p.Sweep.Radius(r.ID); ok && r.ID > 0 {
		p.Sweep.said(k, i, r)
		return nil
	}
	run := &p.Run
	switch r.Type {
	case "ready":
		w.Ready, w.Version, w.ReadyAt = true, r.Version, at
		if owed, ok := run.Resend[k]; ok {
			delete(run.Resend, k)
			if run.Phase == Running && run.Pending[k] && len(owed) > 0 {
				params := run.Params
				return []Command{Post{k, searchworker.Request{Type: "explain", ID: run.ID, X0: run.X0, Params: &params, Restarts: owed}}}
			}
		}
	case "results":
		if r.ID != run.ID || !run.Active() {
			return nil
		}
		run.take(r.Explanations, now)
	case "done":
		if r.ID != run.ID || !run.Pending[k] {
			return nil
		}
		delete(run.Pending, k)
		run.WorkerSeconds = append(run.WorkerSeconds, r.Seconds)
		if steps := run.stepsOf(k); steps > 0 && r.Seconds > 0 {
			p.noteStep(r.Seconds / float64(steps))
		}
		if p.Heap == nil {
			p.Heap, p.Sys = map[int]uint64{}, map[int]uint64{}
		}
		p.Heap[k], p.Sys[k] = r.HeapBytes, r.SysBytes
		if r.Error != "" && r.Error != searchworker.Cancelled {
			run.Err = r.Error
		}
	case "error":
		switch {
		case r.ID == 0 && run.Phase == Running && run.Pending[k]: // the worker itself failed mid-run
			return p.recover(k, "failed ("+r.Error+")", now)
		case r.ID > 0 && r.ID == run.ID && run.Pending[k]:
			delete(run.Pending, k)
			run.Err = r.Error
		}
	}
	return nil
}

// Start runs a search of x0 with params on every ready worker at now, each with its share of the restarts
// (restart i to the i-th ready worker mod their number), replacing a run still under way. A search with the
// diversity term (λd > 0) couples its restarts, so one worker runs them all. It reports false, and does
// nothing, when no worker is ready.
func (p *Pool) Start(x0 []float32, params clue.Params, preview bool, now time.Time) ([]Command, bool) {
	workers := p.ReadyWorkers()
	if len(workers) == 0 {
		return nil, false
	}
	cmds := p.Drop()
	if params.LambdaD > 0 {
		workers = workers[:1]
	}
	p.Run = newRun(p.NewID(), x0, params, preview, now, workers)
	for _, k := range sortedKeys(p.Run.Owed) {
		share := p.Run.Owed[k]
		cmds = append(cmds, Post{k, searchworker.Request{Type: "explain", ID: p.Run.ID, X0: x0, Params: &params, Restarts: share}})
	}
	return append(cmds, After{WatchEvery, Watch{p.Run.ID, now}}), true
}

// Adopt takes over a search that the workers started on their own (the loader's early run of a shared link,
// request id): the same shares as Start over every worker, nothing posted. It started at started.
func (p *Pool) Adopt(id int, x0 []float32, params clue.Params, started, now time.Time) []Command {
	workers := make([]int, len(p.Workers))
	for k := range workers {
		workers[k] = k
	}
	p.SkipIDs(id)
	p.Run = newRun(id, x0, params, false, started, workers)
	return []Command{After{WatchEvery, Watch{id, now}}}
}

// Drop stops a run whose input is gone: the workers are told to cancel it, and its late messages no longer
// match the run's ID.
func (p *Pool) Drop() []Command {
	run := &p.Run
	if !run.Active() {
		return nil
	}
	cmds := p.cancelPosts()
	if run.Preview {
		p.Superseded++
	}
	run.Pending = nil
	run.ID = p.NewID()
	return cmds
}

// Cancel asks the run's workers to stop; those that have not stopped after CancelGrace are replaced
// (CancelDue).
func (p *Pool) Cancel() []Command {
	if p.Run.Phase != Running {
		return nil
	}
	p.Run.Phase = Cancelling
	return append(p.cancelPosts(), After{CancelGrace, CancelDue{p.Run.ID}})
}

// CancelDue replaces the workers of cancelled run ev.ID that are still at it.
func (p *Pool) CancelDue(ev CancelDue, now time.Time) []Command {
	run := &p.Run
	if run.ID != ev.ID || run.Phase != Cancelling {
		return nil
	}
	var cmds []Command
	for _, k := range sortedKeys(run.Pending) {
		cmds = append(cmds, p.replace(k, now))
		delete(run.Pending, k)
	}
	return cmds
}

// Watch checks run ev.ID's workers at now and recovers any silent past its limit (a crashed or terminated
// worker), then schedules the next check. A check that comes late means the page's own thread was held up (a
// long task, a starved machine): the workers' messages may be waiting behind it, so their silence says nothing
// this time, and their clocks start again.
func (p *Pool) Watch(ev Watch, now time.Time) []Command {
	run := &p.Run
	if run.ID != ev.ID || run.Phase != Running {
		return nil
	}
	var cmds []Command
	if late := now.Sub(ev.Scheduled) - WatchEvery; late < WorkerSilence/2 {
		for _, k := range sortedKeys(run.Pending) {
			if run.Pending[k] && run.Phase == Running && p.Silent(k, now) > p.SilenceLimit(k) {
				cmds = append(cmds, p.recover(k, "stopped answering", now)...)
			}
		}
	} else {
		for k := range run.Pending {
			p.Workers[k].LastSeen = now
		}
	}
	if run.Phase == Running && run.Err == "" {
		cmds = append(cmds, After{WatchEvery, Watch{run.ID, now}})
	}
	return cmds
}

// recover replaces worker k, which died during the run, and gives its replacement the restarts whose results
// never came: each restart's result depends only on its index, so the finished set is the same bits as an
// uninterrupted run. MaxFailures failures without progress in between stop the run.
func (p *Pool) recover(k int, why string, now time.Time) (cmds []Command) {
	run := &p.Run
	run.Failures++
	p.Restarted++
	if run.Failures >= MaxFailures {
		for _, j := range sortedKeys(run.Pending) {
			cmds = append(cmds, p.replace(j, now)) // leave no half-dead worker behind
		}
		run.Pending, run.Resend = map[int]bool{}, map[int][]int{}
		run.Err = fmt.Sprintf("search workers failed three times in a row (the last %s), so the run is stopped rather than retried "+
			"for ever: reload the page, or try fewer workers under Search settings, Advanced options", why)
		return cmds
	}
	var owed []int
	if run.Params.LambdaD > 0 { // the diversity term couples the restarts: run them all again
		owed = run.Owed[k]
		run.Results, run.Got = nil, map[int]bool{}
		run.Resets++
		defer func() { cmds = append(cmds, ResultsReset{}) }()
	} else {
		for _, i := range run.Owed[k] {
			if !run.Got[i] {
				owed = append(owed, i)
			}
		}
	}
	cmds = []Command{p.replace(k, now)}
	if len(owed) == 0 {
		// Every result of its share had come (it died before saying done): nothing to recompute. (An empty
		// list must not be posted: a request without restarts means all of them.)
		delete(run.Pending, k)
		run.Note = fmt.Sprintf("Search worker %d %s and was restarted; every result it owed had come, so the set is complete.", k+1, why)
		return cmds
	}
	run.Resend[k] = owed
	run.Note = fmt.Sprintf("Search worker %d %s and was restarted; it is recomputing the %s it owed, "+
		"so the set will be the same.", k+1, why, plural.Count(len(owed), "restart"))
	return cmds
}

// cancelPosts asks the run's pending workers to stop it.
func (p *Pool) cancelPosts() []Command {
	var cmds []Command
	for _, k := range sortedKeys(p.Run.Pending) {
		cmds = append(cmds, Post{k, searchworker.Request{Type: "cancel", ID: p.Run.ID}})
	}
	return cmds
}

// sortedKeys returns m's keys in increasing order: the commands come out in the same order every time.
func sortedKeys[V any](m map[int]V) []int {
	ks := make([]int, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Ints(ks)
	return ks
}

// noteStep takes a measured cost of a restart-step into StepSeconds.
func (p *Pool) noteStep(s float64) {
	if p.StepSeconds == 0 || s < p.StepSeconds {
		p.StepSeconds = s
	}
}
