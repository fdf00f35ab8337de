package searchworker

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/deltaclue/deltaclue/engine"
	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/figures"
	"github.com/deltaclue/deltaclue/engine/glam"
	"github.com/deltaclue/deltaclue/mnist"
	"github.com/deltaclue/deltaclue/weights"
)

func newWorker(t *testing.T) *Worker {
	w, ready := New("test")
	if ready.Type != "ready" || ready.Fingerprint == 0 || ready.Version != "test" {
		t.Fatalf("first message %+v", ready)
	}
	return w
}

func digit(t *testing.T, i int) []float32 {
	s, err := mnist.HeldOut()
	if err != nil {
		t.Fatal(err)
	}
	return s.Float(i, nil)
}

// roundTrip sends a request through the wire format, as the page does, and collects the decoded responses,
// one "result" per explanation of a "results" batch (the tests read them one by one), without heartbeats.
func roundTrip(t *testing.T, w *Worker, req Request) []Response {
	parsed, err := UnmarshalRequest(MarshalRequest(req))
	if err != nil {
		t.Fatal(err)
	}
	var out []Response
	w.Handle(parsed, func(r Response) {
		back, err := UnmarshalResponse(MarshalResponse(r))
		if err != nil {
			t.Fatal(err)
		}
		if back.Type == "alive" {
			return // a heartbeat, sent whenever a search is silent for AliveEvery: a busy machine's test gets some
		}
		if back.Type == "results" {
			for i := range back.Explanations {
				out = append(out, Response{Type: "result", ID: back.ID, Explanations: back.Explanations[i : i+1]})
			}
			return
		}
		out = append(out, back)
	})
	return out
}

func TestExplainMatchesTheNativeSearchThroughJSON(t *testing.T) {
	for _, s := range []clue.Scheme{clue.S1, clue.S6} { // S6: the worker's models carry the bundle's translations
		t.Run(s.String(), func(t *testing.T) { explainMatchesNative(t, s) })
	}
}

