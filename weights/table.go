package weights

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// A table is an input of named columns (issue 41): a credit applicant's age, income, home, … . Its networks read
// the row flattened: each number or integer one value, standardised with its column's mean and std; each category
// a one-hot block of one value per level, not standardised (CLUE's "gauss_cat" scheme). A row in natural units is
// a []float64 of one value per column: a number or integer as it is (an integer whole), a category as its level's
// index.

// The kinds of input.
const (
	KindImage = "image" // the default: Height × Width × Channels
	KindTable = "table" // Columns
)

// The kinds of column.
const (
	ColumnNumber   = "number"
	ColumnInteger  = "integer"
	ColumnCategory = "category"
)

// Whether a column's value may change in an explanation.
const (
	ChangeFree  = "free"  // either way
	ChangeUp    = "up"    // only up (an age)
	ChangeDown  = "down"  // only down
	ChangeNever = "never" // immutable: every explanation keeps the input's value
)

// Bounds on a table, so that a hostile description cannot make a reader allocate much.
const (
	MaxColumns = 1024
	MaxLevels  = 1024
)

// Column is one column of a table.
type Column struct {
	Name string `json:"name"` // 1 to 64 bytes on one line, without "=" or "," (rows are written Name=value,…)
	Kind string `json:"kind"` // ColumnNumber, ColumnInteger or ColumnCategory
	// Levels are a category's values in the order of its one-hot block: at least 2, none twice.
	Levels []string `json:"levels,omitempty"`
	// Unit is what a number or integer counts ("years", "€"): what the page shows beside it; may be empty.
	Unit string `json:"unit,omitempty"`
	// Range is a number's or integer's [min, max], min below max (an integer's whole): by default the training
	// data's. A value outside it is refused, and no explanation leaves it.
	Range [2]float64 `json:"range,omitzero"`
	// Mean and Std standardise a number or integer: the network reads (v − Mean) / Std. Std above 0. A category is
	// one-hot and has neither.
	Mean float64 `json:"mean,omitempty"`
	Std  float64 `json:"std,omitempty"`
	// Change is ChangeFree, ChangeUp, ChangeDown or ChangeNever; a category may change freely or never.
	Change string `json:"change"`
}

// Columns are a table's columns in order: the flattened row holds their blocks one after another.
type Columns []Column

// IsTable says whether the input is a table.
func (in Input) IsTable() bool { return in.Kind == KindTable }

// Width is the number of values of one flattened row: 1 for each number or integer, one per level for each
// category.
func (c Columns) Width() int {
	n := 0
	for _, col := range c {
		n += col.width()
	}
	return n
}

func (col Column) width() int {
	if col.Kind == ColumnCategory {
		return len(col.Levels)
	}
	return 1
}

// Offsets gives each column's slice of the flattened row: column i is [off[i], off[i+1]), and off[len(c)] is
// the width.
func (c Columns) Offsets() []int {
	off := make([]int, len(c)+1)
	for i, col := range c {
		off[i+1] = off[i] + col.width()
	}
	return off
}

// Slice is column i's slice of the flattened row: [start, end).
func (c Columns) Slice(i int) (start, end int) {
	off := c.Offsets()
	return off[i], off[i+1]
}

// Index returns the column named name, or −1.
func (c Columns) Index(name string) int {
	for i, col := range c {
		if col.Name == name {
			return i
		}
	}
	return -1
}

// Names lists the columns' names in order.
func (c Columns) Names() []string {
	names := make([]string, len(c))
	for i, col := range c {
		names[i] = col.Name
	}
	return names
}

// Level returns the index of a category's level, or −1.
func (col Column) Level(name string) int {
	for i, l := range col.Levels {
		if l == name {
			return i
		}
	}
	return -1
}

