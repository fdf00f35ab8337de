// Package features counts which columns of a table explanations change (issue 41): over explanations of rows,
// each against its input's row, how often each column changes, which way a number moves and which levels a
// category is changed to. The audit's report and the global groups of a model of rows say with it which features
// the model's uncertainty hinges on.
package features

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/deltaclue/deltaclue/weights"
)

// Value is one column's value in a row: a float64 for a number or an integer, a string (its level's name) for a
// category, as a row's JSON {column: value} holds them (weights.Columns.RowJSON).
type Value = any

// Count is how one column was changed by the explanations tallied.
type Count struct {
	Column  string  `json:"column"`
	Changed int     `json:"changed"` // explanations that change it
	Share   float64 `json:"share"`   // Changed over the explanations tallied (0 when there are none)
	// D is the column's mean part of the explanations' row distance d: |change| in standard deviations for a
	// number, 1 for a category changed, averaged over the explanations tallied. A number the VAE moves a hair
	// in every explanation has a high Share and a small D: D says which features the explanations lean on.
	D    float64 `json:"d"`
	Rose int     `json:"rose,omitempty"`
	Fell int     `json:"fell,omitempty"`
	// RiseBy and FallBy are a number's mean rise and mean fall in its own unit, over the explanations in which it
	// rose (fell): how far it moves, where Changed says only how often.
	RiseBy float64 `json:"rise_by,omitempty"`
	FallBy float64 `json:"fall_by,omitempty"`
	// To are the levels a category was changed to, the most often first (ties by name).
	To []Level `json:"to,omitempty"`
}

// Level is how often a category was changed to one of its levels.
type Level struct {
	Level string `json:"level"`
	Count int    `json:"count"`
}

// Tally is the count of every column over a set of explanations.
type Tally struct {
	Explanations int     `json:"explanations"`
	Columns      []Count `json:"columns"` // in the table's order
	// Sparsity is the mean number of columns an explanation changes, and D its mean row distance (0 when there
	// are none).
	Sparsity float64 `json:"sparsity"`
	D        float64 `json:"d"`
	changes  int
	rise     []float64 // each column's sum of rises, and of falls
	fall     []float64
	scale    []float64 // each number's standard deviation (0 for a category)
	dsum     []float64 // each column's summed part of d
}

// New is an empty tally of a table's columns.
func New(cols weights.Columns) *Tally {
	n := len(cols)
	t := &Tally{Columns: make([]Count, n), rise: make([]float64, n), fall: make([]float64, n), scale: make([]float64, n), dsum: make([]float64, n)}
	for i, col := range cols {
		t.Columns[i].Column = col.Name
		if col.Kind != weights.ColumnCategory {
			t.scale[i] = col.Std
		}
	}
	return t
}

// Add counts one explanation: its row against its input's, both in the table's column order. A column changes
// when its values differ; a number that changes rose or fell, a category counts the level it became.
func (t *Tally) Add(from, to []Value) error {
	if len(from) != len(t.Columns) || len(to) != len(t.Columns) {
		return fmt.Errorf("a row of %d and one of %d values for %d columns", len(from), len(to), len(t.Columns))
	}
	t.Explanations++
	for i := range t.Columns {
		c := &t.Columns[i]
		switch a := from[i].(type) {
		case float64:
			b, ok := to[i].(float64)
			if !ok {
				return fmt.Errorf("column %q: a number, then %v", c.Column, to[i])
			}
			if a == b {
				continue
			}
			c.Changed++
			t.changes++
			if b > a {
				c.Rose++
				t.rise[i] += b - a
			} else {
				c.Fell++
				t.fall[i] += a - b
			}
			if t.scale[i] > 0 {
				t.dsum[i] += math.Abs(b-a) / t.scale[i]
			}
		case string:
			b, ok := to[i].(string)
			if !ok {
				return fmt.Errorf("column %q: a level, then %v", c.Column, to[i])
			}
			if a == b {
				continue
			}
			c.Changed++
			t.changes++
			k := 0
			for k < len(c.To) && c.To[k].Level != b {
				k++
			}
			if k == len(c.To) {
				c.To = append(c.To, Level{Level: b})
			}
			c.To[k].Count++
			t.dsum[i]++
		default:
			return fmt.Errorf("column %q: %v is neither a number nor a level", c.Column, from[i])
		}
	}
	t.finish()
	return nil
}

