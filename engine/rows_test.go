//go:build !denseonly

package engine

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"strings"
	"testing"

	"github.com/deltaclue/deltaclue/engine/rng"
	"github.com/deltaclue/deltaclue/internal/testbundle"
	"github.com/deltaclue/deltaclue/weights"
)

func tableModels(t testing.TB) (*VAE, *BNN, weights.Columns) {
	t.Helper()
	b, err := testbundle.Table(7)
	if err != nil {
		t.Fatal(err)
	}
	v, c, err := Load(b.Description, b.Files)
	if err != nil {
		t.Fatal(err)
	}
	return v, c, b.Description.Input.Columns
}

// randomLocks locks each column with probability 1/4.
func randomLocks(r *rng.Rand, n int) []bool {
	l := make([]bool, n)
	for i := range l {
		l[i] = r.IntN(4) == 0
	}
	return l
}

// rowGraph is raw (with a gradient) → row head → a dense layer to one value per point: a scalar loss whose
// ∂/∂row is the layer's weights.
func rowGraph(h *RowHead, capacity int, w []float32) (g *Graph, raw, row, loss *Tensor) {
	g = NewGraph(capacity)
	raw = g.Input(len(h.X0), true)
	row = g.Row(raw, h)
	l := NewLayer(len(h.X0), 1, w, []float32{0})
	loss = g.Dense(row, &l)
	return
}

func TestRowHeadKeepsConstraints(t *testing.T) {
	_, _, cols := tableModels(t)
	r := rng.New(3)
	rows := testbundle.Rows(cols, 200, 11)
	const batch = 16
	for n, row := range rows {
		h, err := NewRowHead(cols, row, randomLocks(r, len(cols)))
		if err != nil {
			t.Fatalf("row %d: %v", n, err)
		}
		if err := h.CheckRow(h.X0); err != nil {
			t.Fatalf("row %d: x0 itself: %v", n, err)
		}
		g, raw, out, _ := rowGraph(h, batch, make([]float32, len(h.X0)))
		for i := range raw.Data {
			scale := []float64{0.1, 1, 3, 1e4}[r.IntN(4)]
			raw.Data[i] = float32(r.Norm() * scale)
			if r.IntN(8) == 0 { // near or at x0's value
				raw.Data[i] = h.X0[i%len(h.X0)] + float32(r.Norm()*1e-6)
			}
		}
		g.Forward()
		for p := 0; p < batch; p++ {
			if err := h.CheckRow(out.Row(p)); err != nil {
				t.Fatalf("row %d (%s), point %d: %v", n, cols.FormatRow(row), p, err)
			}
		}
	}
}

func TestRowHeadHoldsAndKeepsX0(t *testing.T) {
	_, _, cols := tableModels(t)
	row := testbundle.Rows(cols, 1, 5)[0]
	all := make([]bool, len(cols))
	for i := range all {
		all[i] = true
	}
	h, err := NewRowHead(cols, row, all)
	if err != nil {
		t.Fatal(err)
	}
	r := rng.New(1)
	w := make([]float32, len(h.X0))
	for i := range w {
		w[i] = float32(r.Norm())
	}
	g, raw, out, loss := rowGraph(h, 3, w)
	for i := range raw.Data {
		raw.Data[i] = float32(r.Norm() * 5)
	}
	g.Forward()
	g.Backward(loss, nil)
	for p := 0; p < 3; p++ {
		for j, v := range out.Row(p) {
			if math.Float32bits(v) != math.Float32bits(h.X0[j]) {
				t.Fatalf("point %d, value %d: %v, x0 %v", p, j, v, h.X0[j])
			}
		}
	}
	for i, v := range raw.Grad[:3*len(h.X0)] {
		if math.Float32bits(v) != 0 {
			t.Fatalf("gradient %d through a held column: %v", i, v)
		}
	}
	// With no lock, a raw output at x0's flattened values decodes to x0's bits exactly.
	h, _ = NewRowHead(cols, row, nil)
	g, raw, out, _ = rowGraph(h, 1, w)
	copy(raw.Data, h.X0)
	g.Forward()
	for j, v := range out.Row(0) {
		if math.Float32bits(v) != math.Float32bits(h.X0[j]) {
			t.Fatalf("value %d: %v from x0's own %v", j, v, h.X0[j])
		}
	}
}

