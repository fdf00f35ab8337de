package core

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/wasm/worker/searchworker"
)

// t0 is the tests' clock origin: the core reads no clock, so time is whatever the events say.
var t0 = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

func at(d time.Duration) time.Time { return t0.Add(d) }

var x0 = make([]float32, 784)

// readyPool is a pool of n workers, every one ready at t0.
func readyPool(t *testing.T, n int) *Pool {
	t.Helper()
	p := NewPool(n, false, t0)
	for k := 0; k < n; k++ {
		if cmds := p.Said(k, searchworker.Response{Type: "ready", Version: "v"}, t0, float64(100+k)); len(cmds) != 0 {
			t.Fatalf("a ready worker with nothing owed asked for %v", cmds)
		}
	}
	return p
}

func params(n int) clue.Params {
	p := clue.Defaults()
	p.N = n
	return p
}

// started is a pool of n ready workers running a search of restarts restarts at t0.
func started(t *testing.T, n, restarts int) (*Pool, []Command) {
	t.Helper()
	p := readyPool(t, n)
	cmds, ok := p.Start(x0, params(restarts), false, t0)
	if !ok {
		t.Fatal("the search did not start")
	}
	return p, cmds
}

func posts(cmds []Command) []Post {
	var out []Post
	for _, c := range cmds {
		if p, ok := c.(Post); ok {
			out = append(out, p)
		}
	}
	return out
}

func replaced(cmds []Command) []int {
	var out []int
	for _, c := range cmds {
		if r, ok := c.(Replace); ok {
			out = append(out, r.Worker)
		}
	}
	return out
}

func results(id int, restarts ...int) searchworker.Response {
	r := searchworker.Response{Type: "results", ID: id}
	for _, i := range restarts {
		r.Explanations = append(r.Explanations, clue.Explanation{Restart: i})
	}
	return r
}

func TestNewPoolHasNoReadyWorker(t *testing.T) {
	p := NewPool(3, true, t0)
	if p.ReadyCount() != 0 || len(p.ReadyWorkers()) != 0 || !p.AllEarly() {
		t.Fatalf("a new pool: %d ready, all early %v", p.ReadyCount(), p.AllEarly())
	}
	if p.Silent(1, at(2*time.Second)) != 2*time.Second {
		t.Errorf("a new worker's silence counts from its start: %v", p.Silent(1, at(2*time.Second)))
	}
}

func TestReadyCountsAndSpan(t *testing.T) {
	p := NewPool(3, false, t0)
	p.Said(2, searchworker.Response{Type: "ready", Version: "b"}, at(time.Second), 250)
	p.Said(0, searchworker.Response{Type: "ready", Version: "b"}, at(2*time.Second), 400)
	if got := p.ReadyWorkers(); !reflect.DeepEqual(got, []int{0, 2}) {
		t.Errorf("ready workers %v", got)
	}
	if first, last := p.ReadySpan(); first != 250 || last != 400 {
		t.Errorf("ready span %v–%v, want 250–400", first, last)
	}
	if p.Workers[2].Version != "b" {
		t.Errorf("version %q", p.Workers[2].Version)
	}
}

func TestStartNeedsAReadyWorker(t *testing.T) {
	p := NewPool(2, false, t0)
	if cmds, ok := p.Start(x0, params(10), false, t0); ok || cmds != nil || p.Run.Phase != Idle {
		t.Fatalf("started with no worker ready: %v %v %q", cmds, ok, p.Run.Phase)
	}
}

func TestStartSharesRestartsRoundRobin(t *testing.T) {
	p, cmds := started(t, 3, 7)
	ps := posts(cmds)
	if len(ps) != 3 {
		t.Fatalf("%d posts", len(ps))
	}
	want := [][]int{{0, 3, 6}, {1, 4}, {2, 5}}
	for k, post := range ps {
		if post.Worker != k || post.Request.Type != "explain" || post.Request.ID != p.Run.ID || !reflect.DeepEqual(post.Request.Restarts, want[k]) {
			t.Errorf("post %d: worker %d %s id %d restarts %v", k, post.Worker, post.Request.Type, post.Request.ID, post.Request.Restarts)
		}
	}
	if p.Run.Phase != Running || p.Run.Total != 7 || p.Run.Workers != 3 || len(p.Run.Pending) != 3 {
		t.Errorf("run %+v", p.Run)
	}
}