// Check says, in one sentence naming the column, what makes the columns a table the project cannot read, or nil.
func (c Columns) Check() error {
	if len(c) < 1 || len(c) > MaxColumns {
		return fmt.Errorf("the table has %d columns: 1 to %d", len(c), MaxColumns)
	}
	seen := map[string]bool{}
	width := 0
	for i, col := range c {
		if !validTableName(col.Name) {
			return fmt.Errorf("column %d's name %q must be 1 to 64 bytes on one line, without \"=\", \",\", quotes or spaces at its ends", i, clip(col.Name))
		}
		if seen[col.Name] {
			return fmt.Errorf("column %d's name %q is given twice", i, col.Name)
		}
		seen[col.Name] = true
		if err := col.check(); err != nil {
			return fmt.Errorf("column %q: %w", col.Name, err)
		}
		if width += col.width(); width > MaxInputValues {
			return fmt.Errorf("the table's columns flatten to more than %d values", MaxInputValues)
		}
	}
	return nil
}

// check checks one column's settings.
func (col Column) check() error {
	switch col.Change {
	case ChangeFree, ChangeUp, ChangeDown, ChangeNever:
	default:
		return fmt.Errorf("its change rule %q must be %q, %q, %q or %q", clip(col.Change), ChangeFree, ChangeUp, ChangeDown, ChangeNever)
	}
	if len(col.Unit) > 32 || strings.ContainsAny(col.Unit, "\n\r\t") {
		return fmt.Errorf("its unit %q must be at most 32 bytes on one line", clip(col.Unit))
	}
	switch col.Kind {
	case ColumnCategory:
		switch {
		case len(col.Levels) < 2 || len(col.Levels) > MaxLevels:
			return fmt.Errorf("a category has 2 to %d levels, not %d", MaxLevels, len(col.Levels))
		case col.Unit != "" || col.Range != [2]float64{} || col.Mean != 0 || col.Std != 0:
			return errors.New("a category is one-hot: it has no unit, range, mean or std")
		case col.Change == ChangeUp || col.Change == ChangeDown:
			return fmt.Errorf("a category's levels have no order: it may change %q or %q, not %q", ChangeFree, ChangeNever, col.Change)
		}
		levels := map[string]bool{}
		for j, l := range col.Levels {
			if !validTableName(l) {
				return fmt.Errorf("level %d, %q, must be 1 to 64 bytes on one line, without \"=\", \",\", quotes or spaces at its ends", j, clip(l))
			}
			if levels[l] {
				return fmt.Errorf("level %q is given twice", l)
			}
			levels[l] = true
		}
	case ColumnNumber, ColumnInteger:
		lo, hi := col.Range[0], col.Range[1]
		switch {
		case len(col.Levels) > 0:
			return fmt.Errorf("a %s has no levels (only a category has)", col.Kind)
		case isBad(lo) || isBad(hi):
			return fmt.Errorf("its range %v is not two finite numbers", col.Range)
		case !(lo < hi):
			return fmt.Errorf("its range's min %v must be below its max %v", lo, hi)
		case col.Kind == ColumnInteger && (lo != math.Trunc(lo) || hi != math.Trunc(hi)):
			return fmt.Errorf("an integer's range %v must end in whole numbers", col.Range)
		case isBad(col.Mean):
			return fmt.Errorf("its mean %v is not a finite number", col.Mean)
		case isBad(col.Std) || !(col.Std > 0):
			return fmt.Errorf("its std %v must be a finite number above 0", col.Std)
		}
	default:
		return fmt.Errorf("its kind %q must be %q, %q or %q", clip(col.Kind), ColumnNumber, ColumnInteger, ColumnCategory)
	}
	return nil
}

// validTableName says whether s may name a column or a level: 1 to 64 bytes on one line, without the
// separators of a row string ("=" and ","), quotes, or spaces at its ends (which a reader trims).
func validTableName(s string) bool {
	return s != "" && len(s) <= 64 && !strings.ContainsAny(s, "=,\"\n\r\t") && strings.TrimSpace(s) == s
}

// ValidColumnName says whether s may name a column (as validTableName): a list of names from elsewhere (a
// link's locks) is checked with it before it is looked up.
func ValidColumnName(s string) bool { return validTableName(s) }

