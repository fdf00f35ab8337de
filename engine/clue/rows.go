package clue

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/deltaclue/deltaclue/engine"
	"github.com/deltaclue/deltaclue/weights"
)

// A model of rows (issue 41): the search decodes each latent point through the row head (engine.RowHead), so
// that every point it evaluates, and every explanation, is a valid row that keeps the columns' change rules and
// the user's locks, and measures d_x with engine.RowDistance (L1 on the standardised numbers plus the number of
// changed categories). Images go exactly as before.

// ColumnList is a list of a table's column names (Params.Lock). It is held as one string, the names joined by
// "," (a column's name never holds one: weights.Column), so that Params stay comparable; its JSON is an array of
// names, and an empty list is left out of Params' JSON.
type ColumnList string

// NewColumnList makes a list of the names, in the order given.
func NewColumnList(names ...string) ColumnList { return ColumnList(strings.Join(names, ",")) }

// Names returns the names in order (none for the empty list).
func (l ColumnList) Names() []string {
	if l == "" {
		return nil
	}
	// Not strings.Split: the dense-only worker (the digits' first visit) would link it for this alone.
	var names []string
	s := string(l)
	for {
		i := strings.IndexByte(s, ',')
		if i < 0 {
			return append(names, s)
		}
		names, s = append(names, s[:i]), s[i+1:]
	}
}

// MarshalJSON writes the names as a JSON array.
func (l ColumnList) MarshalJSON() ([]byte, error) {
	names := l.Names()
	if names == nil {
		names = []string{}
	}
	return json.Marshal(names)
}

// UnmarshalJSON reads a JSON array of names (or null, the empty list).
func (l *ColumnList) UnmarshalJSON(b []byte) error {
	var names []string
	if err := json.Unmarshal(b, &names); err != nil {
		return fmt.Errorf("lock: want a list of column names")
	}
	for _, n := range names {
		if n == "" || strings.Contains(n, ",") {
			return fmt.Errorf("lock: %q is not a column's name (a name is not empty and has no comma)", n)
		}
	}
	*l = NewColumnList(names...)
	return nil
}

// check says whether every name of the list is one a column can have (a link may carry any bytes).
func (l ColumnList) check() error {
	for _, n := range l.Names() {
		if !weights.ValidColumnName(n) {
			return &ParamError{"lock", l, fmt.Sprintf("%q cannot name a column (1 to 64 bytes on one line, without = , or quotes)", n)}
		}
	}
	return nil
}

// Columns are the table's columns when the models read rows, nil when they read images.
func (m *Models) Columns() weights.Columns {
	if m.desc == nil || !m.desc.Input.IsTable() {
		return nil
	}
	return m.desc.Input.Columns
}

// readsRows says whether the models read rows (and this build runs them: the dense-only worker reads none).
func (m *Models) readsRows() bool { return !engine.DenseOnly && m.Columns() != nil }

// validateLocks checks p.Lock against the models: no lock for an image model; for a table, every name one of
// its columns, none twice. It returns a *ParamError with a sentence.
func (p Params) validateLocks(m *Models) error {
	names := p.Lock.Names()
	if len(names) == 0 {
		return nil
	}
	cols := m.Columns()
	if engine.DenseOnly || cols == nil { // the dense-only worker reads no rows
		return &ParamError{"lock", p.Lock, "the models read images, which have no columns to lock"}
	}
	seen := map[string]bool{}
	for _, n := range names {
		switch {
		case cols.Index(n) < 0:
			return &ParamError{"lock", p.Lock, fmt.Sprintf("there is no column %q to lock: the columns are %s", n, strings.Join(cols.Names(), ", "))}
		case seen[n]:
			return &ParamError{"lock", p.Lock, fmt.Sprintf("column %q is locked twice", n)}
		}
		seen[n] = true
	}
	return nil
}

// NewRowProblem checks a row in natural units (one value per column, a category its level's index, as
// weights.Columns reads them) against the models' table, flattens it, and encodes and classifies it.
func NewRowProblem(m *Models, row []float64) (*Problem, error) {
	cols := m.Columns()
	if cols == nil {
		return nil, fmt.Errorf("the models read images, not rows")
	}
	if err := cols.CheckRow(row); err != nil {
		return nil, err
	}
	x0, err := cols.Standardise(row)
	if err != nil {
		return nil, err
	}
	p := &Problem{models: m, X0: x0, Row: append([]float64(nil), row...)}
	p.Z0 = m.VAE.Encode(p.X0)
	p.Pred0 = m.BNN.Classify(p.X0)[0]
	p.z0 = make([]float64, len(p.Z0))
	for i, v := range p.Z0 {
		p.z0[i] = float64(v)
	}
	return p, nil
}

