package clue

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"slices"
	"testing"

	"github.com/deltaclue/deltaclue/engine"
	"github.com/deltaclue/deltaclue/engine/rng"
)

// TestSparseExplanations runs the same searches on the credit models with Params.Sparse off and on (every 8th
// committed test applicant, every 40th with -short; schemes S1, S2 and S5 with random locks, radii and λx) and
// holds every sparse explanation to what Sparse promises against its plain twin: the same restart, z, ρ and
// acceptance; an accepted one changes a subset of the twin's columns, Reverted the rest, with d no larger, the same
// label, sure, a valid row that keeps every constraint, scored with the bits the classifier gives its row and the
// cost the objective's terms make; no column it still changes can be given back alone (the model is then unsure
// or reads another label); a rejected one is its twin exactly.
func TestSparseExplanations(t *testing.T) {
	m := creditModels(t)
	cols := m.Columns()
	apps := creditApplicants(t)
	step := 8
	if testing.Short() {
		step = 40
	}
	r := rng.New(7)
	var sure, given, before, after int
	for n := 0; n < len(apps); n += step {
		prob, err := NewRowProblem(m, apps[n].Row)
		if err != nil {
			t.Fatal(err)
		}
		var locks []string
		for _, c := range cols {
			if r.IntN(5) == 0 {
				locks = append(locks, c.Name)
			}
		}
		for _, s := range []Scheme{S1, S2, S5} {
			p := m.Defaults()
			p.Scheme, p.N, p.MaxSteps = s, 10, 30
			p.Delta = []float64{1, 2, 4}[r.IntN(3)]
			p.LambdaX = []float64{0, 0.1, 0.3}[r.IntN(3)]
			p.Lock = NewColumnList(locks...)
			if !p.Sparse {
				t.Fatal("the credit models' defaults do not make sparse explanations")
			}
			sparse, twins := sparseAndPlain(t, prob, p)
			head, err := prob.rowHead(p)
			if err != nil {
				t.Fatal(err)
			}
			for k, e := range sparse {
				if msg := checkSparse(prob, p, head, e, twins[k]); msg != "" {
					t.Fatalf("applicant %d, %v, locks %v, restart %d: %s", n, s, locks, e.Restart, msg)
				}
				if e.Accepted {
					sure++
					given += len(e.Reverted)
					before, after = before+len(twins[k].Changed), after+len(e.Changed)
				}
			}
		}
	}
	t.Logf("%d sure explanations: %d changes given back, %.2f features changed on average before, %.2f after",
		sure, given, float64(before)/float64(sure), float64(after)/float64(sure))
	if sure < 50 || given < sure {
		t.Fatalf("%d sure explanations gave back %d changes: the test tests little", sure, given)
	}
}

// checkSparse says how the sparse explanation e breaks Sparse's promises against its plain twin, or "".
func checkSparse(prob *Problem, p Params, head *engine.RowHead, e, twin Explanation) string {
	m := prob.models
	switch {
	case e.Restart != twin.Restart || !slices.Equal(e.Z, twin.Z) || e.Rho != twin.Rho || e.Accepted != twin.Accepted:
		return "a sparse search moved differently from the plain one"
	case !e.Accepted:
		if !slices.Equal(e.Image, twin.Image) || e.Reverted != nil || e.Cost != twin.Cost {
			return "a rejected explanation was changed"
		}
		return ""
	case e.Label != twin.Label || !(float64(e.HTotal) < p.HThreshold):
		return "a sparse explanation is not sure of its twin's label"
	case e.Distance > twin.Distance:
		return "giving back made d larger"
	}
	if msg := checkRowExplanation(prob, p, head, e); msg != "" {
		return msg
	}
	all := slices.Concat(e.Changed, e.Reverted)
	cols := m.Columns()
	slices.SortFunc(all, func(a, b string) int { return cols.Index(a) - cols.Index(b) })
	if !slices.Equal(all, twin.Changed) {
		return "changed and given back are not the columns the twin changes"
	}
	u := m.BNN.Classify(e.Image)[0]
	if u.Total != e.HTotal || u.Aleatoric != e.HAleatoric || u.Epistemic != e.HEpistemic || !slices.Equal(u.Probs, e.Probs) {
		return "its scores are not the classifier's on its row"
	}
	if cost := float64(e.HTotal) + p.LambdaX*float64(e.Distance); math.Abs(float64(e.Cost)-cost) > 1e-6*(1+cost) {
		return "its cost is not H + λx·d"
	}
	off := cols.Offsets()
	for _, name := range e.Changed {
		i := cols.Index(name)
		x := slices.Clone(e.Image)
		copy(x[off[i]:off[i+1]], prob.X0[off[i]:off[i+1]])
		if u := m.BNN.Classify(x)[0]; float64(u.Total) < p.HThreshold && u.Label() == e.Label {
			return "the model stays sure without its change of " + name
		}
	}
	return ""
}

