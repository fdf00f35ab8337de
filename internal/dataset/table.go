package dataset

import (
	"fmt"

	"github.com/deltaclue/deltaclue/weights"
)

// Table is a labelled set of a table's rows as its networks read them (issue 41): each row in natural units
// (weights.Columns' convention: a category as its level's index), flattened and standardised once by
// Columns.Standardise into Size values.
type Table struct {
	Columns weights.Columns
	Rows    [][]float64 // in natural units
	Labels  []int       // class indices: a regression's, the range each target falls in (weights.Regression.Range)
	// Targets is a regression's target per row in its unit (weights.Regression), nil for a classifier's rows.
	Targets []float64
	flat    []float32 // Len·Size, the rows flattened
}

// NewTable flattens rows (each checked against the columns) with their labels.
func NewTable(cols weights.Columns, rows [][]float64, labels []int) (*Table, error) {
	if len(rows) != len(labels) {
		return nil, fmt.Errorf("%d rows with %d labels", len(rows), len(labels))
	}
	t := &Table{Columns: cols, Rows: rows, Labels: labels, flat: make([]float32, 0, len(rows)*cols.Width())}
	for i, r := range rows {
		if err := cols.CheckRow(r); err != nil {
			return nil, fmt.Errorf("row %d: %v", i, err)
		}
		x, err := cols.Standardise(r)
		if err != nil {
			return nil, fmt.Errorf("row %d: %v", i, err)
		}
		t.flat = append(t.flat, x...)
	}
	return t, nil
}

// Len is the number of rows.
func (t *Table) Len() int { return len(t.Rows) }

// Size is the flattened row's width.
func (t *Table) Size() int { return t.Columns.Width() }

// Label is row i's class.
func (t *Table) Label(i int) int { return t.Labels[i] }

// Float writes row i flattened into dst (allocated when nil) and returns it.
func (t *Table) Float(i int, dst []float32) []float32 {
	n := t.Size()
	if dst == nil {
		dst = make([]float32, n)
	}
	copy(dst, t.flat[i*n:(i+1)*n])
	return dst
}

// Subset is the rows idx of t, in that order.
func (t *Table) Subset(idx []int) *Table {
	n := t.Size()
	s := &Table{Columns: t.Columns, flat: make([]float32, 0, len(idx)*n)}
	for _, i := range idx {
		s.Rows = append(s.Rows, t.Rows[i])
		s.Labels = append(s.Labels, t.Labels[i])
		if t.Targets != nil {
			s.Targets = append(s.Targets, t.Targets[i])
		}
		s.flat = append(s.flat, t.flat[i*n:(i+1)*n]...)
	}
	return s
}
