package core

import (
	"time"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/wasm/worker/searchworker"
)

// Sweep is a δ sweep spread over the pool: one search per radius of a ladder, each split among the workers,
// all queued at once, so that each worker works through its shares in increasing δ.
type Sweep struct {
	Ladder  clue.Ladder
	Params  clue.Params // the base parameters; δ and n come from the ladder
	IDs     map[int]int // request ID → radius index
	Results [][]clue.Explanation
	Waiting []map[int]bool // per radius, the workers still running their share
	Phase   Phase
	Err     string // the first worker's error, if one failed
	Started time.Time
}

// SweepCancelDue is the end of a cancelled sweep's grace: workers that have not stopped by then are replaced.
type SweepCancelDue struct{ Started time.Time }

func (SweepCancelDue) isEvent() {}

// StartSweep queues the searches of ladder l around x0 with the base parameters params on every ready worker
// at now. It reports false, and does nothing, when no worker is ready or the ladder is not valid.
func (p *Pool) StartSweep(x0 []float32, params clue.Params, l clue.Ladder, now time.Time) ([]Command, bool) {
	workers := p.ReadyWorkers()
	if len(workers) == 0 || l.Validate() != nil {
		return nil, false
	}
	s := &Sweep{Ladder: l, Params: params, IDs: map[int]int{}, Phase: Running, Started: now,
		Results: make([][]clue.Explanation, len(l.Radii)), Waiting: make([]map[int]bool, len(l.Radii))}
	var cmds []Command
	for i := range l.Radii {
		rp := l.AtRadius(params, i)
		id := p.NewID()
		s.IDs[id] = i
		s.Waiting[i] = map[int]bool{}
		ws := workers
		if rp.LambdaD > 0 { // the diversity term couples every restart: one worker runs them all
			ws = workers[:1]
		}
		shares := Shares(rp.Restarts(), ws)
		for _, k := range sortedKeys(shares) {
			s.Waiting[i][k] = true
			cmds = append(cmds, Post{k, searchworker.Request{Type: "explain", ID: id, X0: x0, Params: &rp, Restarts: shares[k]}})
		}
	}
	p.Sweep = s
	return cmds, true
}

// Active says whether the sweep is under way (or being cancelled).
func (s *Sweep) Active() bool { return s != nil && (s.Phase == Running || s.Phase == Cancelling) }

// Radius is the radius index whose search has request ID id, if it is one of the sweep's.
func (s *Sweep) Radius(id int) (int, bool) {
	if s == nil {
		return 0, false
	}
	i, ok := s.IDs[id]
	return i, ok
}

// Done counts the restarts finished so far.
func (s *Sweep) Done() int {
	n := 0
	for _, r := range s.Results {
		n += len(r)
	}
	return n
}

// Complete says whether every worker has finished radius i without error (its results are all in, unless the
// sweep was cancelled).
func (s *Sweep) Complete(i int) bool { return len(s.Waiting[i]) == 0 }

// Settled says whether an active sweep has heard the last of its workers.
func (s *Sweep) Settled() bool {
	if !s.Active() {
		return false
	}
	for _, w := range s.Waiting {
		if len(w) > 0 {
			return false
		}
	}
	return true
}

// Close ends a settled sweep (Cancelled, Failed or Done) and returns its phase.
func (s *Sweep) Close() Phase {
	if s.Settled() {
		s.Phase = closed(s.Phase, s.Err)
	}
	return s.Phase
}

// said takes worker k's message about radius i of the sweep.
func (s *Sweep) said(k, i int, r searchworker.Response) {
	switch r.Type {
	case "results":
		if s.Active() {
			s.Results[i] = append(s.Results[i], r.Explanations...)
		}
	case "done", "error":
		if r.Error != "" && r.Error != searchworker.Cancelled && s.Err == "" {
			s.Err = r.Error
		}
		delete(s.Waiting[i], k)
	}
}

// CancelSweep stops the sweep: the radii already finished stay. Workers that have not answered after
// CancelGrace are replaced (SweepCancelled).
func (p *Pool) CancelSweep() []Command {
	s := p.Sweep
	if s == nil || s.Phase != Running {
		return nil
	}
	s.Phase = Cancelling
	return append(p.sweepCancels(), After{CancelGrace, SweepCancelDue{s.Started}})
}

// SweepCancelled replaces the workers still at the cancelled sweep that ev is about.
func (p *Pool) SweepCancelled(ev SweepCancelDue, now time.Time) []Command {
	s := p.Sweep
	if s == nil || s.Phase != Cancelling || !s.Started.Equal(ev.Started) {
		return nil
	}
	late := map[int]bool{}
	for _, w := range s.Waiting {
		for k := range w {
			late[k] = true
		}
	}
	var cmds []Command
	for _, k := range sortedKeys(late) {
		cmds = append(cmds, p.replace(k, now))
		for _, w := range s.Waiting {
			delete(w, k)
		}
	}
	return cmds
}

// DropSweep forgets the sweep (of an earlier input), telling its workers to stop if it still runs.
func (p *Pool) DropSweep() []Command {
	var cmds []Command
	if p.Sweep.Active() {
		cmds = p.sweepCancels()
	}
	p.Sweep = nil
	return cmds
}

// sweepCancels asks every worker still owing a radius to stop it.
func (p *Pool) sweepCancels() []Command {
	var cmds []Command
	for _, id := range sortedKeys(p.Sweep.IDs) {
		for _, k := range sortedKeys(p.Sweep.Waiting[p.Sweep.IDs[id]]) {
			cmds = append(cmds, Post{k, searchworker.Request{Type: "cancel", ID: id}})
		}
	}
	return cmds
}