// finish keeps the shares, the sparsity and the order of the levels up to date.
func (t *Tally) finish() {
	for i := range t.Columns {
		c := &t.Columns[i]
		c.Share = float64(c.Changed) / float64(t.Explanations)
		c.RiseBy, c.FallBy = 0, 0
		if c.Rose > 0 {
			c.RiseBy = t.rise[i] / float64(c.Rose)
		}
		if c.Fell > 0 {
			c.FallBy = t.fall[i] / float64(c.Fell)
		}
		sort.SliceStable(c.To, func(a, b int) bool {
			if c.To[a].Count != c.To[b].Count {
				return c.To[a].Count > c.To[b].Count
			}
			return c.To[a].Level < c.To[b].Level
		})
	}
	t.Sparsity = float64(t.changes) / float64(t.Explanations)
	t.D = 0
	for i := range t.Columns {
		t.Columns[i].D = t.dsum[i] / float64(t.Explanations)
		t.D += t.Columns[i].D
	}
}

// Ranked are the columns that any explanation changes, the largest part of d first (ties in the table's order):
// what the explanations lean on, where how often a column changes says little of a number the VAE moves a hair
// in nearly every explanation.
func (t *Tally) Ranked() []Count {
	var out []Count
	for _, c := range t.Columns {
		if c.Changed > 0 {
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].D > out[b].D })
	return out
}

// Describe says one column's count briefly: "62 %, d 0.41, rose 58 % by 120, fell 4 % by 35" for a number (its
// part of d, its mean rise and fall in its unit, to 3 significant digits or whole), "12 %, d 0.12, to yes 10 %, to
// no 2 %" for a category (shares of the explanations tallied).
func (c Count) Describe(explanations int) string {
	pc := func(n int) string { return percent(n, explanations) }
	by := func(v float64) string { // 3 significant digits, never in exponent form
		if math.Abs(v) >= 100 {
			return strconv.FormatFloat(math.Round(v), 'f', 0, 64)
		}
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
	s := pc(c.Changed) + ", d " + strconv.FormatFloat(c.D, 'f', 2, 64)
	if c.Rose > 0 {
		s += ", rose " + pc(c.Rose) + " by " + by(c.RiseBy)
	}
	if c.Fell > 0 {
		s += ", fell " + pc(c.Fell) + " by " + by(c.FallBy)
	}
	for _, l := range c.To {
		s += ", to " + l.Level + " " + pc(l.Count)
	}
	return s
}

// Words says the k columns with the largest part of d, each as Describe does: "Income (62 %, d 0.41, rose 58 %
// by 120, fell 4 % by 35), Records (12 %, d 0.12, to no 12 %)"; "no column" when none is changed.
func (t *Tally) Words(k int) string {
	r := t.Ranked()
	if len(r) == 0 {
		return "no column"
	}
	var parts []string
	for _, c := range r[:min(k, len(r))] {
		parts = append(parts, fmt.Sprintf("%s (%s)", c.Column, c.Describe(t.Explanations)))
	}
	return strings.Join(parts, ", ")
}

// percent is n of total as a whole percentage ("62 %"; "<1 %" for a few, never "0 %" for some).
func percent(n, total int) string {
	if total == 0 {
		return "0 %"
	}
	p := 100 * float64(n) / float64(total)
	if n > 0 && p < 0.5 {
		return "<1 %"
	}
	return strconv.Itoa(int(math.Round(p))) + " %"
}

// Row is a row in natural units (weights.Columns' convention) as values: a category as its level's name.
func Row(cols weights.Columns, row []float64) []Value {
	out := make([]Value, len(cols))
	for i, col := range cols {
		if col.Kind == weights.ColumnCategory {
			out[i] = col.Format(row[i])
		} else {
			out[i] = row[i]
		}
	}
	return out
}

// Decode reads a row's JSON {column: value} (weights.Columns.RowJSON) into values in the order of names; a
// column missing, or a value neither a number nor a string, is refused naming the column.
func Decode(names []string, raw json.RawMessage) ([]Value, error) {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("a row: %v", err)
	}
	out := make([]Value, len(names))
	for i, n := range names {
		v, ok := m[n]
		if !ok {
			return nil, fmt.Errorf("a row without column %q", n)
		}
		switch v.(type) {
		case float64, string:
			out[i] = v
		default:
			return nil, fmt.Errorf("column %q: %v is neither a number nor a level", n, v)
		}
	}
	return out, nil
}

// Format writes a value as the row's text does: a number in Go's shortest form, a level by its name.
func Format(v Value) string {
	if f, ok := v.(float64); ok {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}

// Arrows writes the columns in which row differs from row0 briefly: "Debt 800 → 0, Records no → yes"; "no
// change" when none does.
func Arrows(names []string, row0, row []Value) string {
	var parts []string
	for i, n := range names {
		if i < len(row0) && i < len(row) && row0[i] != row[i] {
			parts = append(parts, fmt.Sprintf("%s %s → %s", n, Format(row0[i]), Format(row[i])))
		}
	}
	if len(parts) == 0 {
		return "no change"
	}
	return strings.Join(parts, ", ")
}
