package clue

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/deltaclue/deltaclue/engine"
	"github.com/deltaclue/deltaclue/engine/rng"
	"github.com/deltaclue/deltaclue/internal/testbundle"
	"github.com/deltaclue/deltaclue/weights"
)

// tableTestModels are internal/testbundle's table model, with anchors for S2 (per label, the codes of the
// random rows the classifier is surest of) and amortised points for S6 (z0 moved a little along two axes).
func tableTestModels(t testing.TB) *Models {
	t.Helper()
	b, err := testbundle.Table(7)
	if err != nil {
		t.Fatal(err)
	}
	v, c, err := engine.Load(b.Description, b.Files)
	if err != nil {
		t.Fatal(err)
	}
	m := &Models{VAE: v, BNN: c, desc: b.Description}
	cols := m.Columns()
	var flat []float32
	rows := testbundle.Rows(cols, 400, 99)
	for _, r := range rows {
		x, _ := cols.Standardise(r)
		flat = append(flat, x...)
	}
	preds := c.Classify(flat)
	codes := v.Encode(flat)
	m.Anchors = make([][]float32, c.Classes)
	for i, p := range preds {
		if p.Total < 0.5 {
			y := p.Label()
			m.Anchors[y] = append(m.Anchors[y], codes[i*v.Latent:(i+1)*v.Latent]...)
		}
	}
	m.Amortised = func(x0, z0 []float32, from int) [][]float32 {
		a, b := append([]float32(nil), z0...), append([]float32(nil), z0...)
		a[0] += 0.7
		b[1] -= 5 // outside the ball: projected
		return [][]float32{a, b}
	}
	return m
}

// checkRowExplanation says what is wrong with a row explanation of prob under p: the row head's constraints
// (engine.RowHead.CheckRow, in natural units), its changed columns, and its distance.
func checkRowExplanation(prob *Problem, p Params, head *engine.RowHead, e Explanation) string {
	if err := head.CheckRow(e.Image); err != nil {
		return err.Error()
	}
	cols := prob.models.Columns()
	got, err := cols.Unstandardise(e.Image)
	if err != nil {
		return err.Error()
	}
	var d float64
	changed := 0
	off := cols.Offsets()
	for i, col := range cols {
		same := true
		for j := off[i]; j < off[i+1]; j++ {
			same = same && math.Float32bits(e.Image[j]) == math.Float32bits(prob.X0[j])
		}
		if same {
			continue
		}
		if head.Locked[i] || col.Change == weights.ChangeNever {
			return "held column " + col.Name + " changed"
		}
		if e.Changed == nil || e.Changed[changed] != col.Name {
			return "changed columns " + strings.Join(e.Changed, ",") + " miss " + col.Name
		}
		changed++
		if col.Kind == weights.ColumnCategory {
			d++
			if got[i] == prob.Row[i] {
				return col.Name + ": a changed block reads as x0's level"
			}
			continue
		}
		d += math.Abs(float64(e.Image[off[i]]) - float64(prob.X0[off[i]]))
		if col.Kind == weights.ColumnInteger && got[i] != math.Trunc(got[i]) {
			return col.Name + " is not whole"
		}
	}
	if changed != len(e.Changed) {
		return "changed columns " + strings.Join(e.Changed, ",") + ", want fewer"
	}
	if math.Abs(float64(e.Distance)-d) > 1e-5*(1+d) {
		return "distance is not the numbers' L1 plus the changed categories"
	}
	return ""
}

