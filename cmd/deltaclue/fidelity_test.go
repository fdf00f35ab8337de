package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/sharelink"
	"github.com/deltaclue/deltaclue/weights"
)

// TestAnchorsOnlyNamesTheShippedModels: the earlier model set whose links still open differs from the shipped
// one only in its anchors, and maps to the shipped fingerprint.
func TestAnchorsOnlyNamesTheShippedModels(t *testing.T) {
	fp, err := weights.ShippedFingerprint()
	if err != nil {
		t.Fatal(err)
	}
	if len(sharelink.AnchorsOnly) == 0 {
		t.Fatal("no earlier model set")
	}
	for earlier, later := range sharelink.AnchorsOnly {
		if later != fp || earlier == fp {
			t.Errorf("AnchorsOnly maps %08x to %08x; the shipped models are %08x", earlier, later, fp)
		}
	}
}

// TestMeasuresWorkedExampleIsTheBuilds regenerates docs/measures.md's worked example from the shipped models
// and fails if the document says anything else (`go run ./cmd/deltaclue worked-example -write
// docs/measures.md` rewrites it).
func TestMeasuresWorkedExampleIsTheBuilds(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "measures.md"))
	if err != nil {
		t.Fatal(err)
	}
	have, err := workedBlock(string(doc))
	if err != nil {
		t.Fatal(err)
	}
	want, err := workedExample()
	if err != nil {
		t.Fatal(err)
	}
	if have != want {
		hl, wl := strings.Split(have, "\n"), strings.Split(want, "\n")
		for i := 0; i < max(len(hl), len(wl)); i++ {
			var h, w string
			if i < len(hl) {
				h = hl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if h != w {
				t.Fatalf("docs/measures.md's worked example differs from what the build gives, first at its line %d:\n doc: %s\nbuild: %s\n"+
					"(run go run ./cmd/deltaclue worked-example -write docs/measures.md)", i+1, h, w)
			}
		}
	}
	// The numbers issue 14 read off the shipped build are in it.
	for _, s := range []string{"H = 1.426", "7: 13, 9: 61, 8: 25, 2: 1", "L0 132.9 pixels", "L1 47.84"} {
		if !strings.Contains(want, s) {
			t.Errorf("the worked example lacks %q", s)
		}
	}
	if _, err := replaceWorked("no markers", want); err == nil {
		t.Error("a document without markers was accepted")
	}
}

// TestExplainCLUERuleAndCARLA: -convergence clue reaches the search and explain.json, which also holds CARLA's
// exact measures beside δ-CLUE's; a bad rule is refused in one sentence.
func TestExplainCLUERuleAndCARLA(t *testing.T) {
	out := t.TempDir()
	if err := explain([]string{"-digit", "1735", "-n", "12", "-max-steps", "40", "-convergence", "clue", "-carla-data", "", "-out", out}); err != nil {
		t.Fatal(err)
	}
	var rep clue.Report
	b, _ := os.ReadFile(filepath.Join(out, "explain.json"))
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Params.Convergence != clue.CLUERule || !strings.Contains(string(b), `"convergence": "clue"`) {
		t.Errorf("explain.json's rule is %v", rep.Params.Convergence)
	}
	p := clue.Defaults()
	p.N, p.MaxSteps, p.Convergence = 12, 40, clue.CLUERule
	prob, err := clue.NewProblem(mustModels(t), rep.X0)
	if err != nil {
		t.Fatal(err)
	}
	direct, _ := clue.Search(context.Background(), prob, p, nil, nil)
	for i := range direct {
		if direct[i].Steps != rep.Explanations[i].Steps || !reflect.DeepEqual(direct[i].Z, rep.Explanations[i].Z) {
			t.Fatalf("restart %d differs from a search under CLUE's rule", i)
		}
	}
	c := rep.CARLA
	if c == nil {
		t.Fatal("explain.json has no CARLA measures")
	}
	want := clue.CARLAOf(rep.X0, rep.Label, rep.Explanations)
	if c.Valid != want.Valid || c.L2 != want.L2 || c.YNN < 0 || c.YNN > 1 || !strings.Contains(c.YNNData, "test digits") {
		t.Errorf("CARLA measures %+v, want %+v with a yNN over the test digits", *c, want)
	}
	err = explain([]string{"-digit", "1735", "-convergence", "endpoints", "-out", out})
	if err == nil || !strings.Contains(err.Error(), "want spread or clue") {
		t.Errorf("-convergence endpoints: %v", err)
	}
}

// TestCompareConvergence: the comparison of the two rules counts every restart of the grid, and its count of
// changed acceptance is the one of the two searches run directly.
func TestCompareConvergence(t *testing.T) {
	m := mustModels(t)
	x0, _, err := testDigit(workedDigit)
	if err != nil {
		t.Fatal(err)
	}
	prob, err := clue.NewProblem(m, x0)
	if err != nil {
		t.Fatal(err)
	}
	p := clue.Defaults()
	p.N, p.HThreshold = 30, 10
	var out strings.Builder
	if err := compareConvergence(&out, []*clue.Problem{prob}, []float64{0.5}, variants[2:3], p, clue.Defaults().HThreshold, 2); err != nil {
		t.Fatal(err)
	}
	q := p
	q.Delta, q.LambdaX, q.Scheme = 0.5, variants[2].LambdaX, variants[2].Scheme
	a, _ := clue.Search(context.Background(), prob, q, nil, nil)
	q.Convergence = clue.CLUERule
	b, _ := clue.Search(context.Background(), prob, q, nil, nil)
	c := ruleCounts{sure: clue.Defaults().HThreshold}
	c.add(a, b)
	want := fmt.Sprintf("| all | 30 | %d | %d / %d |", c.changed, c.accepted[0], c.accepted[1])
	if !strings.Contains(out.String(), want) {
		t.Errorf("the comparison lacks %q:\n%s", want, out.String())
	}
	if c.steps[0] == c.steps[1] {
		t.Error("the two rules took the same steps: the comparison compares nothing")
	}
}