// newFlatRowProblem is NewProblem for a model of rows: x0 a flattened row, each category an exact one-hot and
// each integer as Standardise writes it (a number is read back in natural units and flattened again).
func newFlatRowProblem(m *Models, x0 []float32) (*Problem, error) {
	cols := m.Columns()
	row, err := cols.Unstandardise(x0)
	if err != nil {
		return nil, err
	}
	prob, err := NewRowProblem(m, row)
	if err != nil {
		return nil, err
	}
	off := cols.Offsets()
	for i, col := range cols {
		for j := off[i]; j < off[i+1] && col.Kind != weights.ColumnNumber; j++ {
			if math.Float32bits(prob.X0[j]) != math.Float32bits(x0[j]) {
				return nil, fmt.Errorf("column %q: value %d of the flattened row, %v, is not how the table flattens %s", col.Name, j, x0[j], col.Format(row[i]))
			}
		}
	}
	return prob, nil
}

// rowHead is the row head of a search with parameters p (its locks); nil for images.
func (prob *Problem) rowHead(p Params) (*engine.RowHead, error) {
	cols := prob.models.Columns()
	if engine.DenseOnly || cols == nil { // the dense-only worker reads no rows: its code is left out
		return nil, nil
	}
	if err := p.validateLocks(prob.models); err != nil {
		return nil, err
	}
	locked := make([]bool, len(cols))
	for _, n := range p.Lock.Names() {
		locked[cols.Index(n)] = true
	}
	return engine.NewRowHead(cols, prob.Row, locked)
}

// objective builds the search's objective for batches of up to capacity points: through the row head for rows,
// or takes the one an earlier search of the same row and parameters left (idleObjectives). release, called once
// the search is done with it, leaves it for the next.
func (prob *Problem) objective(p Params, capacity int) (obj *engine.Objective, release func(), err error) {
	m := prob.models
	head, err := prob.rowHead(p)
	if err != nil {
		return nil, nil, err
	}
	y0 := prob.Pred0.Probs
	if !weights.RegressionLeftOut && prob.Pred0.Mean != nil { // a regression's λy term: the distance to the input's predictive mean
		y0 = []float32{*prob.Pred0.Mean}
	}
	if engine.DenseOnly || head == nil { // (the dense-only worker reads no rows: the cache's code is left out)
		obj, err = engine.NewObjective(m.VAE, m.BNN, capacity, lossWeights(p), prob.X0, y0)
		return obj, func() {}, err
	}
	key := rowObjectiveKey('o', head, y0, lossWeights(p), capacity)
	if obj = idleObjectives.take(m, key); obj == nil {
		if obj, err = engine.NewRowObjective(m.VAE, m.BNN, capacity, lossWeights(p), head, y0); err != nil {
			return nil, nil, err
		}
	}
	return obj, func() { idleObjectives.put(m, key, obj) }, nil
}

// decode adds the decoder to g as the search sees it: the image, or the row head's valid row.
func (prob *Problem) decode(g *engine.Graph, z *engine.Tensor, p Params) (*engine.Tensor, error) {
	head, err := prob.rowHead(p)
	if err != nil {
		return nil, err
	}
	if head == nil {
		_, img := prob.models.VAE.Decode(g, z)
		return img, nil
	}
	_, row := prob.models.VAE.DecodeRow(g, z, head)
	return row, nil
}

// changedColumns names, in order, the columns whose flattened values in x differ from x0's (bit for bit); nil
// for images.
func (prob *Problem) changedColumns(x []float32) []string {
	cols := prob.models.Columns()
	if engine.DenseOnly || cols == nil {
		return nil
	}
	var out []string
	for _, i := range prob.changedIndices(x, cols.Offsets()) {
		out = append(out, cols[i].Name)
	}
	return out
}

// changedIndices lists, in order, the columns (their flattened values between off[i] and off[i+1]) whose values in
// x differ from x0's, bit for bit.
func (prob *Problem) changedIndices(x []float32, off []int) []int {
	var out []int
	for i := range len(off) - 1 {
		if !sameBits(x[off[i]:off[i+1]], prob.X0[off[i]:off[i+1]]) {
			out = append(out, i)
		}
	}
	return out
}

// sameBits says whether a and b hold the same bits.
func sameBits(a, b []float32) bool {
	for i, v := range a {
		if math.Float32bits(v) != math.Float32bits(b[i]) {
			return false
		}
	}
	return len(a) == len(b)
}

// ExplanationRow is an explanation's row in natural units: its flattened row x read back
// (weights.Columns.Unstandardise), with x0's own value in every column x does not change (a number read back from
// float32 is x0's only to float32's precision, and "changed" is decided bit for bit on the flattened row) and
// every number held inside its range (read back, a value the row head clamped to an end can pass it by a hair).
func (prob *Problem) ExplanationRow(x []float32) ([]float64, error) {
	cols := prob.models.Columns()
	if engine.DenseOnly || cols == nil || prob.Row == nil { // (the dense-only worker reads no rows: its code is left out)
		return nil, fmt.Errorf("the models read images, not rows")
	}
	row, err := cols.Unstandardise(x)
	if err != nil {
		return nil, err
	}
	off := cols.Offsets()
	for i, col := range cols {
		same := true
		for j := off[i]; j < off[i+1]; j++ {
			same = same && math.Float32bits(x[j]) == math.Float32bits(prob.X0[j])
		}
		switch {
		case same:
			row[i] = prob.Row[i]
		case col.Kind != weights.ColumnCategory:
			row[i] = min(max(row[i], col.Range[0]), col.Range[1])
		}
	}
	return row, nil
}
