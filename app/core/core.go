// Package core is the page's logic without the browser: the state of the worker pool and of a search spread
// over it, and every transition as a plain function of (state, event) → commands, with time an argument,
// never read. It imports neither go-app nor syscall/js, so it is tested natively, in milliseconds
// (The Elm Architecture's update; Gary Bernhardt's functional core). The page (package app) is the imperative
// shell: it turns the browser's events into calls here and executes the commands that come back.
package core

import (
	"time"

	"github.com/deltaclue/deltaclue/wasm/worker/searchworker"
)

// Command is an effect the shell executes for the core: a message to a worker, a worker replaced, a timer.
type Command interface{ isCommand() }

// Post sends Request to worker Worker.
type Post struct {
	Worker  int
	Request searchworker.Request
}

// Replace terminates worker Worker and starts a fresh one from the same compiled modules; the core counts it
// ready once it says so (Pool.Said).
type Replace struct{ Worker int }

// ResultsReset says the run's results were thrown away (to run every restart again): the shell forgets what it
// made of them (the summary, the figures).
type ResultsReset struct{}

// After asks the shell to call back after Delay: with Watch (Pool.Watch) or CancelDue (Pool.CancelDue).
type After struct {
	Delay time.Duration
	Event Event
}

// Event is what an After brings back.
type Event interface{ isEvent() }

// Watch is the run's periodic check of its workers, scheduled at Scheduled for run ID.
type Watch struct {
	ID        int
	Scheduled time.Time
}

// CancelDue is the end of a cancelled run's grace: workers that have not stopped by then are replaced.
type CancelDue struct{ ID int }

func (Post) isCommand()         {}
func (Replace) isCommand()      {}
func (ResultsReset) isCommand() {}
func (After) isCommand()        {}
func (Watch) isEvent()          {}
func (CancelDue) isEvent()      {}

// Timing constants of the pool's watchdog.
const (
	// WorkerSilence is how long a worker with work may say nothing before the page takes it for dead, once it
	// has sent news from within a search: it sends a heartbeat every searchworker.AliveEvery while it computes.
	// It doubles with each failure the run has had without progress since (a starved machine, not a dead
	// worker, is then the likelier cause), up to ColdSilence.
	WorkerSilence = 3 * time.Second
	// ColdSilence is the limit before a worker's first news from within a search since it started: its first
	// steps run code the browser has not compiled yet (WebKit compiles a function when it is first called,
	// which on a loaded machine took over 3 s before the first heartbeat), and a replacement must start up
	// before it says anything.
	ColdSilence = 15 * time.Second
	// WatchEvery is how often the page checks its workers during a run.
	WatchEvery = time.Second
	// CancelGrace is how long a cancelled search may take to stop before its workers are replaced.
	CancelGrace = time.Second
	// MaxFailures failures of workers in a row, without progress in between, stop a run.
	MaxFailures = 3
)