// TestRowHeadGradient checks the row head's backward pass: a number inside its bounds against central finite
// differences (it is the identity there); a category against finite differences of the softmax it stands for
// (computed apart, in float64); an integer straight through inside its bounds; and the inward rule outside.
func TestRowHeadGradient(t *testing.T) {
	_, _, cols := tableModels(t)
	r := rng.New(9)
	for n, row := range testbundle.Rows(cols, 40, 21) {
		h, err := NewRowHead(cols, row, nil)
		if err != nil {
			t.Fatal(err)
		}
		wd := len(h.X0)
		w := make([]float32, wd)
		for i := range w {
			w[i] = float32(r.Norm())
		}
		g, raw, _, loss := rowGraph(h, 1, w)
		for i := range wd {
			raw.Data[i] = float32(r.Norm() * 1.5)
		}
		f := func() float64 {
			g.Forward()
			return float64(loss.Data[0])
		}
		f()
		g.Backward(loss, nil)
		grad := append([]float32(nil), raw.Grad[:wd]...)
		base := append([]float32(nil), raw.Data[:wd]...)
		for i, c := range h.cols {
			switch c.kind {
			case rowFixed:
				if grad[c.start] != 0 {
					t.Fatalf("row %d, column %d (never): gradient %v", n, i, grad[c.start])
				}
			case rowNumber, rowInteger:
				v, d := base[c.start], w[c.start]
				var below, above bool
				if c.kind == rowNumber {
					below, above = v < c.lo, v > c.hi
				} else {
					n := math.Round(natural(v, c.mean, c.std))
					below, above = n < c.loN, n > c.hiN
				}
				want := d
				if (below && d >= 0) || (above && d <= 0) {
					want = 0
				}
				if grad[c.start] != want {
					t.Fatalf("row %d, column %d: gradient %v, want %v (raw %v, bounds %v..%v)", n, i, grad[c.start], want, v, c.lo, c.hi)
				}
				if c.kind == rowNumber && v > c.lo+0.01 && v < c.hi-0.01 { // finite differences inside
					const eps = 1e-3
					raw.Data[c.start] = v + eps
					fp := f()
					raw.Data[c.start] = v - eps
					fm := f()
					raw.Data[c.start] = v
					fd := (fp - fm) / (2 * eps)
					if math.Abs(fd-float64(grad[c.start])) > 2e-3+1e-2*math.Abs(fd) {
						t.Fatalf("row %d, column %d: gradient %v, finite differences %v", n, i, grad[c.start], fd)
					}
				}
			case rowCategory:
				// The softmax's Σ_j w_j·s_j(raw) in float64, by central differences in each logit.
				soft := func(lg []float64) float64 {
					m := lg[0]
					for _, v := range lg {
						m = math.Max(m, v)
					}
					var s, dot float64
					for j, v := range lg {
						e := math.Exp(v - m)
						s += e
						dot += float64(w[c.start+j]) * e
					}
					return dot / s
				}
				lg := make([]float64, c.end-c.start)
				for j := range lg {
					lg[j] = float64(base[c.start+j])
				}
				for j := range lg {
					const eps = 1e-5
					v := lg[j]
					lg[j] = v + eps
					fp := soft(lg)
					lg[j] = v - eps
					fm := soft(lg)
					lg[j] = v
					fd := (fp - fm) / (2 * eps)
					if got := float64(grad[c.start+j]); math.Abs(fd-got) > 1e-5+1e-4*math.Abs(fd) {
						t.Fatalf("row %d, column %d, level %d: gradient %v, the softmax's finite differences %v", n, i, j, got, fd)
					}
				}
			}
		}
	}
}