func TestStartWithDiversityUsesOneWorker(t *testing.T) {
	p := readyPool(t, 3)
	pr := params(6)
	pr.LambdaD = 0.5
	cmds, _ := p.Start(x0, pr, false, t0)
	ps := posts(cmds)
	if len(ps) != 1 || len(ps[0].Request.Restarts) != 6 || p.Run.Workers != 1 {
		t.Fatalf("λd > 0: %d posts, %v", len(ps), ps)
	}
}

func TestStartSchedulesTheWatch(t *testing.T) {
	p, cmds := started(t, 2, 4)
	last, ok := cmds[len(cmds)-1].(After)
	if !ok || last.Delay != WatchEvery || last.Event != (Watch{p.Run.ID, t0}) {
		t.Fatalf("the last command %#v", cmds[len(cmds)-1])
	}
}

func TestStartReplacesARunningPreview(t *testing.T) {
	p := readyPool(t, 2)
	p.Start(x0, params(4), true, t0)
	old := p.Run.ID
	cmds, _ := p.Start(x0, params(8), false, at(time.Second))
	if p.Superseded != 1 || p.Run.ID == old || p.Run.Preview {
		t.Fatalf("superseded %d, id %d (was %d)", p.Superseded, p.Run.ID, old)
	}
	cancels := 0
	for _, post := range posts(cmds) {
		if post.Request.Type == "cancel" {
			cancels++
			if post.Request.ID == p.Run.ID {
				t.Error("the new run was cancelled")
			}
		}
	}
	if cancels != 2 {
		t.Errorf("%d cancels of the preview", cancels)
	}
}

func TestResultsCountedOnce(t *testing.T) {
	p, _ := started(t, 2, 4)
	id := p.Run.ID
	p.Said(0, results(id, 0, 2), at(300*time.Millisecond), 0)
	p.Said(0, results(id, 2), at(400*time.Millisecond), 0)
	if len(p.Run.Results) != 2 || p.Run.FirstResult != 300*time.Millisecond || p.Run.LastResult != 400*time.Millisecond {
		t.Fatalf("%d results, first %v last %v", len(p.Run.Results), p.Run.FirstResult, p.Run.LastResult)
	}
	if !p.Workers[0].Stepped || p.Workers[1].Stepped {
		t.Errorf("stepped: %v %v", p.Workers[0].Stepped, p.Workers[1].Stepped)
	}
}

func TestResultsOfAnotherRunIgnored(t *testing.T) {
	p, _ := started(t, 2, 4)
	p.Said(0, results(p.Run.ID+7, 0), at(time.Second), 0)
	if len(p.Run.Results) != 0 {
		t.Fatal("took another run's results")
	}
	if p.Workers[0].LastSeen != at(time.Second) {
		t.Error("any message is news of the worker")
	}
}

func TestResultsWhileCancellingKept(t *testing.T) {
	p, _ := started(t, 1, 3)
	p.Cancel()
	p.Said(0, results(p.Run.ID, 1), at(time.Second), 0)
	if len(p.Run.Results) != 1 {
		t.Fatal("a result that came while cancelling was lost")
	}
}

func TestDoneSettlesAndCloses(t *testing.T) {
	p, _ := started(t, 2, 4)
	id := p.Run.ID
	p.Said(0, results(id, 0, 2), at(time.Second), 0)
	p.Said(0, searchworker.Response{Type: "done", ID: id, Seconds: 0.5, HeapBytes: 7}, at(time.Second), 0)
	if p.Run.Settled() {
		t.Fatal("settled with a worker still at it")
	}
	p.Said(1, results(id, 3, 1), at(time.Second), 0)
	p.Said(1, searchworker.Response{Type: "done", ID: id, Seconds: 0.25}, at(time.Second), 0)
	if !p.Run.Settled() || p.Run.Close() != Done || p.Heap[0] != 7 || len(p.Run.WorkerSeconds) != 2 {
		t.Fatalf("run %+v", p.Run)
	}
	p.Run.SortResults()
	for i, x := range p.Run.Results {
		if x.Restart != i {
			t.Fatalf("sorted results: %d at %d", x.Restart, i)
		}
	}
}

