package tablekind

import (
	"strings"
	"testing"

	"github.com/deltaclue/deltaclue/internal/credit"
	"github.com/deltaclue/deltaclue/weights"
)

// TestFormReadsARow: the blank form shows a typical applicant inside every range; what a visitor types is read
// as the table reads a CSV's values, a refused one named with its column, and a shown row reads back the same.
func TestFormReadsARow(t *testing.T) {
	cols := credit.Columns()
	f := NewForm(cols)
	row, err := f.Row()
	if err != nil {
		t.Fatalf("the blank form: %v", err)
	}
	if err := cols.CheckRow(row); err != nil {
		t.Fatalf("the blank form's row %v: %v", row, err)
	}
	age := cols.Index("Age")
	f.Set(age, "150")
	if _, err := f.Row(); err == nil || !strings.Contains(err.Error(), `column "Age"`) || f.Errs[age] == "" {
		t.Errorf("Age 150: %v, %q", err, f.Errs[age])
	}
	home := cols.Index("Home")
	f.Set(age, "30")
	f.Set(home, "castle")
	if _, err := f.Row(); err == nil || !strings.Contains(err.Error(), "castle") || f.Errs[age] != "" {
		t.Errorf("Home castle: %v (Age's error %q)", err, f.Errs[age])
	}
	f.Set(home, "rent")
	row, err = f.Row()
	if err != nil || row[age] != 30 || cols[home].Format(row[home]) != "rent" {
		t.Fatalf("Age 30, Home rent: %v %v", row, err)
	}
	g := NewForm(cols)
	g.Show(row)
	back, err := g.Row()
	if err != nil {
		t.Fatal(err)
	}
	for i := range row {
		if back[i] != row[i] {
			t.Errorf("column %s: shown %v, read %v", cols[i].Name, row[i], back[i])
		}
	}
}

func TestHint(t *testing.T) {
	for _, c := range []struct {
		col  weights.Column
		want string
	}{
		{weights.Column{Kind: weights.ColumnInteger, Range: [2]float64{18, 68}, Unit: "years", Change: weights.ChangeUp}, "18 to 68 years; may only rise"},
		{weights.Column{Kind: weights.ColumnCategory, Levels: []string{"a", "b"}, Change: weights.ChangeNever}, "never changes"},
		{weights.Column{Kind: weights.ColumnNumber, Range: [2]float64{0, 1}, Change: weights.ChangeFree}, "0 to 1"},
	} {
		if got := Hint(c.col); got != c.want {
			t.Errorf("%+v: %q, want %q", c.col, got, c.want)
		}
	}
}
