package core

import (
	"reflect"
	"testing"
	"time"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/wasm/worker/searchworker"
)

func ladder() clue.Ladder { return clue.Ladder{Radii: []float64{1, 2, 3}, N: 4} }

func sweeping(t *testing.T, workers int) (*Pool, []Command) {
	t.Helper()
	p := readyPool(t, workers)
	cmds, ok := p.StartSweep(x0, clue.Defaults(), ladder(), t0)
	if !ok {
		t.Fatal("the sweep did not start")
	}
	return p, cmds
}

func TestSweepQueuesEveryRadiusOnEveryWorker(t *testing.T) {
	p, cmds := sweeping(t, 2)
	ps := posts(cmds)
	if len(ps) != 6 || !p.Sweep.Active() || len(p.Sweep.IDs) != 3 {
		t.Fatalf("%d posts, sweep %+v", len(ps), p.Sweep)
	}
	for j, post := range ps {
		i, ok := p.Sweep.Radius(post.Request.ID)
		if !ok || i != j/2 || post.Request.Params.Delta != ladder().Radii[i] || post.Request.Params.N != 4 || len(post.Request.Restarts) != 2 {
			t.Errorf("post %d: radius %d (%v), δ %v, restarts %v", j, i, ok, post.Request.Params.Delta, post.Request.Restarts)
		}
	}
}

func TestSweepNeedsAValidLadderAndAWorker(t *testing.T) {
	if _, ok := NewPool(2, false, t0).StartSweep(x0, clue.Defaults(), ladder(), t0); ok {
		t.Error("started with no worker ready")
	}
	if _, ok := readyPool(t, 1).StartSweep(x0, clue.Defaults(), clue.Ladder{Radii: []float64{3, 1}, N: 4}, t0); ok {
		t.Error("started a decreasing ladder")
	}
}

func TestSweepRadiusCompletesWhenEveryShareIsDone(t *testing.T) {
	p, cmds := sweeping(t, 2)
	id := posts(cmds)[0].Request.ID
	p.Said(0, results(id, 0, 2), t0, 0)
	p.Said(0, searchworker.Response{Type: "done", ID: id}, t0, 0)
	if p.Sweep.Complete(0) || p.Sweep.Done() != 2 {
		t.Fatalf("complete after one share; %d done", p.Sweep.Done())
	}
	p.Said(1, results(id, 1, 3), t0, 0)
	p.Said(1, searchworker.Response{Type: "done", ID: id}, t0, 0)
	if !p.Sweep.Complete(0) || p.Sweep.Settled() {
		t.Fatalf("radius 0 complete %v; settled %v with two radii to go", p.Sweep.Complete(0), p.Sweep.Settled())
	}
	if len(p.Run.Results) != 0 {
		t.Error("a sweep's results went into the run")
	}
}

func TestSweepSettlesAndCloses(t *testing.T) {
	p, cmds := sweeping(t, 1)
	for _, post := range posts(cmds) {
		p.Said(0, searchworker.Response{Type: "done", ID: post.Request.ID}, t0, 0)
	}
	if !p.Sweep.Settled() || p.Sweep.Close() != Done {
		t.Fatalf("%+v", p.Sweep)
	}
}

func TestSweepWorkerErrorFailsIt(t *testing.T) {
	p, cmds := sweeping(t, 1)
	for j, post := range posts(cmds) {
		r := searchworker.Response{Type: "done", ID: post.Request.ID}
		if j == 1 {
			r = searchworker.Response{Type: "error", ID: post.Request.ID, Error: "NaN"}
		}
		p.Said(0, r, t0, 0)
	}
	if p.Sweep.Close() != Failed || p.Sweep.Err != "NaN" {
		t.Fatalf("%q %q", p.Sweep.Phase, p.Sweep.Err)
	}
}

func TestSweepCancelAndGrace(t *testing.T) {
	p, cmds := sweeping(t, 2)
	ids := posts(cmds)
	p.Said(0, searchworker.Response{Type: "done", ID: ids[0].Request.ID}, t0, 0)
	c := p.CancelSweep()
	if len(posts(c)) != 5 || p.Sweep.Phase != Cancelling {
		t.Fatalf("%d cancels (5 shares outstanding), phase %q", len(posts(c)), p.Sweep.Phase)
	}
	due, ok := c[len(c)-1].(After)
	if !ok || due.Delay != CancelGrace {
		t.Fatalf("%#v", c[len(c)-1])
	}
	// Worker 0 stops; worker 1 does not answer and is replaced.
	for _, post := range ids[1:] {
		if post.Worker == 0 {
			p.Said(0, searchworker.Response{Type: "done", ID: post.Request.ID, Error: searchworker.Cancelled}, t0, 0)
		}
	}
	r := p.SweepCancelled(due.Event.(SweepCancelDue), at(time.Second))
	if !reflect.DeepEqual(replaced(r), []int{1}) || p.Sweep.Close() != Cancelled || p.Sweep.Err != "" {
		t.Fatalf("replaced %v, %+v", replaced(r), p.Sweep)
	}
}

func TestSweepCancelOfAnEarlierSweepIgnored(t *testing.T) {
	p, _ := sweeping(t, 1)
	due := p.CancelSweep()[3].(After).Event.(SweepCancelDue)
	p.DropSweep()
	p.StartSweep(x0, clue.Defaults(), ladder(), at(time.Second))
	p.CancelSweep()
	if cmds := p.SweepCancelled(due, at(2*time.Second)); cmds != nil {
		t.Fatalf("an earlier sweep's grace acted on this one: %v", cmds)
	}
}

func TestDropSweepCancelsItsWork(t *testing.T) {
	p, _ := sweeping(t, 2)
	cmds := p.DropSweep()
	if len(posts(cmds)) != 6 || p.Sweep != nil || p.Sweep.Active() {
		t.Fatalf("%d cancels, sweep %v", len(posts(cmds)), p.Sweep)
	}
	if p.DropSweep() != nil {
		t.Error("dropping no sweep did something")
	}
}

func TestSweepAndRunDoNotMix(t *testing.T) {
	p, cmds := sweeping(t, 1)
	id := posts(cmds)[0].Request.ID
	p.Start(x0, params(2), false, t0)
	p.Said(0, results(p.Run.ID, 0), t0, 0)
	p.Said(0, results(id, 5), t0, 0)
	if len(p.Run.Results) != 1 || p.Sweep.Done() != 1 {
		t.Fatalf("run %d results, sweep %d", len(p.Run.Results), p.Sweep.Done())
	}
}
