package core

import (
	"sort"
	"time"

	"github.com/deltaclue/deltaclue/engine/clue"
)

// Phase is where a run is.
type Phase string

// A run's phases: Idle before any; Running and Cancelling while workers still owe it results; Done, Cancelled
// and Failed once it is closed.
const (
	Idle       Phase = ""
	Running    Phase = "running"
	Cancelling Phase = "cancelling"
	Done       Phase = "done"
	Cancelled  Phase = "cancelled"
	Failed     Phase = "failed"
)

// Run is one search spread over the pool: who owes which restarts, what has come, and how it is going.
type Run struct {
	ID       int
	Phase    Phase
	X0       []float32
	Params   clue.Params
	Preview  bool      // a live preview (a small set after a stroke), not the full set
	EditedAt time.Time // a preview's: when the edit it previews ended (a stroke's pen lifted; the shell sets it)
	Total    int       // the restarts asked for
	Workers  int       // how many workers share it
	Results  []clue.Explanation
	Pending  map[int]bool  // workers that have not said done
	Owed     map[int][]int // worker → the restarts it was given
	Got      map[int]bool  // restarts whose result has come
	Resend   map[int][]int // worker → restarts to give it again once it is back
	// Failures counts worker failures since the run last made progress; Resets, the times its results were
	// thrown away to run again (a failure under the diversity term, which couples the restarts).
	Failures, Resets int
	Err              string // why it failed
	Note             string // what recovery did, in a sentence
	Started          time.Time
	FirstResult      time.Duration // since Started
	LastResult       time.Duration
	WorkerSeconds    []float64 // each worker's own time for its share
}

// newRun is run id of params on x0, started at now, its restarts shared among workers.
func newRun(id int, x0 []float32, params clue.Params, preview bool, now time.Time, workers []int) Run {
	r := Run{ID: id, Phase: Running, X0: x0, Params: params, Preview: preview, Total: params.Restarts(), Workers: len(workers),
		Pending: map[int]bool{}, Owed: Shares(params.Restarts(), workers), Got: map[int]bool{}, Resend: map[int][]int{}, Started: now}
	for k := range r.Owed {
		r.Pending[k] = true
	}
	return r
}

// Shares splits the restarts 0..n-1 among the given workers, restart i to workers[i mod len(workers)], so each
// gets the same mix of early and late restarts (S2 and S5 order them by class). searchworker.Share is the same
// split, for the loader's early run.
func Shares(n int, workers []int) map[int][]int {
	out := map[int][]int{}
	for i := 0; i < n; i++ {
		k := workers[i%len(workers)]
		out[k] = append(out[k], i)
	}
	return out
}

// Active says whether the run is under way (or being cancelled).
func (r *Run) Active() bool { return r.Phase == Running || r.Phase == Cancelling }

// Settled says whether an active run has heard the last of its workers: it is ready to close.
func (r *Run) Settled() bool { return r.Active() && len(r.Pending) == 0 }

// take adds a batch of results that came at now. A restart already in (a result sent twice) is not counted
// again.
func (r *Run) take(xs []clue.Explanation, now time.Time) {
	if len(r.Results) == 0 && len(xs) > 0 && r.FirstResult == 0 {
		r.FirstResult = now.Sub(r.Started)
	}
	for _, x := range xs {
		if r.Got[x.Restart] {
			continue
		}
		r.Got[x.Restart] = true
		r.Results = append(r.Results, x)
	}
	r.Failures = 0
	r.LastResult = now.Sub(r.Started)
}

// Clear forgets the run's results and outcome (a new input, a new run): the ID stays, so that late messages of
// the old run still do not match a new one.
func (r *Run) Clear() {
	*r = Run{ID: r.ID}
}

// SortResults orders the results by restart, the order of the native engine's set.
// Restarts are unique in a run (take drops a repeat), so any sort gives the one order; none moves when they
// are in order already, as they are after the first summary.
func (r *Run) SortResults() {
	byRestart := func(a, b int) bool { return r.Results[a].Restart < r.Results[b].Restart }
	if !sort.SliceIsSorted(r.Results, byRestart) {
		sort.Slice(r.Results, byRestart)
	}
}

// Close ends a settled run: Cancelled if it was being cancelled, Failed with an error, else Done. It returns
// the phase.
func (r *Run) Close() Phase {
	if r.Settled() {
		r.Phase = closed(r.Phase, r.Err)
	}
	return r.Phase
}

// closed is the phase a settled run or sweep ends in: Cancelled if it was being cancelled, Failed with an
// error, else Done.
func closed(phase Phase, err string) Phase {
	switch {
	case phase == Cancelling:
		return Cancelled
	case err != "":
		return Failed
	default:
		return Done
	}
}

// stepsOf is how many restart-steps worker k's share of the run took, from the results that have come.
func (r *Run) stepsOf(k int) int {
	mine := map[int]bool{}
	for _, i := range r.Owed[k] {
		mine[i] = true
	}
	n := 0
	for _, e := range r.Results {
		if mine[e.Restart] {
			n += e.Steps
		}
	}
	return n
}