func TestDoneWithAnErrorFails(t *testing.T) {
	p, _ := started(t, 1, 2)
	p.Said(0, searchworker.Response{Type: "done", ID: p.Run.ID, Error: "NaN in the search"}, t0, 0)
	if p.Run.Close() != Failed || p.Run.Err != "NaN in the search" {
		t.Fatalf("%q %q", p.Run.Phase, p.Run.Err)
	}
}

func TestDoneOfACancelledSearchIsNoError(t *testing.T) {
	p, _ := started(t, 1, 2)
	p.Cancel()
	p.Said(0, searchworker.Response{Type: "done", ID: p.Run.ID, Error: searchworker.Cancelled}, t0, 0)
	if p.Run.Close() != Cancelled || p.Run.Err != "" {
		t.Fatalf("%q %q", p.Run.Phase, p.Run.Err)
	}
}

func TestErrorAnswerFailsTheRun(t *testing.T) {
	p, _ := started(t, 2, 4)
	p.Said(1, searchworker.Response{Type: "error", ID: p.Run.ID, Error: "bad parameters"}, t0, 0)
	if p.Run.Pending[1] || p.Run.Err != "bad parameters" {
		t.Fatalf("%+v", p.Run)
	}
}

func TestWorkerFailureMidRunIsRecovered(t *testing.T) {
	p, _ := started(t, 2, 6)
	id := p.Run.ID
	p.Said(0, results(id, 0), at(time.Second), 0)
	cmds := p.Said(0, searchworker.Response{Type: "error", Error: "out of memory"}, at(time.Second), 0)
	if !reflect.DeepEqual(replaced(cmds), []int{0}) || p.Workers[0].Ready || p.Restarted != 1 {
		t.Fatalf("commands %v, ready %v", cmds, p.Workers[0].Ready)
	}
	if !reflect.DeepEqual(p.Run.Resend[0], []int{2, 4}) || !strings.Contains(p.Run.Note, "failed (out of memory)") {
		t.Fatalf("resend %v, note %q", p.Run.Resend, p.Run.Note)
	}
}

func TestReplacementGetsTheRestartsItOwes(t *testing.T) {
	p, _ := started(t, 2, 6)
	id := p.Run.ID
	p.Said(0, searchworker.Response{Type: "error", Error: "crash"}, at(time.Second), 0)
	cmds := p.Said(0, searchworker.Response{Type: "ready", Version: "v"}, at(2*time.Second), 2000)
	ps := posts(cmds)
	if len(ps) != 1 || ps[0].Request.ID != id || !reflect.DeepEqual(ps[0].Request.Restarts, []int{0, 2, 4}) {
		t.Fatalf("posts %v", ps)
	}
	if _, still := p.Run.Resend[0]; still {
		t.Error("the resend is still waiting")
	}
}

func TestSilentWarmWorkerRecovered(t *testing.T) {
	p, _ := started(t, 2, 4)
	id := p.Run.ID
	p.Said(0, searchworker.Response{Type: "alive", ID: id}, at(500*time.Millisecond), 0)
	p.Said(1, searchworker.Response{Type: "alive", ID: id}, at(3400*time.Millisecond), 0)
	cmds := p.Watch(Watch{id, at(3000 * time.Millisecond)}, at(4000*time.Millisecond))
	if !reflect.DeepEqual(replaced(cmds), []int{0}) {
		t.Fatalf("replaced %v, want worker 0 (silent 3.5 s)", replaced(cmds))
	}
	if next, ok := cmds[len(cmds)-1].(After); !ok || next.Event != (Watch{id, at(4000 * time.Millisecond)}) {
		t.Errorf("the next check: %#v", cmds[len(cmds)-1])
	}
}

