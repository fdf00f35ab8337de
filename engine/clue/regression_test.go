package clue

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"strings"
	"testing"

	"github.com/deltaclue/deltaclue/engine"
	"github.com/deltaclue/deltaclue/internal/testbundle"
	"github.com/deltaclue/deltaclue/weights"
)

// regressionGolden is the SHA-256 of the explanations of small searches on internal/testbundle's two regression
// models (an image regressor, a CNN; a regressor of rows with σ from a log variance), first computed natively:
// the same test runs under GOOS=js GOARCH=wasm with and without the SIMD kernel, and on amd64 with every native
// kernel.
const regressionGolden = "594388ac050818f0dfde9aaee51fd8e9ce50b919d71c7f6e84cc9f3d817efc43"

// TestRegressionSearchEverywhere: a predictor of a number runs the whole search (its objective the predictive
// standard deviation), each restart's bits the same whichever restarts run together, the same bits on every
// platform; each explanation's label is the range its predictive mean falls in most probably, and it is
// accepted exactly when its σ is at most τ and it is within δ.
func TestRegressionSearchEverywhere(t *testing.T) {
	grey, err := testbundle.GreyRegression(1)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	h.Write([]byte(searchesHash(t, grey)))
	gv, gc, err := engine.Load(grey.Description, grey.Files)
	if err != nil {
		t.Fatal(err)
	}
	x0 := make([]float32, gc.Input.Size()) // a bar across the middle
	for i := range x0 {
		if y := i / gc.Input.W; y >= 5 && y <= 6 {
			x0[i] = 0.9
		}
	}
	gprob, err := NewProblem(&Models{VAE: gv, BNN: gc, desc: grey.Description}, x0)
	if err != nil {
		t.Fatal(err)
	}
	regressionSearch(t, h, gprob, grey.Description, 3)

	tb, err := testbundle.TableRegression(3)
	if err != nil {
		t.Fatal(err)
	}
	v, c, err := engine.Load(tb.Description, tb.Files)
	if err != nil {
		t.Fatal(err)
	}
	m := &Models{VAE: v, BNN: c, desc: tb.Description}
	cols := m.Columns()
	rows := testbundle.Rows(cols, 40, 5)
	var row0 []float64
	best := float32(-1)
	for _, r := range rows { // the row the model is least sure of
		x, _ := cols.Standardise(r)
		if u := c.Classify(x)[0]; u.Total > best {
			best, row0 = u.Total, r
		}
	}
	prob, err := NewRowProblem(m, row0)
	if err != nil {
		t.Fatal(err)
	}
	regressionSearch(t, h, prob, tb.Description, 3)
	if got := hex.EncodeToString(h.Sum(nil)); got != regressionGolden {
		t.Errorf("the regression searches hash to %s, want %s", got, regressionGolden)
	}
}

// regressionSearch runs a search on a regression's problem with its own defaults (δ and λy set), checks each
// explanation's acceptance, label and sentence, and adds their bits to h.
func regressionSearch(t *testing.T, h hash.Hash, prob *Problem, d *weights.Description, delta float64) {
	t.Helper()
	if prob.Pred0.Mean == nil {
		t.Fatal("the regression's prediction has no mean")
	}
	p := DefaultsFor(d)
	p.N, p.MaxSteps, p.Delta, p.LambdaY = 16, 25, delta, 0.5
	if p.HThreshold != d.Regression.Sure {
		t.Errorf("the regression's threshold is %g, not its τ %g", p.HThreshold, d.Regression.Sure)
	}
	exps, err := Search(context.Background(), prob, p, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	accepted := 0
	r := d.Regression
	for _, e := range exps {
		if e.Mean == nil {
			t.Fatalf("restart %d has no predictive mean", e.Restart)
		}
		if want := e.HTotal <= float32(p.HThreshold) && float64(e.Rho) <= p.Delta*(1+shellTolerance); e.Accepted != want {
			t.Errorf("restart %d: σ %v, ρ %v: accepted %v", e.Restart, e.HTotal, e.Rho, e.Accepted)
		}
		if e.Accepted {
			accepted++
		}
		if e.Label != (engine.Uncertainty{Probs: e.Probs}).Label() || len(e.Probs) != len(r.Ranges)-1 {
			t.Errorf("restart %d: label %d of ranges' probabilities %v", e.Restart, e.Label, e.Probs)
		}
		binary.Write(h, binary.LittleEndian, e.Z)
		binary.Write(h, binary.LittleEndian, e.Image)
		binary.Write(h, binary.LittleEndian, e.Probs)
		binary.Write(h, binary.LittleEndian, []float32{*e.Mean, e.HTotal, e.HAleatoric, e.HEpistemic, e.Distance, e.Cost})
	}
	s := Summarize(prob.X0, prob.Z0, prob.Models().BNN.Classes, p, exps)
	words := WordsOf(d)
	sentence := words.Describe(prob.Pred0, exps, s, p)
	t.Logf("%s: predicted %s; %d of %d accepted; %s", d.Name, words.Prediction(*prob.Pred0.Mean, prob.Pred0.Total), accepted, len(exps), sentence)
	if !strings.HasPrefix(sentence, "The model predicts ") || !strings.Contains(sentence, " "+r.Unit+" ± ") || strings.Contains(sentence, "nats") {
		t.Errorf("the sentence: %s", sentence)
	}
	if accepted > 0 && !strings.Contains(sentence, "Nearby, it would be sure of ") {
		t.Errorf("a set with sure explanations is told as: %s", sentence)
	}
}
