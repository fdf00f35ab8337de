package searchworker

import (
	"slices"
	"testing"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/sharelink"
	"github.com/deltaclue/deltaclue/mnist"
	"github.com/deltaclue/deltaclue/weights"
)

func earlyLink(t *testing.T, p clue.Params, model uint32) string {
	t.Helper()
	set, err := mnist.HeldOut()
	if err != nil {
		t.Fatal(err)
	}
	return sharelink.Encode(sharelink.State{Image: sharelink.Quantize(set.Float(1735, nil)), Params: p, Model: model, Selected: sharelink.NoSelection})
}

// TestEarlyLinkIsThePagesRun: two workers that open a link on their own give, between them, exactly the
// explanations of the whole search run in one piece, each restart once; worker 0 also answers the inspection.
func TestEarlyLinkIsThePagesRun(t *testing.T) {
	fp, err := weights.ShippedFingerprint()
	if err != nil {
		t.Fatal(err)
	}
	p := clue.Defaults()
	p.N, p.MaxSteps = 12, 20
	link := earlyLink(t, p, fp)
	var got []clue.Explanation
	inspected := 0
	for k := range 2 {
		w, ready := New("test")
		if ready.Type != "ready" {
			t.Fatal(ready.Error)
		}
		ran := w.EarlyLink(Early{Link: link, Worker: k, Workers: 2, ID: 7}, func(r Response) {
			switch {
			case r.Type == "inspected" && r.ID == -7:
				inspected++
			case r.Type == "results" && r.ID == 7:
				got = append(got, r.Explanations...)
			case r.Type == "done" && r.ID == 7 && r.Error != "":
				t.Errorf("worker %d: %s", k, r.Error)
			}
		})
		if !ran {
			t.Fatalf("worker %d did not run the link", k)
		}
	}
	if inspected != 1 {
		t.Errorf("%d inspections, want 1 (worker 0's)", inspected)
	}
	slices.SortFunc(got, func(a, b clue.Explanation) int { return a.Restart - b.Restart })
	w, _ := New("test")
	var whole []clue.Explanation
	w.Handle(Request{Type: "explain", ID: 1, X0: mustFloat(t, link), Params: &p}, func(r Response) {
		if r.Type == "results" {
			whole = append(whole, r.Explanations...)
		}
	})
	slices.SortFunc(whole, func(a, b clue.Explanation) int { return a.Restart - b.Restart })
	if len(got) != p.Restarts() || !sameExplanations(got, whole) {
		t.Errorf("the early run's %d explanations differ from the whole search's %d", len(got), len(whole))
	}
}

func mustFloat(t *testing.T, link string) []float32 {
	s, err := sharelink.Decode(link)
	if err != nil {
		t.Fatal(err)
	}
	return s.Float()
}

func sameExplanations(a, b []clue.Explanation) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Restart != b[i].Restart || a[i].Label != b[i].Label || a[i].Cost != b[i].Cost || a[i].Steps != b[i].Steps || !slices.Equal(a[i].Z, b[i].Z) {
			return false
		}
	}
	return true
}

// TestEarlyLinkDeclines: what the page must decide itself is left to it: a link for other models, a costly
// one, one with the diversity term, a damaged one, and a worker number outside the pool.
func TestEarlyLinkDeclines(t *testing.T) {
	fp, err := weights.ShippedFingerprint()
	if err != nil {
		t.Fatal(err)
	}
	costly := clue.Defaults()
	costly.N, costly.MaxSteps = 1000, 1000
	diverse := clue.Defaults()
	diverse.LambdaD = 0.5
	ok := earlyLink(t, clue.Defaults(), fp)
	cases := []struct {
		name string
		e    Early
	}{
		{"other models", Early{Link: earlyLink(t, clue.Defaults(), fp+1), Workers: 1, ID: 1}},
		{"costly", Early{Link: earlyLink(t, costly, fp), Workers: 1, ID: 1}},
		{"λd > 0", Early{Link: earlyLink(t, diverse, fp), Workers: 1, ID: 1}},
		{"damaged", Early{Link: ok[:len(ok)-5], Workers: 1, ID: 1}},
		{"percent-escaped", Early{Link: "v2%2E" + ok[3:], Workers: 1, ID: 1}},
		{"worker 2 of 2", Early{Link: ok, Worker: 2, Workers: 2, ID: 1}},
		{"no ID", Early{Link: ok, Workers: 1}},
	}
	w, _ := New("test")
	for _, c := range cases {
		sent := 0
		if w.EarlyLink(c.e, func(Response) { sent++ }) || sent > 0 {
			t.Errorf("%s: ran, with %d messages", c.name, sent)
		}
	}
	if got := Share(5, 1, 2); !slices.Equal(got, []int{1, 3}) {
		t.Errorf("Share(5, 1, 2) = %v", got)
	}
}

