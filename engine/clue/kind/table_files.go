package kind

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"strconv"
	"strings"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/glam"
	"github.com/deltaclue/deltaclue/weights"
)

// A set of explanations of a row as files, as `deltaclue explain` writes them and the page downloads them:
// explain.json with each row as {column: value}, set.csv with the columns by name.

// RowJSON is a row as explain.json writes it: {column: value} in the columns' order, a number as a JSON number
// and a category as its level's name (weights.Columns.FromMap reads it back).
type RowJSON struct {
	Columns weights.Columns
	Row     []float64
}

func (r RowJSON) MarshalJSON() ([]byte, error) {
	if r.Row == nil {
		return []byte("null"), nil
	}
	return r.Columns.RowJSON(r.Row)
}

// RowExplanation is an explanation of a row as explain.json writes it: the engine's (with its flattened row as
// image, and changed) and its row in natural units; a failed one has none (null).
type RowExplanation struct {
	clue.Explanation
	Row RowJSON `json:"row"`
}

// RowExplainFile is explain.json for a model of rows: the input's row first, then what it holds for images
// (x0 and each explanation's image are the flattened rows the networks read), each explanation with its row.
type RowExplainFile struct {
	Row RowJSON `json:"row"`
	glam.ExplainFile
	Explanations []RowExplanation `json:"explanations"`
}

// RowReader reads an explanation's flattened row back in natural units: clue.Problem.ExplanationRow (x0's own
// values in the columns it keeps), or nil for weights.Columns.Unstandardise (what a page without the problem has;
// the same for whole numbers and categories).
type RowReader func(x []float32) ([]float64, error)

func (t Table) reader(read RowReader) RowReader {
	if read == nil {
		return t.Columns.Unstandardise
	}
	return read
}

// Rows reads every explanation's row back in natural units (nil for a failed one).
func (t Table) Rows(read RowReader, exps []clue.Explanation) ([][]float64, error) {
	cols, read := t.Columns, t.reader(read)
	rows := make([][]float64, len(exps))
	for i, e := range exps {
		if e.Failed != "" || len(e.Image) != cols.Width() {
			continue
		}
		r, err := read(e.Image)
		if err != nil {
			return nil, fmt.Errorf("restart %d: %w", e.Restart, err)
		}
		rows[i] = r
	}
	return rows, nil
}

// ExplainFile is explain.json's content for a row: f with the input's row and each explanation's (rows, as Rows
// gives them).
func (t Table) ExplainFile(row0 []float64, f glam.ExplainFile, rows [][]float64) RowExplainFile {
	out := RowExplainFile{Row: RowJSON{t.Columns, row0}, ExplainFile: f, Explanations: make([]RowExplanation, len(f.Explanations))}
	for i, e := range f.Explanations {
		out.Explanations[i] = RowExplanation{Explanation: e, Row: RowJSON{t.Columns, rows[i]}}
	}
	return out
}

// WithRows gives each explanation its row in natural units (none for a failed one).
func (t Table) WithRows(read RowReader, exps []clue.Explanation) []RowExplanation {
	read = t.reader(read)
	out := make([]RowExplanation, len(exps))
	for i, e := range exps {
		out[i].Explanation = e
		out[i].Row.Columns = t.Columns
		if e.Failed == "" && len(e.Image) == t.Columns.Width() {
			out[i].Row.Row, _ = read(e.Image)
		}
	}
	return out
}

// SetCSV is set.csv for a model of rows: one line per restart in restart order, with its label and class,
// whether it was accepted and converged, why it failed, H (total, aleatoric, epistemic), d, ρ, whether it lies on
// the shell, its cost and steps, how many columns it changes and which (names joined by commas), then its row by
// column name (empty for a failed restart). Floats are written as set.csv writes them for images.
func (t Table) SetCSV(classes []string, exps []clue.Explanation, rows [][]float64) []byte {
	cols := t.Columns
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	head := []string{"restart", "label", "class", "accepted", "converged", "failed", "h_total", "h_aleatoric", "h_epistemic",
		"distance", "rho", "on_shell", "cost", "steps", "changed", "changed_columns"}
	w.Write(append(head, cols.Names()...))
	f := func(v float32) string { return strconv.FormatFloat(float64(v), 'g', -1, 32) }
	order := make([]int, len(exps))
	for i := range order {
		order[i] = i
	}
	sortByRestart(order, exps)
	for _, i := range order {
		x := exps[i]
		class := ""
		if x.Label >= 0 && x.Label < len(classes) {
			class = classes[x.Label]
		}
		rec := []string{strconv.Itoa(x.Restart), strconv.Itoa(x.Label), class, strconv.FormatBool(x.Accepted), strconv.FormatBool(x.Converged),
			x.Failed, f(x.HTotal), f(x.HAleatoric), f(x.HEpistemic), f(x.Distance), f(x.Rho), strconv.FormatBool(x.OnShell),
			f(x.Cost), strconv.Itoa(x.Steps), strconv.Itoa(len(x.Changed)), strings.Join(x.Changed, ",")}
		if rows[i] != nil {
			rec = append(rec, cols.CSVRecord(rows[i], "")...)
		} else {
			rec = append(rec, make([]string, len(cols))...)
		}
		w.Write(rec)
	}
	w.Flush()
	return b.Bytes()
}

// sortByRestart orders the indices of exps by restart (insertion sort: a set is small and mostly in order).
func sortByRestart(order []int, exps []clue.Explanation) {
	for i := 1; i < len(order); i++ {
		for j := i; j > 0 && exps[order[j]].Restart < exps[order[j-1]].Restart; j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
}
