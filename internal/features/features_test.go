package features

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/deltaclue/deltaclue/weights"
)

// testColumns are an integer, a category and a number.
var testColumns = weights.Columns{
	{Name: "Age", Kind: weights.ColumnInteger, Range: [2]float64{18, 68}, Mean: 40, Std: 10, Change: weights.ChangeUp},
	{Name: "Home", Kind: weights.ColumnCategory, Levels: []string{"owner", "parents", "rent"}, Change: weights.ChangeFree},
	{Name: "Income", Kind: weights.ColumnNumber, Range: [2]float64{0, 1000}, Mean: 100, Std: 50, Change: weights.ChangeFree},
}

// TestTally: a tally counts each column an explanation changes, which way a number moves and by how much, which
// level a category becomes, and each column's part of the row distance d; its words rank the columns by that part.
func TestTally(t *testing.T) {
	tl := New(testColumns)
	x0 := []Value{30.0, "rent", 100.0}
	for _, x := range [][]Value{
		{30.0, "owner", 140.0},
		{31.0, "owner", 90.0},
		{30.0, "rent", 120.0},
		{30.0, "parents", 100.0},
	} {
		if err := tl.Add(x0, x); err != nil {
			t.Fatal(err)
		}
	}
	age, home, income := tl.Columns[0], tl.Columns[1], tl.Columns[2]
	if tl.Explanations != 4 || age.Changed != 1 || age.Rose != 1 || age.RiseBy != 1 || home.Changed != 3 || income.Changed != 3 ||
		income.Rose != 2 || income.Fell != 1 || income.RiseBy != 30 || income.FallBy != 10 || tl.Sparsity != 7.0/4 ||
		math.Abs(age.D-0.025) > 1e-12 || home.D != 0.75 || math.Abs(income.D-0.35) > 1e-12 || math.Abs(tl.D-1.125) > 1e-12 {
		t.Fatalf("%+v", tl)
	}
	if len(home.To) != 2 || home.To[0] != (Level{"owner", 2}) || home.To[1] != (Level{"parents", 1}) {
		t.Errorf("Home's levels: %+v", home.To)
	}
	if got, want := tl.Words(2), "Home (75 %, d 0.75, to owner 50 %, to parents 25 %), Income (75 %, d 0.35, rose 50 % by 30, fell 25 % by 10)"; got != want {
		t.Errorf("words: %q, want %q", got, want)
	}
	if err := tl.Add(x0, []Value{30.0, 2.0, 100.0}); err == nil || !strings.Contains(err.Error(), `"Home"`) {
		t.Errorf("a level then a number: %v", err)
	}
	if got := New(testColumns).Words(3); got != "no column" {
		t.Errorf("an empty tally: %q", got)
	}
}

// TestRowsRoundTrip: a row written by weights.Columns.RowJSON decodes to the values Row makes of it.
func TestRowsRoundTrip(t *testing.T) {
	cols := testColumns
	row := []float64{30, 2, 123.456789}
	b, err := cols.RowJSON(row)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(cols.Names(), b)
	if err != nil {
		t.Fatal(err)
	}
	want := Row(cols, row)
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("column %d: %v, want %v", i, got[i], want[i])
		}
	}
	if a := Arrows(cols.Names(), want, []Value{31.0, "rent", 100.0}); a != "Age 30 → 31, Income 123.456789 → 100" {
		t.Errorf("arrows: %q", a)
	}
}

// FuzzDecode: any bytes as a row's JSON are decoded or refused, never a panic; what is decoded has one number
// or level per column.
func FuzzDecode(f *testing.F) {
	cols := testColumns[:2]
	names := cols.Names()
	f.Add([]byte(`{"Age":30,"Home":"rent"}`))
	f.Add([]byte(`{"Age":null,"Home":[1]}`))
	f.Add([]byte(`{"Age":1e400}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		vs, err := Decode(names, json.RawMessage(b))
		if err != nil {
			return
		}
		if len(vs) != len(names) {
			t.Fatalf("%d values for %d columns", len(vs), len(names))
		}
		tl := New(cols)
		if err := tl.Add(vs, vs); err != nil || tl.Sparsity != 0 {
			t.Errorf("a row against itself: %v, sparsity %v", err, tl.Sparsity)
		}
	})
}