func explainMatchesNative(t *testing.T, scheme clue.Scheme) {
	w := newWorker(t)
	p := clue.Defaults()
	p.N, p.Scheme = 12, scheme
	x0 := digit(t, 1735)
	// Two workers' shares, as a pool of two splits the restarts.
	var got []clue.Explanation
	for _, share := range [][]int{{0, 2, 4, 6, 8, 10}, {1, 3, 5, 7, 9, 11}} {
		resps := roundTrip(t, w, Request{Type: "explain", ID: 7, X0: x0, Params: &p, Restarts: share})
		if last := resps[len(resps)-1]; last.Type != "done" || last.Error != "" || last.ID != 7 {
			t.Fatalf("last message %+v", last)
		}
		for _, r := range resps[:len(resps)-1] {
			if r.Type != "result" || r.ID != 7 {
				t.Fatalf("message %+v", r)
			}
			got = append(got, r.Explanations[0])
		}
	}
	m, _ := glam.ShippedModels()
	prob, _ := clue.NewProblem(m, x0)
	want, err := clue.Search(context.Background(), prob, p, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	byRestart := map[int]clue.Explanation{}
	for _, e := range got {
		byRestart[e.Restart] = e
	}
	for _, e := range want {
		a, _ := json.Marshal(e)
		b, _ := json.Marshal(byRestart[e.Restart])
		if string(a) != string(b) {
			t.Fatalf("restart %d differs after the worker protocol", e.Restart)
		}
	}
}

// TestTraceEndsAtTheSearchResult: a traced restart, through JSON, ends at the explanation the search gave it,
// bit for bit, with its frames decoded.
func TestTraceEndsAtTheSearchResult(t *testing.T) {
	w := newWorker(t)
	p := clue.Defaults()
	p.N = 6
	x0 := digit(t, 1735)
	var exps []clue.Explanation
	for _, r := range roundTrip(t, w, Request{Type: "explain", ID: 1, X0: x0, Params: &p}) {
		if r.Type == "result" {
			exps = append(exps, r.Explanations[0])
		}
	}
	resps := roundTrip(t, w, Request{Type: "trace", ID: 2, X0: x0, Params: &p, Restart: 4})
	if len(resps) != 1 || resps[0].Type != "traced" || resps[0].Trajectory == nil {
		t.Fatalf("trace answered %+v", resps)
	}
	tr := resps[0].Trajectory
	var result clue.Explanation
	for _, e := range exps {
		if e.Restart == 4 {
			result = e
		}
	}
	ja, _ := json.Marshal(tr.Explanation)
	jb, _ := json.Marshal(result)
	if string(ja) != string(jb) || tr.Restart != 4 {
		t.Errorf("the traced explanation differs from the search's")
	}
	last := tr.Path[len(tr.Path)-1]
	for k := range last {
		if last[k] != result.Z[k] {
			t.Fatalf("the path ends at %v, the result is at %v", last, result.Z)
		}
	}
	if n := len(tr.Frames); n != TraceFrames || tr.Frames[n-1].Step != result.Steps {
		t.Errorf("%d frames, the last at step %d of %d", n, tr.Frames[n-1].Step, result.Steps)
	}
	if r := roundTrip(t, w, Request{Type: "trace", ID: 3, X0: x0, Params: &p, Restart: 99}); r[0].Type != "error" {
		t.Errorf("a trace of restart 99 of 6 answered %+v", r[0])
	}
	if r := roundTrip(t, w, Request{Type: "trace", ID: 4, X0: x0, Restart: 1}); r[0].Type != "error" {
		t.Errorf("a trace without parameters answered %+v", r[0])
	}
}

func TestInspect(t *testing.T) {
	w := newWorker(t)
	resps := roundTrip(t, w, Request{Type: "inspect", ID: 3, X0: digit(t, 0)})
	if len(resps) != 1 || resps[0].Type != "inspected" {
		t.Fatalf("%+v", resps)
	}
	in := resps[0].Inspection
	if len(in.Z0) != 16 || len(in.Reconstruction) != 784 || len(in.Prediction.Probs) != 10 || in.MultiplyAddsPer != 2836480 {
		t.Fatalf("inspection %+v", in)
	}
}

// TestInspectAmortised: an inspection of an uncertain digit carries GLAM-CLUE's answers towards the plausible
// labels with a translation from the label read (test digit 1735 reads 7: 7→7 and 7→8), each the engine's
// glam.Explain, and their time; a worker whose bundle has no translations answers without them.
func TestInspectAmortised(t *testing.T) {
	w := newWorker(t)
	in := roundTrip(t, w, Request{Type: "inspect", ID: 3, X0: digit(t, 1735)})[0].Inspection
	if len(in.Amortised) != 2 || in.Amortised[0].To != 7 || in.Amortised[1].To != 8 || in.AmortisedMs <= 0 {
		t.Fatalf("amortised %+v in %v ms: want 7→7 and 7→8", in.Amortised, in.AmortisedMs)
	}
	ts, err := glam.Shipped()
	if err != nil {
		t.Fatal(err)
	}
	m, _ := clue.ShippedModels()
	want := glam.Explain(m, ts, digit(t, 1735), in.Z0, 7, []int{7, 8}, clue.Defaults().HThreshold)
	for i, a := range in.Amortised {
		if a.K != want[i].K || a.Sure != want[i].Sure || a.Distance != want[i].Distance || len(a.Image) != 784 {
			t.Errorf("answer %d: %+v, want glam.Explain's %+v", i, a, want[i])
		}
	}
	files, _ := weights.DecodeBundle(weights.ShippedBundle())
	var three []weights.BundleFile
	for _, f := range files {
		if f.Name != weights.BundleGlobal {
			three = append(three, f)
		}
	}
	old, ready := NewFromBundle("v", weights.EncodeBundle(three))
	if ready.Type != "ready" {
		t.Fatalf("a bundle without translations: %+v", ready)
	}
	if in := roundTrip(t, old, Request{Type: "inspect", ID: 4, X0: digit(t, 1735)})[0].Inspection; len(in.Amortised) != 0 {
		t.Errorf("a worker without translations answered %+v", in.Amortised)
	}
}

func TestCancelStopsASearch(t *testing.T) {
	w := newWorker(t)
	p := clue.Defaults()
	p.N, p.MaxSteps, p.RelTol, p.AbsTol = 50, 10000, 0, 0 // would run 10,000 steps
	steps := 0
	w.Yield = func() {
		steps++
		if steps == 3 { // the page's cancel arrives while the search runs
			w.Handle(Request{Type: "cancel", ID: 9}, func(Response) {})
		}
	}
	var last Response
	w.Handle(Request{Type: "explain", ID: 9, X0: digit(t, 5), Params: &p}, func(r Response) { last = r })
	if last.Type != "done" || last.Error != Cancelled || steps > 5 {
		t.Fatalf("after cancel: %+v after %d steps", last, steps)
	}
}

// TestCancelBeforeStart: a search cancelled while it waits in the worker's queue (a δ sweep queues one per
// radius) ends at once when its turn comes, and a later search with another ID still runs.
// TestAliveDuringALongSearch: a search with nothing to report for a while says it is alive.
func TestAliveDuringALongSearch(t *testing.T) {
	w := newWorker(t)
	p := clue.Defaults()
	p.N, p.MaxSteps, p.RelTol, p.AbsTol = 100, 10000, 0, 0
	start := time.Now()
	steps := 0
	w.Yield = func() { // stands in for the page's cancel after 1.3 s
		if steps++; time.Since(start) > 1300*time.Millisecond {
			w.Handle(Request{Type: "cancel", ID: 4}, func(Response) {})
		}
	}
	alive := 0
	w.Handle(Request{Type: "explain", ID: 4, X0: digit(t, 5), Params: &p}, func(r Response) {
		if r.Type == "alive" {
			alive++
		}
	})
	if alive < 2 {
		t.Errorf("%d alive messages in a 1.3 s search with no results", alive)
	}
}

func TestCancelBeforeStart(t *testing.T) {
	w := newWorker(t)
	p := clue.Defaults()
	p.N, p.MaxSteps, p.RelTol, p.AbsTol = 50, 10000, 0, 0
	w.Handle(Request{Type: "cancel", ID: 11}, func(Response) {})
	steps := 0
	w.Yield = func() { steps++ }
	var resps []Response
	w.Handle(Request{Type: "explain", ID: 11, X0: digit(t, 5), Params: &p}, func(r Response) { resps = append(resps, r) })
	if len(resps) != 1 || resps[0].Type != "done" || resps[0].Error != Cancelled || steps > 1 {
		t.Fatalf("a search cancelled before it started answered %+v after %d steps", resps, steps)
	}
	p.N, p.MaxSteps = 2, 3
	resps = nil
	w.Handle(Request{Type: "explain", ID: 12, X0: digit(t, 5), Params: &p}, func(r Response) { resps = append(resps, r) })
	if last := resps[len(resps)-1]; last.Type != "done" || last.Error != "" || len(resps) != 2 || len(resps[0].Explanations) != 2 {
		t.Fatalf("the next search answered %+v", resps)
	}
}

func TestBadRequests(t *testing.T) {
	w := newWorker(t)
	bad := clue.Defaults()
	bad.Delta = -1
	cases := []struct {
		req  Request
		want string
	}{
		{Request{Type: "explain", ID: 1, X0: digit(t, 1)}, "no parameters"},
		{Request{Type: "explain", ID: 2, X0: make([]float32, 784), Params: &bad}, "empty"},
		{Request{Type: "explain", ID: 3, X0: digit(t, 1), Params: &bad}, "delta"},
		{Request{Type: "explain", ID: 4, X0: make([]float32, 3), Params: &bad}, "784"},
		{Request{Type: "inspect", ID: 5, X0: nil}, "784"},
	}
	for _, c := range cases {
		resps := roundTrip(t, w, c.req)
		if len(resps) != 1 || !strings.Contains(resps[0].Error, c.want) || resps[0].ID != c.req.ID {
			t.Errorf("%+v: %+v, want one error mentioning %q", c.req.Type, resps, c.want)
		}
	}
	for _, bad := range [][]byte{nil, []byte("{\"type\":"), {'D', 'W', 1, 99, 0, 0, 0, 0}, {'D', 'W', 2, 1, 0, 0, 0, 0},
		MarshalRequest(Request{Type: "inspect", X0: make([]float32, 784)})[:100]} {
		if _, err := UnmarshalRequest(bad); err == nil {
			t.Errorf("malformed request %q accepted", bad)
		}
	}
}

func FuzzRequest(f *testing.F) {
	w, _ := New("fuzz")
	bad := clue.Defaults()
	bad.Delta = -1
	f.Add(MarshalRequest(Request{Type: "inspect", ID: 1, X0: []float32{0.5, 1, 0}}))
	f.Add(MarshalRequest(Request{Type: "cancel", ID: 3}))
	f.Add(MarshalRequest(Request{Type: "explain", ID: 2, Params: &bad, Restarts: []int{1, 2}}))
	f.Add(MarshalRequest(Request{Type: "trace", ID: 2, Params: &bad, Restart: 4}))
	f.Add(MarshalRequest(Request{Type: "summarize", ID: 5, X0: []float32{0, 1}, Z0: []float32{0.5}, Classes: 2, Params: &bad,
		Explanations: []clue.Explanation{{Restart: 1, Image: []float32{1, 1}, Z: []float32{1}, Probs: []float32{0.2, 0.8}, Label: 1, Accepted: true},
			{Restart: 0, Image: []float32{1, 0}, Z: []float32{-1}, Probs: []float32{0.9, 0.1}, Accepted: true}, {Restart: 2, Failed: "x"}},
		Figures: true, Names: []string{"cat", "dog"}}))
	f.Fuzz(func(t *testing.T, data []byte) {
		req, err := UnmarshalRequest(data)
		if err != nil {
			return
		}
		// Compared as bytes, not with DeepEqual: a NaN in x0 must come back with its bits, and NaN ≠ NaN.
		if again, err := UnmarshalRequest(MarshalRequest(req)); err != nil || !bytes.Equal(MarshalRequest(again), MarshalRequest(req)) {
			t.Fatalf("a decoded request does not survive a round trip: %v", err)
		}
		if (req.Type == "explain" || req.Type == "trace") && req.Params != nil && req.Params.Validate() == nil {
			return // a valid search may take seconds: the protocol tests run those
		}
		var got []Response
		w.Handle(req, func(r Response) { got = append(got, r) })
		for _, r := range got {
			if strings.HasPrefix(r.Error, "the search worker failed") {
				t.Fatalf("Handle panicked: %s", r.Error)
			}
			if _, err := UnmarshalResponse(MarshalResponse(r)); err != nil {
				t.Fatalf("a response does not survive the wire: %v", err)
			}
		}
	})
}

// FuzzResponse: the page's decoder never panics, and what it reads survives a second trip.
func FuzzResponse(f *testing.F) {
	f.Add(MarshalResponse(Response{Type: "ready", Version: "v", Fingerprint: 7}))
	f.Add(MarshalResponse(Response{Type: "results", ID: 2, Explanations: []clue.Explanation{{Restart: 1, Z: []float32{1, 2}, Failed: "x"}}}))
	f.Add(MarshalResponse(Response{Type: "traced", ID: 3, Trajectory: &clue.Trajectory{Path: [][]float32{{1}}, Frames: []clue.Frame{{Step: 1}}}}))
	f.Add(MarshalResponse(Response{Type: "done", ID: 2, Seconds: 1.5, Error: "cancelled"}))
	f.Add(MarshalResponse(Response{Type: "warm", Seconds: 0.5, RestartSteps: 1000}))
	f.Add(MarshalResponse(Response{Type: "summarized", ID: 4, Summarized: &Summarized{Count: 2, Summary: clue.Summary{Restarts: 2,
		LabelCounts: []int{1, 1}, Modes: []int{1, 1}, LabelDistribution: []float64{0.5, 0.5}}, Marks: []Mark{{0, 0, -1}, {1, 0, 0}}}}))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := UnmarshalResponse(data)
		if err != nil {
			return
		}
		again, err := UnmarshalResponse(MarshalResponse(r))
		if err != nil {
			t.Fatalf("a decoded response does not survive a round trip: %v", err)
		}
		if a, b := MarshalResponse(again), MarshalResponse(r); !bytes.Equal(a, b) {
			t.Fatal("a decoded response re-encodes differently")
		}
		// Read with its strings in the message's memory, it is the same response.
		shared, err := UnmarshalResponseShared(bytes.Clone(data))
		if err != nil {
			t.Fatalf("the message reads with copied strings but not with shared ones: %v", err)
		}
		if a, b := MarshalResponse(shared), MarshalResponse(r); !bytes.Equal(a, b) {
			t.Fatal("the message reads differently with shared strings")
		}
	})
}