func TestRowDistance(t *testing.T) {
	_, _, cols := tableModels(t)
	rows := testbundle.Rows(cols, 30, 31)
	for n := 0; n+1 < len(rows); n++ {
		h, err := NewRowHead(cols, rows[n], nil)
		if err != nil {
			t.Fatal(err)
		}
		g := NewGraph(1)
		x := g.Input(len(h.X0), true)
		d := g.RowDistance(x, h)
		other, _ := cols.Standardise(rows[n+1])
		copy(x.Data, other)
		g.Forward()
		g.Backward(d, nil)
		var want float64
		off := cols.Offsets()
		for i, col := range cols {
			switch {
			case col.Change == weights.ChangeNever:
			case col.Kind == weights.ColumnCategory:
				if rows[n][i] != rows[n+1][i] {
					want++
				}
				for j := off[i]; j < off[i+1]; j++ {
					g := float32(0.5)
					if j-off[i] == int(rows[n][i]) {
						g = -0.5
					}
					if x.Grad[j] != g {
						t.Fatalf("column %q, level %d: gradient %v, want %v", col.Name, j-off[i], x.Grad[j], g)
					}
				}
			default:
				e := float64(other[off[i]]) - float64(h.X0[off[i]])
				want += math.Abs(e)
				if s := float32(math.Copysign(1, e)); e != 0 && x.Grad[off[i]] != s {
					t.Fatalf("column %q: gradient %v, want %v", col.Name, x.Grad[off[i]], s)
				}
			}
		}
		if got := float64(d.Data[0]); math.Abs(got-want) > 1e-6*(1+want) {
			t.Fatalf("rows %d and %d: distance %v, want %v", n, n+1, got, want)
		}
	}
}

func TestRowHeadNaN(t *testing.T) {
	_, _, cols := tableModels(t)
	h, _ := NewRowHead(cols, testbundle.Rows(cols, 1, 8)[0], nil)
	g, raw, out, _ := rowGraph(h, 2, make([]float32, len(h.X0)))
	start, _ := cols.Slice(cols.Index("Home"))
	raw.Data[start+1] = float32(math.NaN())
	g.Forward()
	if v := out.Row(0)[start]; v == v {
		t.Fatalf("a NaN logit gave %v", v)
	}
	if err := h.CheckRow(out.Row(1)); err != nil {
		t.Fatalf("the other point: %v", err)
	}
}

func TestNewRowHeadRefuses(t *testing.T) {
	_, _, cols := tableModels(t)
	row := testbundle.Rows(cols, 1, 8)[0]
	bad := append([]float64(nil), row...)
	bad[0] = 10 // Age below 18
	if _, err := NewRowHead(cols, bad, nil); err == nil || !strings.Contains(err.Error(), "Age") {
		t.Errorf("an out-of-range row: %v", err)
	}
	if _, err := NewRowHead(cols, row, []bool{true}); err == nil {
		t.Error("one lock for nine columns was accepted")
	}
}

// rowTestWeights are the loss's weights of rowObjective.
var rowTestWeights = LossWeights{Total: 1, LambdaX: 0.03, LambdaY: 0.1}

// rowTestHead is the row head rowObjective searches around: one of the test table's rows, Income locked.
func rowTestHead(t testing.TB) (*VAE, *BNN, *RowHead) {
	v, b, cols := tableModels(t)
	row := testbundle.Rows(cols, 3, 4)[2]
	locked := make([]bool, len(cols))
	locked[cols.Index("Income")] = true
	h, err := NewRowHead(cols, row, locked)
	if err != nil {
		t.Fatal(err)
	}
	return v, b, h
}

