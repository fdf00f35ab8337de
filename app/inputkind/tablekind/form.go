package tablekind

import (
	"fmt"
	"math"
	"strconv"

	"github.com/deltaclue/deltaclue/weights"
)

// Form is the row as the form shows it: each column's value as typed, and why it is refused. It is plain Go,
// tested natively.
type Form struct {
	cols   weights.Columns
	Values []string // by column, as typed (a category's level by name)
	Errs   []string // by column: why its value is refused ("" if it is not)
}

// NewForm is a form showing a typical row: each number its training mean inside its range (rounded to a whole
// number for an integer, to four significant digits otherwise: 278.8, not 278.755086848635), each category its
// first level.
func NewForm(cols weights.Columns) Form {
	f := Form{cols: cols, Values: make([]string, len(cols)), Errs: make([]string, len(cols))}
	row := make([]float64, len(cols))
	for i, col := range cols {
		if col.Kind != weights.ColumnCategory {
			v := min(max(col.Mean, col.Range[0]), col.Range[1])
			if col.Kind == weights.ColumnInteger {
				v = math.Round(v)
			} else if r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 4, 64), 64); err == nil {
				v = min(max(r, col.Range[0]), col.Range[1])
			}
			row[i] = v
		}
	}
	f.Show(row)
	return f
}

// Show puts a row (in natural units) into the form.
func (f *Form) Show(row []float64) {
	for i, col := range f.cols {
		f.Values[i], f.Errs[i] = col.Format(row[i]), ""
	}
}

// Set records column i's value as typed.
func (f *Form) Set(i int, v string) {
	if i >= 0 && i < len(f.Values) {
		f.Values[i] = v
	}
}

// Row reads the form: the row in natural units, or an error naming the first column refused (each refused
// column's reason is in Errs).
func (f *Form) Row() ([]float64, error) {
	row := make([]float64, len(f.cols))
	var first error
	for i := range f.cols {
		v, err := f.cols.ParseValue(i, f.Values[i])
		f.Errs[i] = ""
		if err != nil {
			f.Errs[i] = err.Error()
			if first == nil {
				first = err
			}
			continue
		}
		row[i] = v
	}
	if first != nil {
		return nil, fmt.Errorf("%v", first)
	}
	return row, nil
}

// Hint says what column i may hold and how an explanation may change it: "18 to 68 years; may only rise".
func Hint(col weights.Column) string {
	s := ""
	if col.Kind != weights.ColumnCategory {
		s = col.RangeText()
	}
	rule := ""
	switch col.Change {
	case weights.ChangeUp:
		rule = "may only rise"
	case weights.ChangeDown:
		rule = "may only fall"
	case weights.ChangeNever:
		rule = "never changes"
	}
	if rule != "" && s != "" {
		return s + "; " + rule
	}
	return s + rule
}