// TestWireRoundTrip: every message type, with every field set, comes back bit for bit (floats by their bits).
func TestWireRoundTrip(t *testing.T) {
	p := clue.Defaults()
	p.Scheme, p.Rho, p.Constraint, p.DistanceMean, p.Seed, p.LambdaD = clue.S5, clue.LInf, clue.Filter, true, 1<<63+5, 0.25
	p.Convergence, p.Lock, p.Sparse = clue.CLUERule, "Age,Marital", true
	e := clue.Explanation{Changed: []string{"Debt", "Records"}, Reverted: []string{"Income"}, Restart: 3, Start: []float32{1, -2}, Z: []float32{float32(math.Inf(1)), -0.0, 1e-45}, Image: []float32{0.5},
		Label: 9, Probs: []float32{0.1, 0.9}, HTotal: 0.1, HAleatoric: 0.05, HEpistemic: 0.05, Distance: 28.3, Rho: 2,
		OnShell: true, Cost: 0.9, Steps: 17, Converged: true, Accepted: true, Failed: "ünïcode", YNN: 0.6, Mode: 2, DuplicateOf: -1}
	mean, negZero := float32(41.25), float32(math.Copysign(0, -1))
	requests := []Request{
		{Type: "inspect", ID: -4, X0: []float32{0, 1}},
		{Type: "explain", ID: 5, X0: []float32{0.25}, Params: &p, Restarts: []int{0, 2, 4}},
		{Type: "explain", ID: 6, X0: []float32{0.25}, Params: &p},
		{Type: "explain", ID: 6, X0: []float32{0.25}, Params: &p, Restarts: []int{}},
		{Type: "trace", ID: 7, X0: []float32{0.25}, Params: &p, Restart: 9},
		{Type: "cancel", ID: 8},
	}
	for _, q := range requests {
		got, err := UnmarshalRequest(MarshalRequest(q))
		if err != nil || !reflect.DeepEqual(got, q) {
			t.Errorf("%s: %+v, %v; want %+v", q.Type, got, err, q)
		}
	}
	responses := []Response{
		{Type: "ready", Version: "abc", Fingerprint: 0xdeadbeef, At: 1764072000123.25},
		{Type: "error", ID: -3, Error: "bad"},
		{Type: "inspected", ID: -2, Inspection: &Inspection{Prediction: engine.Uncertainty{Probs: []float32{1}, Total: 2}, Z0: []float32{3},
			Reconstruction: []float32{4}, Reconstructed: engine.Uncertainty{Probs: []float32{5}}, MultiplyAddsPer: 2836480}},
		{Type: "inspected", ID: -4, Inspection: &Inspection{Prediction: engine.Uncertainty{Probs: []float32{1}}, Z0: []float32{3},
			Amortised: []Amortised{{To: 9, Label: 9, Sure: true, K: 0.75, Shift: 1.5, HTotal: 0.1, Distance: 40.5, Image: []float32{0.25, 1}},
				{To: 8, Label: 6, K: 2, Shift: 5, HTotal: 0.8, Distance: 60}}, AmortisedMs: 2.5}},
		{Type: "results", ID: 5, Explanations: []clue.Explanation{e, {Restart: 4, Failed: "NaN", Mode: -1, DuplicateOf: -1, YNN: -1}}},
		// A regression's: its predictive means (the explanation's and the inspected input's).
		{Type: "results", ID: 9, Explanations: []clue.Explanation{{Restart: 1, Mean: &mean, Probs: []float32{0.2, 0.8}, HTotal: 3.5, Mode: -1, DuplicateOf: -1}}},
		{Type: "inspected", ID: -5, Inspection: &Inspection{Prediction: engine.Uncertainty{Probs: []float32{0.3, 0.7}, Total: 9, Mean: &mean}, Z0: []float32{3},
			Reconstruction: []float32{4}, Reconstructed: engine.Uncertainty{Probs: []float32{0.5, 0.5}, Mean: &negZero}}},
		{Type: "traced", ID: 7, Trajectory: &clue.Trajectory{Restart: 3, Explanation: e, Path: [][]float32{{1, 2}, {3, 4}},
			Frames: []clue.Frame{{Step: 0, Z: []float32{1}, Image: []float32{0.5}, Label: 4, HTotal: 0.5, Distance: 3, Cost: 1}}}},
		{Type: "done", ID: 5, Seconds: 0.25, Error: Cancelled, HeapBytes: 123456, SysBytes: 1 << 40},
		// A set of rows' summary has its sparsity; an image's none.
		{Type: "summarized", ID: 3, Summarized: &Summarized{Count: 2, Summary: clue.Summary{Restarts: 2, Accepted: 1, LabelCounts: []int{0, 1},
			LabelDistribution: []float64{0, 1}, Modes: []int{0, 1}, Sparsity: &clue.Stat{Min: 1, Mean: 2.5, Max: 4}, GivenBack: &clue.Stat{Min: 0, Mean: 3.25, Max: 7}}, Marks: []Mark{{Restart: 1, Mode: 0, DuplicateOf: -1}}}},
		{Type: "summarized", ID: 4, Summarized: &Summarized{Count: 1, Summary: clue.Summary{Restarts: 1, LabelCounts: []int{0},
			LabelDistribution: []float64{0}, Modes: []int{0}}}},
		{Type: "warm", Seconds: 0.75, RestartSteps: 1000},
		{Type: "alive", ID: 5},
	}
	for _, r := range responses {
		got, err := UnmarshalResponse(MarshalResponse(r))
		if err != nil || !reflect.DeepEqual(got, r) {
			t.Errorf("%s: %+v, %v; want %+v", r.Type, got, err, r)
		}
	}
}