// CheckRow says, in one sentence naming the column, why a row in natural units is not one of the table's, or
// nil: one value per column, each finite, in its column's range, an integer whole, a category a level's index.
func (c Columns) CheckRow(row []float64) error {
	if len(row) != len(c) {
		return fmt.Errorf("the row has %d values for %d columns", len(row), len(c))
	}
	for i, v := range row {
		if err := c[i].checkValue(v); err != nil {
			return fmt.Errorf("column %q: %w", c[i].Name, err)
		}
	}
	return nil
}

func (col Column) checkValue(v float64) error {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return fmt.Errorf("%v is not a number", v)
	case col.Kind == ColumnCategory:
		if v != math.Trunc(v) || v < 0 || v >= float64(len(col.Levels)) {
			return fmt.Errorf("%v is not the index of one of its %d levels", v, len(col.Levels))
		}
	case col.Kind == ColumnInteger && v != math.Trunc(v):
		return fmt.Errorf("%v is not a whole number", v)
	case v < col.Range[0] || v > col.Range[1]:
		return fmt.Errorf("%s is outside its range %s", col.Format(v), col.RangeText())
	}
	return nil
}

// RangeText is the column's range as a sentence says it: "18 to 68 years".
func (col Column) RangeText() string {
	s := formatNumber(col.Range[0]) + " to " + formatNumber(col.Range[1])
	if col.Unit != "" {
		s += " " + col.Unit
	}
	return s
}

// Standardise flattens a row in natural units into what the networks read: each number or integer
// (v − Mean) / Std, each category a one-hot block. It refuses a row of the wrong length, a value that is not a
// number, or a category that is not a level's index; a number outside its range is flattened as it is (CheckRow
// refuses it).
func (c Columns) Standardise(row []float64) ([]float32, error) {
	if len(row) != len(c) {
		return nil, fmt.Errorf("the row has %d values for %d columns", len(row), len(c))
	}
	x := make([]float32, c.Width())
	k := 0
	for i, col := range c {
		v := row[i]
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("column %q: %v is not a number", col.Name, v)
		}
		if col.Kind == ColumnCategory {
			if v != math.Trunc(v) || v < 0 || v >= float64(len(col.Levels)) {
				return nil, fmt.Errorf("column %q: %v is not the index of one of its %d levels", col.Name, v, len(col.Levels))
			}
			x[k+int(v)] = 1
			k += len(col.Levels)
			continue
		}
		x[k] = float32((v - col.Mean) / col.Std)
		k++
	}
	return x, nil
}

// Unstandardise is Standardise's inverse: a flattened row back in natural units, each number v·Std + Mean, each
// integer that rounded to a whole number, each category its block's largest value's level (the first of equals).
// Integers and categories come back exactly; numbers to float32's precision.
//
// A number at an end of its range reads back as that end: flattened to float32 it came back a hair off it, even
// outside (a mix with the least water, 121.8 kg/m³, read 121.7999994).
func (c Columns) Unstandardise(x []float32) ([]float64, error) {
	if w := c.Width(); len(x) != w {
		return nil, fmt.Errorf("the flattened row has %d values, the table's columns %d", len(x), w)
	}
	row := make([]float64, len(c))
	k := 0
	for i, col := range c {
		if col.Kind == ColumnCategory {
			best := 0
			for j := 1; j < len(col.Levels); j++ {
				if x[k+j] > x[k+best] {
					best = j
				}
			}
			row[i] = float64(best)
			k += len(col.Levels)
			continue
		}
		v := float64(x[k])*col.Std + col.Mean
		if col.Kind == ColumnInteger {
			v = math.Round(v)
		}
		for _, edge := range col.Range { // an end of the range, flattened to float32, reads back as that end
			if col.Kind == ColumnNumber && float32((edge-col.Mean)/col.Std) == x[k] {
				v = edge
			}
		}
		if v == 0 {
			v = 0 // not −0 (a rounded −0.3): "Debt fell to 0", not "to -0"
		}
		row[i] = v
		k++
	}
	return row, nil
}

