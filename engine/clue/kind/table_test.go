package kind

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/deltaclue/deltaclue/engine"
	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/raster"
	"github.com/deltaclue/deltaclue/internal/credit"
	"github.com/deltaclue/deltaclue/weights"
)

var testColumns = weights.Columns{
	{Name: "Seniority", Kind: weights.ColumnInteger, Unit: "years", Range: [2]float64{0, 47}, Mean: 8, Std: 8, Change: weights.ChangeFree},
	{Name: "Records", Kind: weights.ColumnCategory, Levels: []string{"no", "yes"}, Change: weights.ChangeFree},
	{Name: "Debt", Kind: weights.ColumnInteger, Range: [2]float64{0, 15000}, Mean: 300, Std: 1000, Change: weights.ChangeFree},
}

func flat(t *testing.T, cols weights.Columns, row []float64) []float32 {
	t.Helper()
	x, err := cols.Standardise(row)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// TestRowWords: a row's changes are said in words, up and down told apart, with the unit, a category by its
// levels; the sentence tells each label reached by its cheapest explanation, in the order of p(y).
func TestRowWords(t *testing.T) {
	tab := Table{testColumns}
	row0 := []float64{2, 0, 800}
	if got, want := tab.InWords(row0, []float64{5, 0, 0}), "Seniority rose from 2 to 5 years and Debt fell from 800 to 0"; got != want {
		t.Errorf("InWords: %q, want %q", got, want)
	}
	if got, want := tab.InWords(row0, []float64{2, 1, 800}), "Records were yes rather than no"; got != want {
		t.Errorf("InWords: %q, want %q", got, want)
	}
	if got := tab.InWords(row0, row0); got != "nothing changed" {
		t.Errorf("no change: %q", got)
	}
	if got, want := tab.Arrows(row0, []float64{2, 1, 0}), "Records no → yes, Debt 800 → 0"; got != want {
		t.Errorf("Arrows: %q, want %q", got, want)
	}
	rows := [][]float64{{2, 0, 100}, {2, 1, 800}, {2, 0, 0}, {2, 0, 800}}
	exps := []clue.Explanation{
		{Restart: 0, Label: 1, Accepted: true, Cost: 0.5, Changed: []string{"Debt"}},
		{Restart: 1, Label: 0, Accepted: true, Cost: 0.9, Changed: []string{"Records"}},
		{Restart: 2, Label: 1, Accepted: true, Cost: 0.2, Changed: []string{"Debt"}},
		{Restart: 3, Label: 1, Accepted: false, Cost: 0.1},
	}
	for i := range exps {
		exps[i].Mode, exps[i].DuplicateOf, exps[i].Image = 0, -1, flat(t, testColumns, rows[i])
	}
	s := clue.Summary{Restarts: 4, Accepted: 3, LabelCounts: []int{1, 2}, LabelDistribution: []float64{0.05, 0.95}, Modes: []int{1, 1}}
	pred := engine.Uncertainty{Probs: []float32{0.45, 0.55}, Total: 0.69}
	got := tab.Describe(clue.NewWords([]string{"bad", "good"}, "applicant"), flat(t, testColumns, row0), pred, exps, s, clue.Params{HThreshold: 0.3, Delta: 2})
	want := "The model is unsure whether this applicant is good (p 0.55, H 0.69 nats). It would be sure of good if Debt fell from 800 to 0 " +
		"(2 of 4 restarts) or of bad if Records were yes rather than no (1 of 4 restarts)."
	if got != want {
		t.Errorf("Describe:\n%s\nwant\n%s", got, want)
	}
}

// TestRowsAreCarriedExactly: a link carries a credit applicant's row in 40 bytes (9 numbers × 4, 4 categories ×
// 1), and Carried gives back the flattened row bit for bit, for rows drawn at random inside every column's range
// and for the explanations' kind of rows (a category block with its softmax's values, not yet one-hot: carried as
// its hot level).
func TestRowsAreCarriedExactly(t *testing.T) {
	cols := credit.Columns()
	tab := Of(weights.Input{Kind: weights.KindTable, Columns: cols}).(Table)
	if tab.CarriedSize() != 9*4+4 {
		t.Fatalf("a credit row is carried in %d bytes", tab.CarriedSize())
	}
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 2000; n++ {
		row := make([]float64, len(cols))
		for i, c := range cols {
			if c.Kind == weights.ColumnCategory {
				row[i] = float64(r.IntN(len(c.Levels)))
			} else {
				row[i] = math.Round(c.Range[0] + r.Float64()*(c.Range[1]-c.Range[0]))
			}
		}
		x := flat(t, cols, row)
		q := tab.Carry(x)
		back := tab.Carried(q)
		if back == nil {
			t.Fatalf("row %v: %v", row, tab.Check(q))
		}
		for j := range x {
			if math.Float32bits(x[j]) != math.Float32bits(back[j]) {
				t.Fatalf("row %v: value %d carried %v, back %v", row, j, x[j], back[j])
			}
		}
	}
}

// TestBadRowsInLinks: bytes that are no row of the table are refused in a sentence naming the column.
func TestBadRowsInLinks(t *testing.T) {
	tab := Table{testColumns}
	good := tab.Carry(flat(t, testColumns, []float64{2, 1, 800}))
	for _, c := range []struct {
		name string
		q    func() []uint8
		want string
	}{
		{"short", func() []uint8 { return good[:5] }, "its row is 5 bytes where a row of these 3 columns is 9"},
		{"level", func() []uint8 { q := append([]uint8(nil), good...); q[4] = 2; return q }, "its Records is level 3 of 2"},
		{"NaN", func() []uint8 { q := append([]uint8(nil), good...); copy(q[5:], []uint8{0, 0, 0xc0, 0x7f}); return q }, "its Debt is not a number"},
		{"range", func() []uint8 {
			q := append([]uint8(nil), good...)
			copy(q[5:], Table{testColumns}.Carry(flat(t, testColumns, []float64{2, 1, 20000}))[5:])
			return q
		}, "its Debt, 20000, is outside 0 to 15000"},
	} {
		err := tab.Check(c.q())
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
		if tab.Carried(c.q()) != nil {
			t.Errorf("%s: carried", c.name)
		}
	}
}

// TestRowInAFigure: a row is drawn as its fields, a change as the changed fields with a sign for up and down.
func TestRowInAFigure(t *testing.T) {
	tab := Table{testColumns}
	w, h := tab.Size(tab.Fit(112))
	if w != 114 || h != 27 {
		t.Fatalf("a row of 3 columns is %d×%d", w, h)
	}
	x0, e := flat(t, testColumns, []float64{2, 0, 800}), flat(t, testColumns, []float64{2, 0, 0})
	img := raster.New(w, h)
	raster.FillRect(img, 0, 0, w, h, raster.White)
	tab.DrawDiff(img, 0, 0, x0, e, 1)
	removed, added, other := 0, 0, 0
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			switch img.At(x, y) {
			case raster.RemovedColour:
				removed++
			case raster.AddedColour:
				added++
			case raster.White:
			default:
				other++
			}
		}
	}
	if removed == 0 || added != 0 || other != 0 {
		t.Errorf("Debt fell: %d px in the removed colour, %d added, %d other", removed, added, other)
	}
	if a, r := tab.Changes(); !strings.Contains(a, "+") || !strings.Contains(r, "-") {
		t.Errorf("legend %q, %q", a, r)
	}
}

// FuzzCarried: any bytes are either refused with a sentence or a row inside every column's range, one-hot in
// every category, that a link carries back to the same bytes.
func FuzzCarried(f *testing.F) {
	tab := Table{credit.Columns()}
	f.Add(make([]byte, tab.CarriedSize()))
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, q []byte) {
		x := tab.Carried(q)
		if err := tab.Check(q); (err == nil) != (x != nil) {
			t.Fatalf("Check %v, Carried %v", err, x != nil)
		}
		if x == nil {
			return
		}
		row := tab.Row(x)
		if err := tab.Columns.CheckRow(row); err != nil {
			t.Fatalf("carried row %v: %v", row, err)
		}
		if back := tab.Carry(x); string(back) != string(q) {
			t.Fatalf("carried again: %v, was %v", back, q)
		}
	})
}
