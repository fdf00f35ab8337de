package dataset

import (
	"strings"
	"testing"

	"github.com/deltaclue/deltaclue/weights"
)

// TestTable: rows are flattened as Columns.Standardise does, a subset keeps its rows' values and labels, and a
// row outside its column's range is refused naming the row and the column.
func TestTable(t *testing.T) {
	cols := weights.Columns{
		{Name: "Age", Kind: weights.ColumnInteger, Range: [2]float64{18, 68}, Mean: 40, Std: 10, Change: weights.ChangeUp},
		{Name: "Home", Kind: weights.ColumnCategory, Levels: []string{"owner", "rent"}, Change: weights.ChangeFree},
	}
	tab, err := NewTable(cols, [][]float64{{30, 1}, {50, 0}}, []int{1, 0})
	if err != nil {
		t.Fatal(err)
	}
	if tab.Len() != 2 || tab.Size() != 3 || tab.Label(1) != 0 {
		t.Fatalf("%d rows of %d, label %d", tab.Len(), tab.Size(), tab.Label(1))
	}
	if got := tab.Float(0, nil); got[0] != -1 || got[1] != 0 || got[2] != 1 {
		t.Errorf("row 0 flattened: %v", got)
	}
	s := tab.Subset([]int{1})
	if s.Len() != 1 || s.Label(0) != 0 || s.Float(0, nil)[0] != 1 || s.Rows[0][0] != 50 || s.Targets != nil {
		t.Errorf("the subset: %+v", s)
	}
	// A regression's rows keep their targets in a subset.
	tab.Targets = []float64{12.5, 40}
	if s := tab.Subset([]int{1, 0}); len(s.Targets) != 2 || s.Targets[0] != 40 || s.Targets[1] != 12.5 {
		t.Errorf("the subset's targets: %v", s.Targets)
	}
	if _, err := NewTable(cols, [][]float64{{30, 1}, {17, 0}}, []int{1, 0}); err == nil || !strings.Contains(err.Error(), `row 1: column "Age"`) {
		t.Errorf("a row out of range: %v", err)
	}
}