func TestColdWorkerGetsColdSilence(t *testing.T) {
	p, _ := started(t, 1, 4)
	id := p.Run.ID
	if cmds := p.Watch(Watch{id, at(9 * time.Second)}, at(10*time.Second)); len(replaced(cmds)) != 0 {
		t.Fatal("a worker that has not yet stepped was taken for dead after 10 s")
	}
	if cmds := p.Watch(Watch{id, at(15 * time.Second)}, at(16*time.Second)); !reflect.DeepEqual(replaced(cmds), []int{0}) {
		t.Fatalf("a cold worker silent 16 s: replaced %v", replaced(cmds))
	}
}

func TestSilenceLimitDoublesPerFailure(t *testing.T) {
	p, _ := started(t, 2, 4)
	p.Workers[0].Stepped = true
	for failures, want := range []time.Duration{3 * time.Second, 6 * time.Second, 12 * time.Second, ColdSilence, ColdSilence} {
		p.Run.Failures = failures
		if got := p.SilenceLimit(0); got != want {
			t.Errorf("%d failures: limit %v, want %v", failures, got, want)
		}
	}
}

func TestLateWatchForgivesSilence(t *testing.T) {
	p, _ := started(t, 1, 4)
	p.Workers[0].Stepped = true
	// The check was due at 1 s and ran at 20 s: the page's thread was held up.
	cmds := p.Watch(Watch{p.Run.ID, at(0)}, at(20*time.Second))
	if len(replaced(cmds)) != 0 || p.Workers[0].LastSeen != at(20*time.Second) {
		t.Fatalf("a late check replaced %v; clock %v", replaced(cmds), p.Workers[0].LastSeen)
	}
}

func TestThreeFailuresStopTheRun(t *testing.T) {
	p, _ := started(t, 2, 4)
	for i := 0; i < 2; i++ {
		p.Said(1, searchworker.Response{Type: "error", Error: "crash"}, t0, 0)
		p.Said(1, searchworker.Response{Type: "ready"}, t0, 0)
	}
	cmds := p.Said(1, searchworker.Response{Type: "error", Error: "crash"}, t0, 0)
	if !reflect.DeepEqual(replaced(cmds), []int{0, 1}) || !p.Run.Settled() || !strings.Contains(p.Run.Err, "three times in a row") {
		t.Fatalf("replaced %v, run %+v", replaced(cmds), p.Run)
	}
	if p.Run.Close() != Failed || p.Restarted != 3 {
		t.Errorf("phase %q, restarted %d", p.Run.Phase, p.Restarted)
	}
}

func TestProgressForgivesFailures(t *testing.T) {
	p, _ := started(t, 2, 4)
	p.Said(1, searchworker.Response{Type: "error", Error: "crash"}, t0, 0)
	p.Said(0, results(p.Run.ID, 0), t0, 0)
	if p.Run.Failures != 0 {
		t.Fatalf("failures %d after progress", p.Run.Failures)
	}
}

func TestWorkerDeadAfterItsShareIsNotSentAnEmptyList(t *testing.T) {
	p, _ := started(t, 2, 4)
	id := p.Run.ID
	p.Said(0, results(id, 0, 2), at(time.Second), 0)
	cmds := p.Said(0, searchworker.Response{Type: "error", Error: "crash"}, at(time.Second), 0)
	if !reflect.DeepEqual(replaced(cmds), []int{0}) || p.Run.Pending[0] || len(p.Run.Resend) != 0 {
		t.Fatalf("replaced %v, pending %v, resend %v", replaced(cmds), p.Run.Pending, p.Run.Resend)
	}
	if cmds := p.Said(0, searchworker.Response{Type: "ready"}, at(2*time.Second), 0); len(posts(cmds)) != 0 {
		t.Fatalf("the replacement was sent %v", posts(cmds))
	}
	if !strings.Contains(p.Run.Note, "every result it owed had come") {
		t.Errorf("note %q", p.Run.Note)
	}
}

func TestDiversityRecoveryRunsEverythingAgain(t *testing.T) {
	p := readyPool(t, 2)
	pr := params(4)
	pr.LambdaD = 1
	k := posts(mustStart(t, p, pr))[0].Worker
	p.Said(k, results(p.Run.ID, 0, 1), t0, 0)
	cmds := p.Said(k, searchworker.Response{Type: "error", Error: "crash"}, t0, 0)
	if len(cmds) != 2 || cmds[1] != (ResultsReset{}) {
		t.Errorf("commands %v: the shell is not told to forget the results", cmds)
	}
	if len(p.Run.Results) != 0 || len(p.Run.Got) != 0 || p.Run.Resets != 1 || len(p.Run.Resend[k]) != 4 {
		t.Fatalf("%+v", p.Run)
	}
}