// TestRowSearchKeepsConstraints runs every scheme over 200 random rows of the test table, each with random locks
// and settings, and finds no explanation that breaks a constraint: held (locked or never) columns bit-equal to
// x0's, up-only columns never down and down-only never up, integers whole, numbers in range, every category
// block a one-hot.
func TestRowSearchKeepsConstraints(t *testing.T) {
	m := tableTestModels(t)
	cols := m.Columns()
	rows := testbundle.Rows(cols, 200, 123)
	if testing.Short() {
		rows = rows[:30]
	}
	r := rng.New(77)
	explanations, changed, violations := 0, 0, 0
	for n, row := range rows {
		prob, err := NewRowProblem(m, row)
		if err != nil {
			t.Fatalf("row %d: %v", n, err)
		}
		var locks []string
		for _, c := range cols {
			if r.IntN(4) == 0 {
				locks = append(locks, c.Name)
			}
		}
		for s := S1; s <= S6; s++ {
			p := Defaults()
			p.Scheme, p.N, p.MaxSteps = s, 10, 25
			p.Delta = []float64{0.5, 2, 4}[r.IntN(3)]
			p.LambdaX = []float64{0, 0.03, 0.3}[r.IntN(3)]
			p.LearningRate = []float64{0.1, 0.5}[r.IntN(2)]
			p.Lock = NewColumnList(locks...)
			if s == S2 && len(m.AnchoredClasses()) == 0 {
				t.Fatal("the test models have no anchors")
			}
			exps, err := Search(context.Background(), prob, p, nil, nil)
			if err != nil {
				t.Fatalf("row %d, %v: %v", n, s, err)
			}
			head, err := prob.rowHead(p)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range exps {
				if e.Failed != "" {
					t.Fatalf("row %d, %v, restart %d failed: %s", n, s, e.Restart, e.Failed)
				}
				explanations++
				if len(e.Changed) > 0 {
					changed++
				}
				if msg := checkRowExplanation(prob, p, head, e); msg != "" {
					violations++
					if violations <= 5 {
						t.Errorf("row %d (%s), %v, locks %v, restart %d: %s", n, cols.FormatRow(row), s, locks, e.Restart, msg)
					}
				}
			}
		}
	}
	t.Logf("%d explanations over %d rows and 6 schemes, %d changing something: %d violations", explanations, len(rows), changed, violations)
	if violations > 0 {
		t.Fatalf("%d violations", violations)
	}
	if changed < explanations/4 {
		t.Fatalf("only %d of %d explanations change anything: the test tests little", changed, explanations)
	}
}

// rowGolden is the SHA-256 of a few row searches' explanations (every float's bits, their steps and changed
// columns), first computed natively; the same test runs under GOOS=js GOARCH=wasm with and without the SIMD
// kernel.
const rowGolden = "630797e50da94b35556563ddd4196770215cd756577534503d0bb1a978f1fc6c"