// TestNewFromBundle: the worker the page starts loads the models from the bundle it is handed; a damaged bundle
// is an error message, and such a worker answers every request with an error instead of running.
func TestNewFromBundle(t *testing.T) {
	b := weights.ShippedBundle()
	_, ready := NewFromBundle("v", b)
	want, _ := weights.ShippedFingerprint()
	if ready.Type != "ready" || ready.Fingerprint != want {
		t.Fatalf("from the shipped bundle: %+v", ready)
	}
	if _, r := NewFromHashedBundle("v", b); r.Type != ready.Type || r.Fingerprint != ready.Fingerprint || r.Version != ready.Version {
		t.Fatalf("from the shipped bundle, its hash matched: %+v, want %+v", r, ready)
	}
	if _, r := NewFromHashedBundle("v", b[:len(b)-1]); r.Type != "error" {
		t.Fatalf("from a bundle cut short, its hash said to match: %+v", r)
	}
	bad := append([]byte(nil), b...)
	bad[len(bad)-100] ^= 0x40
	w, msg := NewFromBundle("v", bad)
	if msg.Type != "error" || !strings.Contains(msg.Error, "the models failed to load") {
		t.Fatalf("from a damaged bundle: %+v", msg)
	}
	p := clue.Defaults()
	if r := roundTrip(t, w, Request{Type: "explain", ID: 1, X0: digit(t, 5), Params: &p}); len(r) != 1 || r[0].Type != "error" {
		t.Errorf("a worker without models answered %+v", r)
	}
}

