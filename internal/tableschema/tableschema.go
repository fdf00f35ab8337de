// Package tableschema reads a table's schema file and completes it from training rows: the columns as
// weights.Column describes them (name, kind number/integer/category, a category's levels, unit, range, change),
// each number's or integer's range, mean and std computed from the training rows where the file does not give
// them. internal/credit's schema is computed with Fit; `deltaclue import -schema` reads a user's with Read.
package tableschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/deltaclue/deltaclue/weights"
)

// MaxBytes bounds a schema file.
const MaxBytes = 1 << 20

// Read reads a schema file: a JSON array of columns (weights.Column's fields, no others), each number's or
// integer's range, mean and std optional (Fit computes what is missing from the training rows; a std given alone
// has a mean of 0, and a mean given alone is refused). A column without a change rule may change freely. Its
// error is one sentence.
func Read(r io.Reader) (weights.Columns, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxBytes {
		return nil, fmt.Errorf("the schema is over %d bytes", MaxBytes)
	}
	var cols weights.Columns
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cols); err != nil {
		return nil, fmt.Errorf("the schema is not a JSON array of columns (name, kind, levels, unit, range, mean, std, change): %v", err)
	}
	if dec.More() {
		return nil, errors.New("the schema has something after its array of columns")
	}
	if len(cols) == 0 {
		return nil, errors.New("the schema has no columns")
	}
	if len(cols) > weights.MaxColumns {
		return nil, fmt.Errorf("the schema has %d columns: at most %d", len(cols), weights.MaxColumns)
	}
	for i := range cols {
		c := &cols[i]
		if c.Change == "" {
			c.Change = weights.ChangeFree
		}
		if c.Kind != weights.ColumnCategory && (c.Mean == 0) != (c.Std == 0) && c.Mean != 0 {
			return nil, fmt.Errorf("column %q gives a mean without a std: give both, or neither to have them computed from the training rows", c.Name)
		}
	}
	// Everything but what the rows give is checked now, with stand-ins for the missing statistics.
	if err := Loose(cols).Check(); err != nil {
		return nil, fmt.Errorf("the schema: %v", err)
	}
	return cols, nil
}

// Loose is cols with a range wide enough for any value wherever none is given (and a std of 1 where none is):
// the columns to read the training rows with before Fit knows their statistics.
func Loose(cols weights.Columns) weights.Columns {
	c := slices.Clone(cols)
	for i := range c {
		if c[i].Kind == weights.ColumnCategory {
			continue
		}
		if c[i].Range == [2]float64{} {
			c[i].Range = [2]float64{-1e15, 1e15}
		}
		if c[i].Std == 0 {
			c[i].Std = 1
		}
	}
	return c
}

// Fit completes cols from the training rows (in natural units, one value per column): each number's or
// integer's range, where not given, is the rows' minimum and maximum, and its mean and std, where not given,
// the rows' mean and standard deviation (the population's: divided by n). It refuses fewer than 2 rows and a
// column whose values are all the same (a std of 0 standardises nothing).
func Fit(cols weights.Columns, rows [][]float64) (weights.Columns, error) {
	if len(rows) < 2 {
		return nil, fmt.Errorf("a schema needs training rows, not %d", len(rows))
	}
	c := slices.Clone(cols)
	for i := range c {
		if c[i].Kind == weights.ColumnCategory {
			c[i].Levels = slices.Clone(c[i].Levels)
			continue
		}
		lo, hi, sum := math.Inf(1), math.Inf(-1), 0.0
		for _, r := range rows {
			v := r[i]
			lo, hi, sum = min(lo, v), max(hi, v), sum+v
		}
		mean := sum / float64(len(rows))
		ss := 0.0
		for _, r := range rows {
			ss += (r[i] - mean) * (r[i] - mean)
		}
		if c[i].Range == [2]float64{} {
			c[i].Range = [2]float64{lo, hi}
		}
		if c[i].Std == 0 {
			c[i].Mean, c[i].Std = mean, math.Sqrt(ss/float64(len(rows)))
		}
	}
	if err := c.Check(); err != nil {
		return nil, fmt.Errorf("the training rows' schema: %v", err)
	}
	return c, nil
}