// TestRowSearchEverywhere: a row search gives the same bits on every platform, and each restart the same bits
// whichever restarts run together (a worker's share).
func TestRowSearchEverywhere(t *testing.T) {
	m := tableTestModels(t)
	cols := m.Columns()
	h := sha256.New()
	for k, row := range testbundle.Rows(cols, 3, 5) {
		prob, err := NewRowProblem(m, row)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []Scheme{S1, S2, S5} {
			p := Defaults()
			p.Scheme, p.N, p.MaxSteps, p.Delta = s, 20, 30, 3
			if k == 1 {
				p.Lock = NewColumnList("Income", "Records")
			}
			exps, err := Search(context.Background(), prob, p, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			part, err := Search(context.Background(), prob, p, []int{2, 3, 5, 7, 11, 13, 17, 19}, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range part {
				a, _ := json.Marshal(exps[e.Restart])
				b, _ := json.Marshal(e)
				if string(a) != string(b) {
					t.Fatalf("row %d, %v: restart %d among a few differs from itself among all", k, s, e.Restart)
				}
			}
			for _, e := range exps {
				hashRowExplanation(h, e)
			}
		}
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != rowGolden {
		t.Fatalf("row searches hash %s, want %s", got, rowGolden)
	}
}

func TestLockParams(t *testing.T) {
	p := Defaults()
	b, _ := json.Marshal(p)
	if strings.Contains(string(b), "lock") {
		t.Fatalf("Params without locks write %s", b)
	}
	p.Lock = NewColumnList("Age", "Home")
	b, _ = json.Marshal(p)
	if !strings.Contains(string(b), `"lock":["Age","Home"]`) {
		t.Fatalf("Params with locks write %s", b)
	}
	var q Params
	if err := json.Unmarshal(b, &q); err != nil || q != p {
		t.Fatalf("read back %+v, %v", q, err)
	}
	if err := json.Unmarshal([]byte(`{"lock":["A,B"]}`), &q); err == nil {
		t.Error("a name with a comma was read")
	}
	m := tableTestModels(t)
	for locks, want := range map[ColumnList]string{
		NewColumnList("Pets"):        `there is no column "Pets" to lock`,
		NewColumnList("Age", "Age"):  `column "Age" is locked twice`,
		NewColumnList("Age", "Home"): "",
	} {
		p.Lock = locks
		err := p.ValidateFor(m)
		if (err == nil) != (want == "") || (err != nil && !strings.Contains(err.Error(), want)) {
			t.Errorf("lock %q: %v, want %q", locks, err, want)
		}
	}
	digits := &Models{}
	p.Lock = NewColumnList("Age")
	if err := p.ValidateFor(digits); err == nil || !strings.Contains(err.Error(), "images") {
		t.Errorf("a lock on an image model: %v", err)
	}
}

func TestRowProblem(t *testing.T) {
	m := tableTestModels(t)
	cols := m.Columns()
	row := testbundle.Rows(cols, 1, 3)[0]
	prob, err := NewRowProblem(m, row)
	if err != nil {
		t.Fatal(err)
	}
	flat, err := NewProblem(m, prob.X0)
	if err != nil || flat.Pred0.Total != prob.Pred0.Total {
		t.Fatalf("the flattened row: %v", err)
	}
	soft := append([]float32(nil), prob.X0...)
	start, _ := cols.Slice(cols.Index("Home"))
	soft[start] += 0.5
	if _, err := NewProblem(m, soft); err == nil || !strings.Contains(err.Error(), "Home") {
		t.Errorf("a soft one-hot: %v", err)
	}
	bad := append([]float64(nil), row...)
	bad[cols.Index("Children")] = 2.5
	if _, err := NewRowProblem(m, bad); err == nil || !strings.Contains(err.Error(), "whole") {
		t.Errorf("2.5 children: %v", err)
	}
	// Explanations of an image keep their JSON: no "changed".
	e := Explanation{}
	b, _ := json.Marshal(e)
	if strings.Contains(string(b), "changed") {
		t.Errorf("an image's explanation writes %s", b)
	}
}

// TestExplanationRow: an explanation's row in natural units holds x0's own values (bit for bit, numbers
// included) in the columns it does not change, names in changed exactly the columns that differ, and keeps every
// number in its range; on 20 rows (one in four at the ends of their ranges), 10 restarts each.
func TestExplanationRow(t *testing.T) {
	m := tableTestModels(t)
	cols := m.Columns()
	p := Defaults()
	p.N, p.MaxSteps = 10, 20
	for i, row := range testbundle.Rows(cols, 20, 11) {
		prob, err := NewRowProblem(m, row)
		if err != nil {
			t.Fatal(err)
		}
		exps, err := Search(context.Background(), prob, p, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range exps {
			x, err := prob.ExplanationRow(e.Image)
			if err != nil {
				t.Fatal(err)
			}
			var changed []string
			for j, col := range cols {
				if x[j] != row[j] {
					changed = append(changed, col.Name)
				}
				if col.Kind != weights.ColumnCategory && (x[j] < col.Range[0] || x[j] > col.Range[1]) {
					t.Errorf("row %d, restart %d: %s %v is outside %v", i, e.Restart, col.Name, x[j], col.Range)
				}
			}
			if strings.Join(changed, ",") != strings.Join(e.Changed, ",") {
				t.Errorf("row %d, restart %d: changed %v, the rows differ in %v", i, e.Restart, e.Changed, changed)
			}
		}
	}
}

// hashRowExplanation writes what a row search's golden hash covers of e: its point, row and predictive, its
// entropies and costs, its steps and the columns it changed.
func hashRowExplanation(h io.Writer, e Explanation) {
	for _, v := range [][]float32{e.Z, e.Image, e.Probs, {e.HTotal, e.HAleatoric, e.HEpistemic, e.Distance, e.Rho, e.Cost}} {
		binary.Write(h, binary.LittleEndian, v)
	}
	binary.Write(h, binary.LittleEndian, int64(e.Steps))
	io.WriteString(h, strings.Join(e.Changed, ",")+";")
	if e.Reverted != nil { // (so that the hashes of searches without Params.Sparse stay what they were)
		io.WriteString(h, "reverted "+strings.Join(e.Reverted, ",")+";")
	}
}
