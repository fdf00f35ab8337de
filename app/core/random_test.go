package core

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/mnist"
	"github.com/deltaclue/deltaclue/wasm/worker/searchworker"
)

// simWorker is a search worker as the page sees it: the messages it has sent and the page has not yet
// received, in order. It computes a request at once with the real (native) search worker; a dead one sends
// nothing more.
type simWorker struct {
	dead  bool
	queue []searchworker.Response
}

// sim drives a Pool with events in a random order: messages delivered worker by worker in random
// interleavings, workers killed silently or with an error, the clock jumping, timers firing late, cancels.
type sim struct {
	t       *testing.T
	rnd     *rand.Rand
	p       *Pool
	engine  *searchworker.Worker
	workers []*simWorker
	now     time.Time
	timers  []timer
	log     []string
}

type timer struct {
	due time.Time
	ev  Event
}

func (s *sim) exec(cmds []Command) {
	for _, c := range cmds {
		switch c := c.(type) {
		case Post:
			w := s.workers[c.Worker]
			if w.dead {
				continue
			}
			if c.Request.Type == "cancel" { // the worker stops at its next step: what it had not sent is not sent
				var kept []searchworker.Response
				for _, r := range w.queue {
					if r.ID != c.Request.ID {
						kept = append(kept, r)
					}
				}
				w.queue = append(kept, searchworker.Response{Type: "done", ID: c.Request.ID, Error: searchworker.Cancelled})
				continue
			}
			if c.Request.Type == "explain" && len(c.Request.Restarts) == 0 {
				s.t.Fatalf("worker %d was sent an explain without restarts (which means all of them)\n%v", c.Worker, s.log)
			}
			s.engine.Handle(c.Request, func(r searchworker.Response) {
				r.HeapBytes, r.SysBytes = 0, 0
				w.queue = append(w.queue, searchworker.Response{Type: "alive", ID: c.Request.ID}, r)
			})
		case Replace:
			s.workers[c.Worker] = &simWorker{queue: []searchworker.Response{{Type: "ready", Version: "v"}}}
		case ResultsReset:
		case After:
			s.timers = append(s.timers, timer{s.now.Add(c.Delay), c.Event})
		default:
			s.t.Fatalf("unknown command %#v", c)
		}
	}
}

// step does one random thing; it reports false when nothing is left to happen.
func (s *sim) step() bool {
	var live []int
	for k, w := range s.workers {
		if !w.dead && len(w.queue) > 0 {
			live = append(live, k)
		}
	}
	switch r := s.rnd.IntN(100); {
	case r < 3 && len(live) > 0: // a worker dies without a word
		k := live[s.rnd.IntN(len(live))]
		s.workers[k].dead = true
		s.log = append(s.log, fmt.Sprintf("kill %d", k))
	case r < 5 && len(live) > 0: // a worker fails and says so
		k := live[s.rnd.IntN(len(live))]
		s.workers[k].queue = []searchworker.Response{{Type: "error", Error: "crash"}}
		s.workers[k].dead = false
		s.log = append(s.log, fmt.Sprintf("error %d", k))
		s.deliver(k)
		s.workers[k].dead = true
	case r < 30 || len(live) == 0: // time passes; due timers fire, possibly late
		if len(s.timers) == 0 {
			return false
		}
		s.now = s.now.Add(time.Duration(s.rnd.IntN(4000)) * time.Millisecond)
		sort.SliceStable(s.timers, func(a, b int) bool { return s.timers[a].due.Before(s.timers[b].due) })
		for len(s.timers) > 0 && !s.timers[0].due.After(s.now) {
			tm := s.timers[0]
			s.timers = s.timers[1:]
			switch ev := tm.ev.(type) {
			case Watch:
				s.exec(s.p.Watch(ev, s.now))
			case CancelDue:
				s.exec(s.p.CancelDue(ev, s.now))
			}
		}
	default:
		s.now = s.now.Add(time.Duration(s.rnd.IntN(200)) * time.Millisecond)
		s.deliver(live[s.rnd.IntN(len(live))])
	}
	s.check()
	return true
}

func (s *sim) deliver(k int) {
	w := s.workers[k]
	r := w.queue[0]
	w.queue = w.queue[1:]
	s.log = append(s.log, fmt.Sprintf("%d says %s %d", k, r.Type, r.ID))
	s.exec(s.p.Said(k, r, s.now, 0))
}