// ParseValue reads column i's value from text: a number (an integer whole) inside the column's range, or one of
// a category's levels by name. Spaces at its ends are ignored; an empty value or "NA" is missing.
func (c Columns) ParseValue(i int, s string) (float64, error) {
	col := c[i]
	s = strings.TrimSpace(s)
	if col.Kind == ColumnCategory {
		if j := col.Level(s); j >= 0 {
			return float64(j), nil
		}
	}
	if s == "" || s == "NA" {
		return 0, fmt.Errorf("column %q has no value", col.Name)
	}
	if col.Kind == ColumnCategory {
		return 0, fmt.Errorf("column %q: %q is not one of its levels, %s", col.Name, clip(s), strings.Join(col.Levels, ", "))
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("column %q: %q is not a number", col.Name, clip(s))
	}
	if err := col.checkValue(v); err != nil {
		return 0, fmt.Errorf("column %q: %w", col.Name, err)
	}
	return v, nil
}

// Format writes a value of the column as text: a number as Go's shortest form, a category as its level's name
// (ParseValue reads it back).
func (col Column) Format(v float64) string {
	if col.Kind == ColumnCategory && v == math.Trunc(v) && v >= 0 && v < float64(len(col.Levels)) {
		return col.Levels[int(v)]
	}
	return formatNumber(v)
}