// rowObjective is the row objective on the test table around one of its rows, at seeded points.
func rowObjective(t testing.TB, n int) *Objective {
	v, b, h := rowTestHead(t)
	o, err := NewRowObjective(v, b, n, rowTestWeights, h, b.Classify(h.X0)[0].Probs)
	if err != nil {
		t.Fatal(err)
	}
	r := rng.New(17)
	for i := range o.Z.Data {
		o.Z.Data[i] = float32(r.Norm() * 2)
	}
	return o
}

// TestRowScorerScoresAsTheObjective: the rows the row objective's head gives, scored by NewRowScorer (in batches
// of another size, in another order), have the objective's H, its parts, d and cost bit for bit, and Part sums
// to d column by column.
func TestRowScorerScoresAsTheObjective(t *testing.T) {
	const n = 20
	o := rowObjective(t, n)
	o.Forward()
	_, b, h := rowTestHead(t)
	cols := h.Columns
	s, err := NewRowScorer(b, 7, rowTestWeights, h, b.Classify(h.X0)[0].Probs)
	if err != nil {
		t.Fatal(err)
	}
	same := func(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) }
	for from := 0; from < n; from += 7 {
		k := min(7, n-from)
		s.Graph.SetBatch(k)
		for j := range k { // backwards, so that each row meets other neighbours
			copy(s.Image.Row(j), o.Image.Row(from+k-1-j))
		}
		s.Graph.Forward()
		for j := range k {
			r := from + k - 1 - j
			if !same(s.Pred.Total.Data[j], o.Pred.Total.Data[r]) || !same(s.Pred.Aleatoric.Data[j], o.Pred.Aleatoric.Data[r]) ||
				!same(s.Pred.Epistemic.Data[j], o.Pred.Epistemic.Data[r]) || !same(s.Distance.Data[j], o.Distance.Data[r]) ||
				!same(s.Cost.Data[j], o.Cost.Data[r]) {
				t.Fatalf("row %d scores H %v d %v cost %v, the objective %v %v %v", r, s.Pred.Total.Data[j], s.Distance.Data[j],
					s.Cost.Data[j], o.Pred.Total.Data[r], o.Distance.Data[r], o.Cost.Data[r])
			}
			var d float64
			for i := range cols {
				d += h.Part(o.Image.Row(r), i)
			}
			if !same(float32(d), o.Distance.Data[r]) || !same(h.Distance(o.Image.Row(r)), o.Distance.Data[r]) {
				t.Fatalf("row %d: its columns' parts sum to %v, d is %v", r, d, o.Distance.Data[r])
			}
		}
	}
}

func TestRowObjectiveZeroAllocations(t *testing.T) {
	o := rowObjective(t, 20)
	step := func() {
		o.Forward()
		o.Backward()
	}
	step()
	if a := testing.AllocsPerRun(5, step); a != 0 {
		t.Fatalf("%v allocations per forward+backward, want 0", a)
	}
	o.Graph.SetBatch(7)
	if a := testing.AllocsPerRun(5, step); a != 0 {
		t.Fatalf("%v allocations per step with a shrunk batch, want 0", a)
	}
}

// goldenRowObjective is the SHA-256 of the row objective's outputs and ∂L/∂z (natively, and in WASM with and
// without the SIMD kernel).
const goldenRowObjective = "617e7a9ac8bbea23d399fe30c24339658710c4d767451eb7a9783fa2d72f6d52"

func TestGoldenRowObjective(t *testing.T) {
	o := rowObjective(t, 13)
	o.Forward()
	o.Backward()
	h := sha256.New()
	for _, s := range [][]float32{o.Cost.Live(), o.Pred.Probs.Live(), o.Pred.Total.Live(), o.Distance.Live(), o.Image.Live(), o.Logits.Live(), o.Z.Grad[:o.Z.Rows()*o.Z.Cols]} {
		binary.Write(h, binary.LittleEndian, s)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != goldenRowObjective {
		t.Fatalf("row objective bits hash %s, want %s", got, goldenRowObjective)
	}
}