// TestWorkerScriptErrorDecodes: web/worker.js writes its load failures in the wire format by hand; the header
// it writes (read from the script) with a text decodes as an error message.
func TestWorkerScriptErrorDecodes(t *testing.T) {
	js, err := os.ReadFile(filepath.Join("..", "..", "..", "web", "worker.js"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`msg\.set\(\[([0-9, ]+)\]\)`).FindSubmatch(js)
	if m == nil {
		t.Fatal("web/worker.js writes no header with msg.set([...])")
	}
	var msg []byte
	for _, f := range strings.Split(string(m[1]), ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 || n > 255 {
			t.Fatalf("web/worker.js's header byte %q", f)
		}
		msg = append(msg, byte(n))
	}
	text := "the search worker (worker.wasm) failed to load: CompileError"
	msg = append(msg, byte(len(text)), 0, 0, 0)
	r, err := UnmarshalResponse(append(msg, text...))
	if err != nil || r.Type != "error" || r.Error != text {
		t.Fatalf("%+v, %v", r, err)
	}
}

// forward passes a search worker's "results" message of xs on to summary worker w for run id, as the page does:
// the message's bytes as they came, the ID rewritten in place. The worker answers nothing.
func forward(t *testing.T, w *Worker, id int, xs []clue.Explanation) {
	t.Helper()
	b := MarshalResponse(Response{Type: "results", ID: 12345, Explanations: xs})
	binary.LittleEndian.PutUint32(b[IDOffset:], uint32(int32(id)))
	req, err := UnmarshalRequest(b)
	if err != nil || req.Type != "results" || req.ID != id || len(req.Explanations) != len(xs) {
		t.Fatalf("a search worker's results read as a request: %+v, %v", req.Type, err)
	}
	w.Handle(req, func(r Response) { t.Errorf("the summary worker answered a batch passed on: %+v", r) })
}

// TestSummarizeEqualsSummarize: a set sent to a summary worker in batches, out of order and over the wire
// (half of them passed on as a search worker sent them),
// gets the summary and the marks that clue.Summarize gives the whole set sorted by restart, and CARLA's measures
// that clue.CARLAOf gives it, bit for bit; a new
// ID starts afresh; a restart that does not fit the input is refused with a sentence.
func TestSummarizeEqualsSummarize(t *testing.T) {
	m, err := clue.ShippedModels()
	if err != nil {
		t.Fatal(err)
	}
	prob, err := clue.NewProblem(m, digit(t, 1735))
	if err != nil {
		t.Fatal(err)
	}
	p := clue.Defaults()
	p.N, p.MaxSteps = 120, 20
	exps, err := clue.Search(context.Background(), prob, p, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := append([]clue.Explanation(nil), exps...)
	sum := clue.Summarize(prob.X0, prob.Z0, m.BNN.Classes, p, want)
	if sum.Duplicates == 0 || sum.Accepted == 0 {
		t.Fatalf("the test set has %d accepted, %d duplicates: it tests too little", sum.Accepted, sum.Duplicates)
	}

	label0 := 0
	for k, v := range prob.Pred0.Probs {
		if v > prob.Pred0.Probs[label0] {
			label0 = k
		}
	}
	carla := clue.CARLAOf(prob.X0, label0, want)
	if carla.Valid == 0 || carla.Valid == len(want) {
		t.Fatalf("%d of %d restarts change the label: CARLA's measures are tested too little", carla.Valid, len(want))
	}

	w, ready := NewSummarizer("test")
	if ready.Type != "ready" {
		t.Fatalf("first message %+v", ready)
	}
	// Batches as two workers send them: odd and even restarts interleaved, each batch in its own order.
	var odd, even []clue.Explanation
	for _, x := range exps {
		if x.Restart%2 == 1 {
			odd = append(odd, x)
		} else {
			even = append(even, x)
		}
	}
	batches := [][]clue.Explanation{odd[:20], even[:35], odd[20:], even[35:]}
	path := [][]float32{prob.Z0, exps[3].Z}
	names := []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"} // the legend names them
	var last *Summarized
	sent := 0
	for i, b := range batches {
		final := i == len(batches)-1
		req := Request{Type: "summarize", ID: 7, X0: prob.X0, Z0: prob.Z0, Classes: m.BNN.Classes, Label0: label0, Params: &p, Explanations: b}
		if i%2 == 0 { // passed on as the search worker sent it, then a summary asked for with nothing new
			forward(t, w, 7, b)
			req.Explanations = nil
		}
		if final {
			req.Figures, req.Path, req.Names = true, path, names
		}
		got := roundTrip(t, w, req)
		if len(got) != 1 || got[0].Type != "summarized" || got[0].Summarized == nil {
			t.Fatalf("answer %+v", got)
		}
		sent += len(b)
		if last = got[0].Summarized; last.Count != sent {
			t.Fatalf("the summary covers %d restarts, %d were sent", last.Count, sent)
		}
		if !final && (last.Tradeoff != "" || last.Map != "") {
			t.Errorf("figures that were not asked for")
		}
	}
	tradeoff, latent := figures.SetFigures(want, m.BNN.Classes, names, prob.Z0, p, path)
	if last.Tradeoff != tradeoff || last.Map != latent || !strings.Contains(latent, "<path") && !strings.Contains(latent, "polyline") ||
		!strings.Contains(tradeoff, ">label"+names[want[0].Label]+"<") && !strings.Contains(tradeoff, ">"+names[want[0].Label]+"</text>") {
		t.Errorf("the worker's figures differ from the page's (%d and %d bytes, want %d and %d)", len(last.Tradeoff), len(last.Map), len(tradeoff), len(latent))
	}
	a, _ := json.Marshal(last.Summary)
	b, _ := json.Marshal(sum)
	if !bytes.Equal(a, b) {
		t.Errorf("the worker's summary differs:\n%s\n%s", a, b)
	}
	if a, b := fmt.Sprintf("%#v", last.CARLA), fmt.Sprintf("%#v", carla); a != b {
		t.Errorf("the worker's CARLA measures differ:\n%s\n%s", a, b)
	}
	for i, x := range want {
		if mk := last.Marks[i]; mk != (Mark{Restart: x.Restart, Mode: x.Mode, DuplicateOf: x.DuplicateOf}) {
			t.Fatalf("mark %d: %+v, want restart %d mode %d duplicate of %d", i, mk, x.Restart, x.Mode, x.DuplicateOf)
		}
	}

	// A restart passed on that does not fit is refused at the summary; passed on for another run, a batch starts
	// that run afresh.
	bad := exps[0]
	bad.Label = 12
	forward(t, w, 7, []clue.Explanation{bad})
	if got := roundTrip(t, w, Request{Type: "summarize", ID: 7, X0: prob.X0, Z0: prob.Z0, Classes: m.BNN.Classes, Params: &p}); got[0].Type != "error" || !strings.Contains(got[0].Error, "does not fit") {
		t.Errorf("a restart with label 12 passed on: %+v", got[0])
	}
	forward(t, w, 10, exps[:3])
	if got := roundTrip(t, w, Request{Type: "summarize", ID: 10, X0: prob.X0, Z0: prob.Z0, Classes: m.BNN.Classes, Params: &p, Explanations: exps[3:5]}); got[0].Summarized == nil || got[0].Summarized.Count != 5 {
		t.Errorf("a new run of 3 passed on and 2 sent: %+v", got[0])
	}

	// Another ID: only what it sends.
	got := roundTrip(t, w, Request{Type: "summarize", ID: 8, X0: prob.X0, Z0: prob.Z0, Classes: m.BNN.Classes, Params: &p, Explanations: exps[:10]})
	if got[0].Summarized.Count != 10 {
		t.Errorf("a new run's summary covers %d restarts, want 10", got[0].Summarized.Count)
	}
	got = roundTrip(t, w, Request{Type: "summarize", ID: 9, X0: prob.X0, Z0: prob.Z0, Classes: m.BNN.Classes, Params: &p, Explanations: []clue.Explanation{bad}})
	if got[0].Type != "error" || !strings.Contains(got[0].Error, "does not fit") {
		t.Errorf("a restart with label 12: %+v", got[0])
	}
	// A one-off (a negative ID: a small set's figures) summarises what it carries and leaves the run held: run 11
	// holds 4 restarts, a one-off of 6 others comes between, and run 11's next summary covers its 4 and 2 more.
	forward(t, w, 11, exps[:4])
	if got := roundTrip(t, w, Request{Type: "summarize", ID: 11, X0: prob.X0, Z0: prob.Z0, Classes: m.BNN.Classes, Params: &p}); got[0].Summarized == nil || got[0].Summarized.Count != 4 {
		t.Fatalf("run 11's first summary: %+v", got[0])
	}
	if got := roundTrip(t, w, Request{Type: "summarize", ID: -3, X0: prob.X0, Z0: prob.Z0, Classes: m.BNN.Classes, Params: &p, Explanations: exps[10:16], Figures: true}); got[0].Summarized == nil || got[0].Summarized.Count != 6 || got[0].Summarized.Tradeoff == "" {
		t.Errorf("a one-off of 6 with figures: %+v", got[0])
	}
	forward(t, w, 11, exps[4:6])
	if got := roundTrip(t, w, Request{Type: "summarize", ID: 11, X0: prob.X0, Z0: prob.Z0, Classes: m.BNN.Classes, Params: &p}); got[0].Summarized == nil || got[0].Summarized.Count != 6 {
		t.Errorf("run 11 after a one-off covers %+v, want its 6 restarts", got[0].Summarized)
	}

	// A search worker without models still summarises (the summary needs none); a summary worker searches nothing.
	got = roundTrip(t, w, Request{Type: "inspect", ID: -1, X0: prob.X0})
	if got[0].Type != "error" {
		t.Errorf("a summary worker asked to inspect: %+v", got[0])
	}
}

// Floats travel as one copy of their memory where the machine is little-endian: the bytes and the values read
// back must be those of the value-by-value path, NaN payloads and signed zeros included.
func TestFloatsCopyEqualsValueByValue(t *testing.T) {
	v := []float32{0, float32(math.Copysign(0, -1)), 1, -2.5, math.MaxFloat32, math.SmallestNonzeroFloat32,
		float32(math.Inf(-1)), math.Float32frombits(0x7fc00001), math.Float32frombits(0xffbfffff)}
	req := Request{Type: "inspect", ID: 3, X0: v}
	if !littleEndian {
		t.Skip("SKIPPING: a big-endian machine has only the value-by-value path")
	}
	fast := MarshalRequest(req)
	back, err := UnmarshalRequest(fast)
	littleEndian = false
	slow := MarshalRequest(req)
	backSlow, errSlow := UnmarshalRequest(fast)
	littleEndian = true
	if err != nil || errSlow != nil || !bytes.Equal(fast, slow) {
		t.Fatalf("the copied floats' bytes differ from the value-by-value ones (%v, %v)", err, errSlow)
	}
	for i := range v {
		if math.Float32bits(back.X0[i]) != math.Float32bits(v[i]) || math.Float32bits(backSlow.X0[i]) != math.Float32bits(v[i]) {
			t.Fatalf("float %d: read back %08x and %08x, sent %08x", i, math.Float32bits(back.X0[i]), math.Float32bits(backSlow.X0[i]), math.Float32bits(v[i]))
		}
	}
}

// A run's restarts are checked against the sizes of the summary request that first takes them: a later request
// of the same run with another input's sizes is refused, not summarised with restarts that do not fit it (the
// fuzzer found this: a panic in Summarize, across two requests).
func TestSummaryOfAnotherShapeIsRefused(t *testing.T) {
	w, _ := NewSummarizer("test")
	p := clue.Defaults()
	ok := Request{Type: "summarize", ID: 5, X0: []float32{0, 1}, Z0: []float32{0.5}, Classes: 2, Params: &p,
		Explanations: []clue.Explanation{{Restart: 1, Image: []float32{1, 1}, Z: []float32{1}, Probs: []float32{0.2, 0.8}, Label: 1, Accepted: true}}}
	if got := roundTrip(t, w, ok); got[0].Type != "summarized" {
		t.Fatalf("%+v", got[0])
	}
	other := Request{Type: "summarize", ID: 5, X0: []float32{0, 1, 0}, Z0: []float32{0.5, 0}, Classes: 3, Params: &p}
	if got := roundTrip(t, w, other); got[0].Type != "error" || !strings.Contains(got[0].Error, "does not fit") {
		t.Fatalf("a summary of the same run with other sizes: %+v", got[0])
	}
	// The run goes on with its own sizes (with a restart it does not hold yet: each is sent once).
	next := ok
	next.Explanations = []clue.Explanation{ok.Explanations[0]}
	next.Explanations[0].Restart = 2
	if got := roundTrip(t, w, next); got[0].Type != "summarized" || got[0].Summarized.Count != 2 {
		t.Fatalf("%+v", got[0])
	}
}

// A restart the run holds already, sent again, is refused with a sentence: Summarize needs each restart once
// (the fuzzer sent one request several times, and the summary worker panicked).
func TestRestartSentTwiceIsRefused(t *testing.T) {
	w, _ := NewSummarizer("test")
	p := clue.Defaults()
	x := clue.Explanation{Restart: 1, Image: []float32{1, 1}, Z: []float32{1}, Probs: []float32{0.2, 0.8}, Label: 1, Accepted: true, DuplicateOf: -1}
	req := Request{Type: "summarize", ID: 5, X0: []float32{0, 1}, Z0: []float32{0.5}, Classes: 2, Params: &p, Explanations: []clue.Explanation{x}}
	if got := roundTrip(t, w, req); got[0].Type != "summarized" {
		t.Fatalf("%+v", got[0])
	}
	for i := 0; i < 3; i++ {
		if got := roundTrip(t, w, req); got[0].Type != "error" || !strings.Contains(got[0].Error, "restart 1 was sent twice") {
			t.Fatalf("the same restart sent again: %+v", got[0])
		}
	}
	forward(t, w, 5, []clue.Explanation{x})
	if got := roundTrip(t, w, Request{Type: "summarize", ID: 5, X0: req.X0, Z0: req.Z0, Classes: 2, Params: &p}); got[0].Type != "error" {
		t.Fatalf("the same restart passed on again: %+v", got[0])
	}
	y := x
	y.Restart = 2
	if got := roundTrip(t, w, Request{Type: "summarize", ID: 5, X0: req.X0, Z0: req.Z0, Classes: 2, Params: &p, Explanations: []clue.Explanation{y, y}}); got[0].Type != "error" {
		t.Fatalf("one restart twice in a request: %+v", got[0])
	}
	if got := roundTrip(t, w, Request{Type: "summarize", ID: 5, X0: req.X0, Z0: req.Z0, Classes: 2, Params: &p, Explanations: []clue.Explanation{y}}); got[0].Type != "summarized" || got[0].Summarized.Count != 2 {
		t.Fatalf("a new restart after the refusals: %+v", got[0])
	}
}