func formatNumber(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// FormatRow writes a row as "Name=value,…", every column in order (ParseRow reads it back).
func (c Columns) FormatRow(row []float64) string {
	var b strings.Builder
	for i, col := range c {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(col.Name + "=" + col.Format(row[i]))
	}
	return b.String()
}

// ParseRow reads a row from "Name=value,Name=value,…" (the command line's -row): every column once, in any order.
func (c Columns) ParseRow(s string) ([]float64, error) {
	m := map[string]string{}
	var order []string
	for _, part := range strings.Split(s, ",") {
		name, value, ok := strings.Cut(part, "=")
		name = strings.TrimSpace(name)
		if !ok {
			return nil, fmt.Errorf("%q is not Name=value", clip(strings.TrimSpace(part)))
		}
		if _, dup := m[name]; dup {
			return nil, fmt.Errorf("column %q is given twice", clip(name))
		}
		m[name] = value
		order = append(order, name)
	}
	return c.fromStrings(m, order)
}

// FromMap reads a row from {column: value}, as JSON gives it: a number as a number (or its text), a category as
// its level's name. Every column must be given, and nothing else.
func (c Columns) FromMap(values map[string]any) ([]float64, error) {
	m := make(map[string]string, len(values))
	for name, v := range values {
		switch v := v.(type) {
		case string:
			m[name] = v
		case float64:
			if i := c.Index(name); i >= 0 && c[i].Kind == ColumnCategory {
				return nil, fmt.Errorf("column %q is a category: give its level's name, one of %s", name, strings.Join(c[i].Levels, ", "))
			}
			m[name] = formatNumber(v)
		case json.Number:
			m[name] = v.String()
		default:
			return nil, fmt.Errorf("column %q: %v is neither a number nor a level's name", clip(name), v)
		}
	}
	return c.fromStrings(m, nil)
}

// ToMap writes a row as {column: value}: a number as a float64, a category as its level's name.
func (c Columns) ToMap(row []float64) map[string]any {
	m := make(map[string]any, len(c))
	for i, col := range c {
		if col.Kind == ColumnCategory {
			m[col.Name] = col.Format(row[i])
		} else {
			m[col.Name] = row[i]
		}
	}
	return m
}

// fromStrings parses every column's value from m, refusing a missing or an unknown column; order, if given, is
// the order the names came in (so that the first unknown one is named).
func (c Columns) fromStrings(m map[string]string, order []string) ([]float64, error) {
	if order == nil {
		for name := range m {
			order = append(order, name)
		}
		slices.Sort(order)
	}
	for _, name := range order {
		if c.Index(name) < 0 {
			return nil, fmt.Errorf("there is no column %q: the columns are %s", clip(name), strings.Join(c.Names(), ", "))
		}
	}
	row := make([]float64, len(c))
	for i, col := range c {
		s, ok := m[col.Name]
		if !ok {
			return nil, fmt.Errorf("column %q is missing", col.Name)
		}
		v, err := c.ParseValue(i, s)
		if err != nil {
			return nil, err
		}
		row[i] = v
	}
	return row, nil
}

// RowJSON writes a row as a JSON object {column: value} in the columns' order (a map's JSON would sort the
// names): a number as a JSON number and a category as its level's name, what FromMap reads back.
func (c Columns) RowJSON(row []float64) ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, col := range c {
		if i > 0 {
			b.WriteByte(',')
		}
		name, _ := json.Marshal(col.Name)
		b.Write(name)
		b.WriteByte(':')
		var v []byte
		var err error
		if col.Kind == ColumnCategory {
			v, err = json.Marshal(col.Format(row[i]))
		} else {
			v, err = json.Marshal(row[i])
		}
		if err != nil {
			return nil, fmt.Errorf("column %q: %v", col.Name, err)
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// MaxCSVRows bounds the rows ReadCSV reads.
const MaxCSVRows = 1 << 20

// ReadCSV reads rows from a CSV file with a header: every column once by name, in any order, and, if label is
// not empty, optionally the class column of that name (its values among classes; labels is nil when the file
// has none). Any other column, a missing one, or a value ParseValue refuses is refused in one sentence naming
// the line.
func (c Columns) ReadCSV(r io.Reader, label string, classes []string) (rows [][]float64, labels []int, err error) {
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	cr.FieldsPerRecord = -1 // counted here, to say it in a sentence
	header, err := cr.Read()
	if err == io.EOF {
		return nil, nil, errors.New("the CSV file is empty: it needs a header naming the columns")
	}
	if err != nil {
		return nil, nil, fmt.Errorf("the CSV file's header: %v", err)
	}
	col := make([]int, len(header)) // header position → column index; −2 the label
	have := make([]bool, len(c))
	labelAt := -1
	for j, name := range header {
		name = strings.TrimSpace(strings.TrimPrefix(name, "\ufeff"))
		switch i := c.Index(name); {
		case label != "" && name == label:
			if labelAt >= 0 {
				return nil, nil, fmt.Errorf("the CSV file's header names the class column %q twice", label)
			}
			labelAt, col[j] = j, -2
		case i < 0:
			return nil, nil, fmt.Errorf("the CSV file has a column %q the model does not read: its columns are %s", clip(name), strings.Join(c.Names(), ", "))
		case have[i]:
			return nil, nil, fmt.Errorf("the CSV file's header names column %q twice", name)
		default:
			have[i], col[j] = true, i
		}
	}
	for i, ok := range have {
		if !ok {
			return nil, nil, fmt.Errorf("the CSV file has no column %q", c[i].Name)
		}
	}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("the CSV file: %v", err) // a csv.ParseError names its line
		}
		line, _ := cr.FieldPos(0)
		if len(rec) != len(header) {
			return nil, nil, fmt.Errorf("the CSV file, line %d: it has %d values, its header %d", line, len(rec), len(header))
		}
		if len(rows) == MaxCSVRows {
			return nil, nil, fmt.Errorf("the CSV file has more than %d rows", MaxCSVRows)
		}
		row := make([]float64, len(c))
		for j, s := range rec {
			if col[j] == -2 {
				k := -1
				for ci, name := range classes {
					if name == strings.TrimSpace(s) {
						k = ci
					}
				}
				if k < 0 {
					return nil, nil, fmt.Errorf("the CSV file, line %d: the class %q is not one of %s", line, clip(s), strings.Join(classes, ", "))
				}
				labels = append(labels, k)
				continue
			}
			v, err := c.ParseValue(col[j], s)
			if err != nil {
				return nil, nil, fmt.Errorf("the CSV file, line %d: %w", line, err)
			}
			row[col[j]] = v
		}
		rows = append(rows, row)
	}
	return rows, labels, nil
}

// CSVRecord writes a row as a CSV record in the columns' order (with its class's name after, if class is not
// empty): what ReadCSV reads back.
func (c Columns) CSVRecord(row []float64, class string) []string {
	rec := make([]string, 0, len(c)+1)
	for i, col := range c {
		rec = append(rec, col.Format(row[i]))
	}
	if class != "" {
		rec = append(rec, class)
	}
	return rec
}

// checkTable checks a table's input: its columns, and none of an image's settings.
func (d *Description) checkTable() error {
	in := d.Input
	if in.Height != 0 || in.Width != 0 || in.Channels != 0 || in.Range != [2]float64{} || in.Drawing != "" || in.Framing != "" {
		return errors.New("a table's input has no height, width, channels, range, drawing or framing: its columns say what it is")
	}
	return in.Columns.Check()
}

// checkTableWidth says, in a sentence, that a network reads the table's input with a dense layer of another
// width than the flattened row's (Graph would say it too, but of a tensor, not of the columns).
func (d *Description) checkTableWidth(files map[string]*File) error {
	if TablesLeftOut || !d.Input.IsTable() || files == nil {
		return nil
	}
	width := d.Input.Columns.Width()
	check := func(where string, n Network) error {
		f := files[n.File]
		if f == nil {
			return nil // Graph says so
		}
		for i, l := range n.Layers {
			reads := i == 0 && len(l.Inputs) == 0
			for _, name := range l.Inputs {
				reads = reads || name == InputName
			}
			if !reads || l.Op != OpDense {
				continue
			}
			for _, t := range f.Manifest.Tensors {
				if t.Name == l.Weights && len(t.Shape) == 2 && t.Shape[0] != width {
					return fmt.Errorf("%s, layer %d (dense) reads %d values (tensor %q is %v), but the table's %d columns flatten to %d",
						where, i, t.Shape[0], clip(l.Weights), t.Shape, len(d.Input.Columns), width)
				}
			}
		}
		return nil
	}
	for i, n := range d.Classifier.Networks {
		if err := check(d.Classifier.NetworkName(i), n); err != nil {
			return err
		}
	}
	if err := check("the VAE's encoder", d.VAE.Encoder); err != nil {
		return err
	}
	if d.VAE.LogVariance != nil {
		return check("the VAE's log-variance", *d.VAE.LogVariance)
	}
	return nil
}

// NoTargetColumnError is SplitTargetColumn's error for a file without the target's column.
type NoTargetColumnError struct {
	Column string
	Header []string // the file's columns
}

func (e *NoTargetColumnError) Error() string {
	return fmt.Sprintf("it has no target column %q: its columns are %s", e.Column, strings.Join(e.Header, ", "))
}

// SplitTargetColumn takes a regression's target column out of a CSV file with a header: each row's target (a
// finite number) and the file without the column, for Columns.ReadCSV. Its errors are a sentence naming the line.
func SplitTargetColumn(b []byte, column string) (rest []byte, targets []float64, err error) {
	r := csv.NewReader(bytes.NewReader(b))
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err != nil {
		return nil, nil, fmt.Errorf("the CSV file's header: %v", err)
	}
	at := -1
	for j, h := range header {
		if strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")) == column {
			at = j
		}
	}
	if at < 0 {
		return nil, nil, &NoTargetColumnError{Column: column, Header: slices.Clone(header)}
	}
	var out bytes.Buffer
	w := csv.NewWriter(&out)
	without := func(rec []string) []string { return append(slices.Clone(rec[:at]), rec[min(at+1, len(rec)):]...) }
	if err := w.Write(without(header)); err != nil {
		return nil, nil, err
	}
	for line := 2; ; line++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		if at >= len(rec) {
			return nil, nil, fmt.Errorf("line %d has no value in the target column %q", line, column)
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(rec[at]), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, nil, fmt.Errorf("line %d: the target column %q holds %q, not a finite number", line, column, clip(rec[at]))
		}
		targets = append(targets, v)
		if err := w.Write(without(rec)); err != nil {
			return nil, nil, err
		}
	}
	w.Flush()
	return out.Bytes(), targets, w.Error()
}