func mustStart(t *testing.T, p *Pool, pr clue.Params) []Command {
	t.Helper()
	cmds, ok := p.Start(x0, pr, false, t0)
	if !ok {
		t.Fatal("did not start")
	}
	return cmds
}

func TestCancelAsksAndSchedulesTheGrace(t *testing.T) {
	p, _ := started(t, 2, 4)
	cmds := p.Cancel()
	ps := posts(cmds)
	if len(ps) != 2 || ps[0].Request.Type != "cancel" || p.Run.Phase != Cancelling {
		t.Fatalf("%v %q", cmds, p.Run.Phase)
	}
	if a, ok := cmds[2].(After); !ok || a.Delay != CancelGrace || a.Event != (CancelDue{p.Run.ID}) {
		t.Errorf("%#v", cmds[2])
	}
	if p.Cancel() != nil {
		t.Error("a second cancel did something")
	}
}

func TestCancelDueReplacesStragglers(t *testing.T) {
	p, _ := started(t, 2, 4)
	p.Cancel()
	p.Said(0, searchworker.Response{Type: "done", ID: p.Run.ID, Error: searchworker.Cancelled}, t0, 0)
	cmds := p.CancelDue(CancelDue{p.Run.ID}, at(time.Second))
	if !reflect.DeepEqual(replaced(cmds), []int{1}) || p.Run.Close() != Cancelled {
		t.Fatalf("replaced %v, phase %q", replaced(cmds), p.Run.Phase)
	}
	if p.Restarted != 0 {
		t.Error("a cancel's replacement counted as a failure")
	}
}

func TestCancelDueOfAnOldRunIgnored(t *testing.T) {
	p, _ := started(t, 2, 4)
	old := p.Run.ID
	p.Cancel()
	p.Said(0, searchworker.Response{Type: "done", ID: old}, t0, 0)
	p.Said(1, searchworker.Response{Type: "done", ID: old}, t0, 0)
	p.Run.Close()
	p.Start(x0, params(4), false, t0)
	if cmds := p.CancelDue(CancelDue{old}, at(time.Second)); cmds != nil {
		t.Fatalf("an old cancel's grace acted on the new run: %v", cmds)
	}
}

func TestDropLeavesLateMessagesUnmatched(t *testing.T) {
	p := readyPool(t, 1)
	p.Start(x0, params(4), true, t0)
	old := p.Run.ID
	cmds := p.Drop()
	if len(posts(cmds)) != 1 || p.Superseded != 1 || p.Run.ID == old || len(p.Run.Pending) != 0 {
		t.Fatalf("%v, superseded %d", cmds, p.Superseded)
	}
	p.Said(0, results(old, 1), t0, 0)
	if len(p.Run.Results) != 0 {
		t.Fatal("a dropped run's result was taken")
	}
}

func TestAdoptTakesOverAnEarlyRun(t *testing.T) {
	p := NewPool(2, true, t0)
	for k := 0; k < 2; k++ {
		p.Said(k, searchworker.Response{Type: "ready"}, t0, 50)
	}
	cmds := p.Adopt(1, x0, params(5), t0, at(2*time.Second))
	if len(posts(cmds)) != 0 || p.Run.ID != 1 || !reflect.DeepEqual(p.Run.Owed[1], []int{1, 3}) {
		t.Fatalf("%v %+v", cmds, p.Run)
	}
	if id := p.NewID(); id != 2 {
		t.Errorf("the next ID is %d, not 2", id)
	}
}

func TestWatchOfAnOldRunIgnored(t *testing.T) {
	p, _ := started(t, 1, 2)
	if cmds := p.Watch(Watch{p.Run.ID - 1, t0}, at(time.Minute)); cmds != nil {
		t.Fatalf("%v", cmds)
	}
}

