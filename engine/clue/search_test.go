package clue

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/deltaclue/deltaclue/engine"
)

// TestPassesKeepBits: a search whose batches are cut into passes (passFloats set so that every pass takes
// minPassRows points or fewer) gives the explanations of one pass a batch, bit for bit and in the same order as
// they stream: the digits by S1, S2 and S5 with the spread rule and CLUE's (whose rewound points are evaluated
// again in a later pass), and a credit applicant's row with locks.
func TestPassesKeepBits(t *testing.T) {
	digit := uncertainDigit(t)
	credit := creditModels(t)
	applicant, err := NewRowProblem(credit, creditApplicants(t)[3].Row)
	if err != nil {
		t.Fatal(err)
	}
	search := func(prob *Problem, p Params) (string, string) {
		var streamed []Explanation
		exps, err := Search(context.Background(), prob, p, nil, func(e Explanation) { streamed = append(streamed, e) })
		if err != nil {
			t.Fatal(err)
		}
		a, _ := json.Marshal(exps)
		b, _ := json.Marshal(streamed)
		return string(a), string(b)
	}
	cases := 0
	for _, prob := range []*Problem{digit, applicant} {
		for _, s := range []Scheme{S1, S2, S5} {
			for _, rule := range []Convergence{Spread, CLUERule} {
				p := Defaults()
				p.N, p.MaxSteps, p.Scheme, p.Convergence = 21, 20, s, rule
				if prob == applicant {
					p.Lock = NewColumnList("Age", "Records")
				}
				whole, wholeStream := search(prob, p)
				obj, release, err := prob.objective(p, p.N)
				if err != nil {
					t.Fatal(err)
				}
				saved, savedWeights := passFloats, passWeights // room for 7 points: passes of minPassRows or fewer
				per, w := obj.Graph.PointFloats(), obj.Graph.WeightFloats()
				passFloats, passWeights = w+7*per, 0
				rows := passRows(per, w, p.N)
				release()
				cut, cutStream := search(prob, p)
				passFloats, passWeights = saved, savedWeights
				if rows > minPassRows {
					t.Fatalf("passes of %d points", rows)
				}
				if cut != whole || cutStream != wholeStream {
					t.Errorf("scheme %v, rule %v, rows %v: the search in passes differs from one pass a batch", s, rule, prob.Row != nil)
				}
				cases++
			}
		}
	}
	if cases != 12 {
		t.Fatalf("%d cases ran", cases)
	}
}

// TestPassRows: a batch is cut into passes only where its points and the weights would hold more than passFloats
// values and the weights at most half of it; the passes are nearly equal, none above the size that fits (or
// minPassRows); and a graph's PointFloats and WeightFloats count what it holds.
func TestPassRows(t *testing.T) {
	graph := func(in, out int) *engine.Graph { // one dense layer on an input with a gradient
		g := engine.NewGraph(64)
		l := engine.NewLayer(in, out, make([]float32, in*out), make([]float32, out))
		g.Dense(g.Input(in, true), &l)
		return g
	}
	g, small := graph(100, 300), graph(10, 10)
	if p, w := g.PointFloats(), g.WeightFloats(); p != 2*(100+300) || w != 2*100*300+300 {
		t.Fatalf("PointFloats %d, WeightFloats %d", p, w) // (x and its output with their gradients; W, Wᵀ, b)
	}
	saved := passFloats
	defer func() { passFloats = saved }()
	for _, c := range []struct {
		g             *engine.Graph
		floats, n, to int
	}{
		{g, 1 << 30, 200, 200},
		{g, 60_300 + 200*800, 200, 200},     // exactly fits: one pass
		{g, 60_300 + 200*800 - 1, 200, 100}, // one value over: two passes
		{g, 60_300 + 125*800, 200, 100},     // room for 125: two of 100
		{g, 2 * 60_300, 200, 67},            // the weights half: room for 75, three passes
		{g, 2*60_300 - 1, 200, 200},         // the weights over half: one pass
		{small, 420, 50, 8},                 // room for 5: minPassRows
		{small, 420, 13, 7},                 // two passes, of 7 and 6
	} {
		passFloats = c.floats
		if got := passRows(c.g.PointFloats(), c.g.WeightFloats(), c.n); got != c.to {
			t.Errorf("passFloats %d, %d points: passes of %d, want %d", c.floats, c.n, got, c.to)
		}
	}
}