// TestWarmUpLeavesNoTrace: a warm-up changes nothing a later search computes, and a worker without models
// (the page's summary worker) skips it.
func TestWarmUpLeavesNoTrace(t *testing.T) {
	p := clue.Defaults()
	p.N, p.MaxSteps = 6, 15
	x0 := mustFloat(t, earlyLink(t, p, 0))
	search := func(w *Worker) []clue.Explanation {
		var got []clue.Explanation
		w.Handle(Request{Type: "explain", ID: 1, X0: x0, Params: &p}, func(r Response) {
			if r.Type == "results" {
				got = append(got, r.Explanations...)
			}
		})
		slices.SortFunc(got, func(a, b clue.Explanation) int { return a.Restart - b.Restart })
		return got
	}
	cold, _ := New("test")
	want := search(cold)
	warm, _ := New("test")
	yields := 0
	warm.Yield = func() { yields++ }
	var said []Response
	warm.WarmUp(8, 10, func(r Response) { said = append(said, r) })
	// It says what it took: every restart took every step (no stopping rule in a warm-up).
	if len(said) != 1 || said[0].Type != "warm" || said[0].RestartSteps != 80 || !(said[0].Seconds > 0) {
		t.Errorf("the warm-up said %+v, want one warm message of 80 restart-steps", said)
	}
	if yields == 0 {
		t.Error("the warm-up never yielded: a request could not get in")
	}
	if len(warm.cancels) != 0 || len(warm.cancelled) != 0 {
		t.Errorf("the warm-up left %d cancel functions and %d cancelled IDs behind", len(warm.cancels), len(warm.cancelled))
	}
	if got := search(warm); len(want) != p.Restarts() || !sameExplanations(got, want) {
		t.Errorf("after a warm-up the search gives %d explanations, different from a cold worker's %d", len(got), len(want))
	}
	sum, _ := NewSummarizer("test")
	sum.WarmUp(8, 10, func(r Response) { t.Errorf("a worker without models said %+v", r) }) // no models: nothing to do, and no panic
	sum.StopWarmUp()
}

// TestStopWarmUp: a request that comes during a warm-up stops it at its next step (the worker's message handler
// calls StopWarmUp while the warm-up yields), and StopWarmUp without a warm-up does nothing.
func TestStopWarmUp(t *testing.T) {
	w, _ := New("test")
	w.StopWarmUp()
	full := 0
	w.Yield = func() { full++ }
	w.WarmUp(8, 10, func(Response) {})
	stopped := 0
	w.Yield = func() {
		if stopped++; stopped == 2 {
			w.StopWarmUp() // as the message handler does, while the search yields
		}
	}
	w.WarmUp(8, 10, func(Response) {})
	if full < 10 || stopped > 3 {
		t.Errorf("a whole warm-up yielded %d times, a stopped one %d: want it to end at the step after the stop", full, stopped)
	}
	if len(w.cancels) != 0 || len(w.cancelled) != 0 {
		t.Errorf("a stopped warm-up left %d cancel functions and %d cancelled IDs", len(w.cancels), len(w.cancelled))
	}
}