// check asserts the run's invariants: no result counted twice; while it runs, every restart without a
// result is owed by exactly one worker that still has work.
func (s *sim) check() {
	s.t.Helper()
	run := &s.p.Run
	seen := map[int]bool{}
	for _, x := range run.Results {
		if seen[x.Restart] {
			s.t.Fatalf("restart %d counted twice\n%v", x.Restart, s.log)
		}
		seen[x.Restart] = true
	}
	if len(seen) != len(run.Got) {
		s.t.Fatalf("%d results, %d marked as come", len(seen), len(run.Got))
	}
	if run.Phase != Running || run.Err != "" {
		return
	}
	for i := 0; i < run.Total; i++ {
		if run.Got[i] {
			continue
		}
		owners := 0
		for k := range run.Pending {
			for _, j := range run.Owed[k] {
				if j == i {
					owners++
				}
			}
		}
		if owners != 1 {
			s.t.Fatalf("restart %d is owed by %d workers with work\n%v", i, owners, s.log)
		}
	}
}

// TestRandomEventsKeepTheSet drives runs through random event sequences with real workers (the native search
// worker) and checks the invariants at every step, and at the end: a finished set is the native search's,
// bit for bit; a cancelled one holds only the native search's explanations; a failed one says why.
func TestRandomEventsKeepTheSet(t *testing.T) {
	engine, ready := searchworker.New("v")
	if ready.Type != "ready" {
		t.Fatal(ready.Error)
	}
	set, err := mnist.HeldOut()
	if err != nil {
		t.Fatal(err)
	}
	cases := 60
	if testing.Short() {
		cases = 20
	}
	outcomes := map[Phase]int{}
	natives := map[string][]clue.Explanation{}
	for c := 0; c < cases; c++ {
		rnd := rand.New(rand.NewPCG(uint64(c), 7))
		x := set.Float(rnd.IntN(50), nil)
		pr := clue.Defaults()
		pr.N, pr.MaxSteps, pr.Seed = 6+rnd.IntN(10), 8+rnd.IntN(8), uint64(rnd.IntN(3))
		if c%10 == 9 {
			pr.LambdaD = 0.5
		}
		key := fmt.Sprint(x[300:320], pr)
		want, ok := natives[key]
		if !ok {
			engine.Handle(searchworker.Request{Type: "explain", ID: 1, X0: x, Params: &pr}, func(r searchworker.Response) {
				want = append(want, r.Explanations...)
			})
			sort.Slice(want, func(a, b int) bool { return want[a].Restart < want[b].Restart })
			natives[key] = want
		}

		n := 1 + rnd.IntN(4)
		s := &sim{t: t, rnd: rnd, engine: engine, now: t0, p: NewPool(n, false, t0)}
		for k := 0; k < n; k++ {
			s.workers = append(s.workers, &simWorker{queue: []searchworker.Response{{Type: "ready", Version: "v"}}})
		}
		for k := 0; k < n; k++ {
			s.deliver(k)
		}
		cmds, ok := s.p.Start(x, pr, false, s.now)
		if !ok {
			t.Fatal("no worker ready")
		}
		s.exec(cmds)
		cancelAt := -1
		if c%7 == 3 {
			cancelAt = rnd.IntN(20)
		}
		for i := 0; !s.p.Run.Settled(); i++ {
			if i == cancelAt {
				s.exec(s.p.Cancel())
			}
			if i > 100000 || !s.step() {
				t.Fatalf("case %d: the run never settled (phase %q, pending %v)\n%v", c, s.p.Run.Phase, s.p.Run.Pending, s.log)
			}
		}
		phase := s.p.Run.Close()
		s.p.Run.SortResults()
		outcomes[phase]++
		got := s.p.Run.Results
		switch phase {
		case Done:
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("case %d: the finished set (%d) differs from the native search's (%d)\n%v", c, len(got), len(want), s.log)
			}
		case Cancelled:
			for _, x := range got {
				if !reflect.DeepEqual(x, want[x.Restart]) {
					t.Fatalf("case %d: cancelled set's restart %d differs from the native one", c, x.Restart)
				}
			}
		case Failed:
			if s.p.Run.Err == "" {
				t.Fatalf("case %d: failed without a reason", c)
			}
		default:
			t.Fatalf("case %d: closed as %q", c, phase)
		}
	}
	t.Logf("%d random runs: %v", cases, outcomes)
	if outcomes[Done] == 0 || outcomes[Done]+outcomes[Cancelled]+outcomes[Failed] != cases {
		t.Errorf("outcomes %v", outcomes)
	}
}