func TestSharesMatchTheEarlyRunsSplit(t *testing.T) {
	for n := 1; n <= 4; n++ {
		all := make([]int, n)
		for k := range all {
			all[k] = k
		}
		s := Shares(37, all)
		for k := 0; k < n; k++ {
			if !reflect.DeepEqual(s[k], searchworker.Share(37, k, n)) {
				t.Errorf("%d workers, worker %d: %v vs %v", n, k, s[k], searchworker.Share(37, k, n))
			}
		}
	}
}

func TestSharesGiveEveryRestartOnce(t *testing.T) {
	s := Shares(10, []int{0, 2})
	if len(s[0]) != 5 || len(s[2]) != 5 || s[0][1] != 2 || s[2][0] != 1 {
		t.Fatalf("shares %v", s)
	}
	seen := map[int]bool{}
	for _, share := range Shares(101, []int{0, 1, 2}) {
		for _, i := range share {
			if seen[i] {
				t.Fatalf("restart %d given twice", i)
			}
			seen[i] = true
		}
	}
	if len(seen) != 101 {
		t.Fatalf("%d of 101 restarts given out", len(seen))
	}
}

func TestGivenUpAndShellReplace(t *testing.T) {
	p := NewPool(2, true, t0)
	p.Workers[1].Starts = 3
	if p.GivenUp(3) != 1 {
		t.Fatalf("given up %d", p.GivenUp(3))
	}
	p.Replace(0, at(time.Second))
	if p.Workers[0].Early || p.AllEarly() || p.Workers[0].LastSeen != at(time.Second) {
		t.Fatalf("%+v", p.Workers[0])
	}
}

func TestCloseLeavesAnUnsettledRun(t *testing.T) {
	p, _ := started(t, 1, 2)
	if p.Run.Close() != Running {
		t.Fatalf("closed with a worker at it: %q", p.Run.Phase)
	}
}

// TestSilenceLimitGrowsWithSteps: a worker whose steps are long (a big model on a slow device) may be silent for
// three of its longest steps before it is taken for dead; the time between two searches is no step.
func TestSilenceLimitGrowsWithSteps(t *testing.T) {
	now := time.Unix(1000, 0)
	p := NewPool(1, false, now)
	p.Said(0, searchworker.Response{Type: "alive", ID: 7}, now, 0)
	if got := p.SilenceLimit(0); got != WorkerSilence {
		t.Fatalf("after a first heartbeat the limit is %v, want %v", got, WorkerSilence)
	}
	p.Said(0, searchworker.Response{Type: "alive", ID: 7}, now.Add(4*time.Second), 0)
	if got := p.SilenceLimit(0); got != 12*time.Second {
		t.Errorf("after a 4 s step the limit is %v, want 12s", got)
	}
	// Ten minutes later, another search's first news: the wait between searches is not a step.
	p.Said(0, searchworker.Response{Type: "results", ID: 8}, now.Add(10*time.Minute), 0)
	if got := p.SilenceLimit(0); got != 12*time.Second {
		t.Errorf("after an idle wait between searches the limit is %v, want 12s", got)
	}
}

// TestColdSilenceGrowsWithMeasuredSteps: before a worker's first news in a search, it may be silent for longer
// than ColdSilence when the device's measured step cost says its share's first step is long (a big model).
func TestColdSilenceGrowsWithMeasuredSteps(t *testing.T) {
	now := time.Unix(1000, 0)
	p := NewPool(1, false, now)
	p.Said(0, searchworker.Response{Type: "ready"}, now, 0)
	if _, ok := p.Start(make([]float32, 4), clue.Params{N: 50, MaxSteps: 10}, false, now); !ok {
		t.Fatal("the search did not start")
	}
	if got := p.SilenceLimit(0); got != ColdSilence {
		t.Fatalf("with no measure the cold limit is %v, want %v", got, ColdSilence)
	}
	p.Said(0, searchworker.Response{Type: "warm", Seconds: 1, RestartSteps: 10}, now, 0) // 0.1 s a restart-step: 5 s a step of 50
	if got := p.SilenceLimit(0); got != 30*time.Second {
		t.Errorf("with 5 s steps the cold limit is %v, want 30s", got)
	}
}