// TestGiveBackAfterASearch: GiveBack on a search made without Sparse gives the explanations a search with Sparse
// gives, bit for bit, and leaves those that are not sure as they are (what the experiment does with a loose
// acceptance threshold).
func TestGiveBackAfterASearch(t *testing.T) {
	m := creditModels(t)
	apps := creditApplicants(t)
	for _, n := range []int{0, 5, 12} {
		prob, err := NewRowProblem(m, apps[n].Row)
		if err != nil {
			t.Fatal(err)
		}
		p := m.Defaults()
		p.N, p.MaxSteps = 20, 30
		want, got := sparseAndPlain(t, prob, p)
		if err := GiveBack(prob, p, got); err != nil {
			t.Fatal(err)
		}
		given := 0
		for k := range got {
			a, b := got[k], want[k]
			if !slices.Equal(a.Image, b.Image) || !slices.Equal(a.Reverted, b.Reverted) || a.HTotal != b.HTotal ||
				a.Distance != b.Distance || a.Cost != b.Cost || !slices.Equal(a.Changed, b.Changed) {
				t.Fatalf("applicant %d, restart %d: given back after the search %v (H %v, d %v), in it %v (H %v, d %v)",
					n, k, a.Reverted, a.HTotal, a.Distance, b.Reverted, b.HTotal, b.Distance)
			}
			given += len(a.Reverted)
		}
		if given == 0 {
			t.Errorf("applicant %d: nothing given back", n)
		}
	}
}

// sparseAndPlain runs the search with p (Sparse) and again with Sparse off.
func sparseAndPlain(t *testing.T, prob *Problem, p Params) (sparse, plain []Explanation) {
	t.Helper()
	sparse, err := Search(context.Background(), prob, p, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	q := p
	q.Sparse = false
	if plain, err = Search(context.Background(), prob, q, nil, nil); err != nil {
		t.Fatal(err)
	}
	return sparse, plain
}

// TestRowObjectivesReused: an objective of rows that one search leaves (idleObjectives) is taken by the next
// search of the same row and parameters, and gives it the bits a new objective gives, whatever was searched
// between them.
func TestRowObjectivesReused(t *testing.T) {
	m := creditModels(t)
	apps := creditApplicants(t)
	p := m.Defaults()
	p.N, p.MaxSteps = 30, 40
	q := p
	q.Scheme, q.Lock = S2, NewColumnList("Age", "Marital")
	search := func(n int, p Params) string {
		prob, err := NewRowProblem(m, apps[n].Row)
		if err != nil {
			t.Fatal(err)
		}
		exps, err := Search(context.Background(), prob, p, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.New()
		for _, e := range exps {
			hashRowExplanation(h, e)
		}
		return hex.EncodeToString(h.Sum(nil))
	}
	type run struct {
		n int
		p Params
	}
	a, b, c := run{0, p}, run{7, q}, run{0, q}
	fresh := map[run]string{}
	for _, r := range []run{a, b, c} {
		idleObjectives.clear() // nothing idle: new objectives
		fresh[r] = search(r.n, r.p)
	}
	idleObjectives.clear()
	search(a.n, a.p)
	var kept *engine.Objective
	for _, o := range idleObjectives.idle {
		if o.key[0] == 'o' {
			kept = o.obj
		}
	}
	if kept == nil {
		t.Fatal("a search of a row left no objective idle")
	}
	for i, r := range []run{a, b, a, c, b, a, c} {
		if got := search(r.n, r.p); got != fresh[r] {
			t.Errorf("search %d (applicant %d, %v, locks %v) with the objectives left idle hashes %s, a new objective %s", i, r.n, r.p.Scheme, r.p.Lock, got, fresh[r])
		}
	}
	found := false
	for _, o := range idleObjectives.idle {
		found = found || o.obj == kept
	}
	if !found {
		t.Error("the first search's objective was not taken again and left idle by the searches of the same row and parameters")
	}
}
