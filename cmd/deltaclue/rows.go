package main

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/kind"
	"github.com/deltaclue/deltaclue/internal/credit"
	"github.com/deltaclue/deltaclue/internal/dataset"
	"github.com/deltaclue/deltaclue/internal/modelsource"
	"github.com/deltaclue/deltaclue/internal/plural"
	"github.com/deltaclue/deltaclue/weights"
)

// Models of rows (issue 41, part 5): what the command line reads a row from (-index, -row, -csv with -line),
// the locks (-lock), and what explain writes of a row: explain.json with the input's and each explanation's row
// as {column: value}, set.csv with the columns by name, and the set said in words.

// lockFlag is -lock: column names separated by commas, into Params.Lock. Which names a table has is checked with
// the models (clue's ValidateFor).
type lockFlag struct{ l *clue.ColumnList }

func (f lockFlag) String() string {
	if f.l == nil {
		return ""
	}
	return string(*f.l)
}

func (f lockFlag) Set(s string) error {
	if strings.TrimSpace(s) == "" {
		*f.l = ""
		return nil
	}
	var names []string
	for _, n := range strings.Split(s, ",") {
		names = append(names, strings.TrimSpace(n))
	}
	*f.l = clue.NewColumnList(names...)
	return nil
}

// rowInput says what to explain of a model of rows, from -index, -row or -csv and -line, and where it came from.
func rowInput(m *models, cols weights.Columns, index int, rowText, csvPath string, line int) ([]float64, string, error) {
	switch {
	case line != 0 && csvPath == "":
		return nil, "", fmt.Errorf("-line %d: give the CSV file it is a line of with -csv FILE", line)
	case index >= 0:
		items, err := m.test(fmt.Sprintf("-index %d", index))
		if err != nil {
			return nil, "", err
		}
		if index >= items.Len() {
			return nil, "", fmt.Errorf("-index %d: the %q models' test items are 0..%d", index, m.Name(), items.Len()-1)
		}
		var row []float64
		if t, ok := items.(*dataset.Table); ok {
			row = append([]float64(nil), t.Rows[index]...)
		} else if row, err = cols.Unstandardise(items.Float(index, nil)); err != nil {
			return nil, "", err
		}
		return row, fmt.Sprintf("test %s %d (true label %s)", m.noun(), index, m.class(items.Label(index))), nil
	case rowText != "":
		row, err := cols.ParseRow(rowText)
		if err != nil {
			return nil, "", fmt.Errorf("-row: %w", err)
		}
		return row, "the " + m.noun() + " of -row", nil
	case csvPath != "":
		return csvRow(m, cols, csvPath, line)
	}
	return nil, "", fmt.Errorf("say what to explain: -index N (a test %s), -row 'Column=value,…' (every column) or -csv FILE -line K", m.noun())
}

// classColumn is the name of the class column a CSV file of the models' rows may hold besides the columns (the
// credit data's Status), or "" when the models name none.
func classColumn(m *models) string {
	if m.Name() == modelsource.Credit {
		return credit.LabelColumn
	}
	return ""
}

// csvRow reads data line `line` (counted from 1 after the header; 0: the file's only one) of a CSV file whose
// header names every column once (and optionally the class column); only that line's values are read. Each
// refusal is one sentence naming the file, and the line.
func csvRow(m *models, cols weights.Columns, path string, line int) ([]float64, string, error) {
	if line < 0 {
		return nil, "", fmt.Errorf("-line %d: the CSV file's lines of data are counted from 1", line)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, "", err
	}
	classes, label := m.Description().Classes, classColumn(m)
	cr := csv.NewReader(bytes.NewReader(raw))
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err == io.EOF {
		return nil, "", fmt.Errorf("%s is empty: it needs a header naming the columns, then a line per %s", path, m.noun())
	}
	if err != nil {
		return nil, "", fmt.Errorf("%s, its header: %v", path, err)
	}
	// The header is checked as weights.Columns.ReadCSV checks it (missing, unknown or repeated columns), said of
	// this file.
	var hb bytes.Buffer
	w := csv.NewWriter(&hb)
	w.Write(header)
	w.Flush()
	if _, _, err := cols.ReadCSV(&hb, label, classes); err != nil {
		return nil, "", errors.New(strings.Replace(err.Error(), "the CSV file", path, 1))
	}
	var rec []string
	at, n := 0, 0 // the file's line of the chosen record; the records read
	for {
		r, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, "", fmt.Errorf("%s: %v", path, err) // a csv.ParseError names its line
		}
		n++
		if n == line || (line == 0 && n == 1) {
			rec = r
			at, _ = cr.FieldPos(0)
			if line != 0 {
				break
			}
		}
		if n > weights.MaxCSVRows {
			return nil, "", fmt.Errorf("%s has more than %d lines", path, weights.MaxCSVRows)
		}
	}
	switch {
	case n == 0:
		return nil, "", fmt.Errorf("%s has a header but no %s", path, m.noun())
	case line == 0 && n > 1:
		return nil, "", fmt.Errorf("%s has %s: say which with -line K (1..%d)", path, plural.Count(n, m.noun()), n)
	case rec == nil:
		return nil, "", fmt.Errorf("-line %d: %s has %s (lines 1..%d after its header)", line, path, plural.Count(n, m.noun()), n)
	}
	line = max(line, 1)
	where := fmt.Sprintf("%s, %s %d (line %d)", path, m.noun(), line, at)
	if len(rec) != len(header) {
		return nil, "", fmt.Errorf("%s: it has %d values, its header %d", where, len(rec), len(header))
	}
	row := make([]float64, len(cols))
	class := -1
	for j, name := range header {
		name = strings.TrimSpace(strings.TrimPrefix(name, "\ufeff"))
		if label != "" && name == label {
			for k, c := range classes {
				if c == strings.TrimSpace(rec[j]) {
					class = k
				}
			}
			if class < 0 {
				return nil, "", fmt.Errorf("%s: the class %q is not one of %s", where, rec[j], strings.Join(classes, ", "))
			}
			continue
		}
		i := cols.Index(name)
		v, err := cols.ParseValue(i, rec[j])
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", where, err)
		}
		row[i] = v
	}
	if class >= 0 {
		where += " (true label " + m.class(class) + ")"
	}
	return row, where, nil
}

// modeLines are the set's mode cards (clue.ModeCards) in words, one line each: the label (and form), how many
// restarts reached it, and the changes its cheapest explanation makes.
func modeLines(w clue.Words, cols weights.Columns, row0 []float64, exps []clue.Explanation, rows [][]float64, s clue.Summary) []string {
	byRestart := map[int]int{}
	for i, e := range exps {
		byRestart[e.Restart] = i
	}
	var out []string
	for _, c := range clue.ModeCards(exps, s) {
		what := w.Class(c.Label)
		if f := c.FormText(); f != "" {
			what += ", " + f
		}
		i := byRestart[c.Representative]
		unc := w.UncertaintyOf(exps[i].Mean, c.HTotal) // a regression's: what its cheapest predicts
		out = append(out, fmt.Sprintf("  %s: %s (p(y) %.2f); its cheapest: %s (%s, %s, d %.2f)", what,
			plural.Of(c.Count, s.Restarts, "restart"), c.P, kind.Table{Columns: cols}.Arrows(row0, rows[i]), plural.Count(len(exps[i].Changed), "feature"), unc, c.Distance))
	}
	return out
}

// rowSweepFile is sweep.json for a model of rows: the input's row first, then what it holds for images, each
// explanation (of every radius and of every reach) with its row.
type rowSweepFile struct {
	Row kind.RowJSON `json:"row"`
	sweepReport
	Steps   []rowSweepStep `json:"steps"`
	Reaches []rowReach     `json:"reaches"`
}

type rowSweepStep struct {
	Delta        float64               `json:"delta"`
	Summary      clue.Summary          `json:"summary"`
	Explanations []kind.RowExplanation `json:"explanations"`
}

type rowReach struct {
	Label       int                 `json:"label"`
	Delta       float64             `json:"delta"`
	Explanation kind.RowExplanation `json:"explanation"`
}

// rowSweep is sweep.json's content for a row.
func rowSweep(cols weights.Columns, read kind.RowReader, row0 []float64, rep sweepReport) rowSweepFile {
	out := rowSweepFile{Row: kind.RowJSON{Columns: cols, Row: row0}, sweepReport: rep}
	for _, st := range rep.Steps {
		out.Steps = append(out.Steps, rowSweepStep{Delta: st.Delta, Summary: st.Summary, Explanations: kind.Table{Columns: cols}.WithRows(read, st.Explanations)})
	}
	for _, r := range rep.Reaches {
		out.Reaches = append(out.Reaches, rowReach{Label: r.Label, Delta: r.Delta, Explanation: kind.Table{Columns: cols}.WithRows(read, []clue.Explanation{r.Explanation})[0]})
	}
	return out
}

// reachLines say, one line per label the sweep reaches, nearest first, the changes of its cheapest explanation
// at the smallest radius that reaches it.
func reachLines(w clue.Words, cols weights.Columns, read kind.RowReader, row0 []float64, reaches []clue.Reach) []string {
	var out []string
	for _, r := range reaches {
		row, err := read(r.Explanation.Image)
		if err != nil {
			continue
		}
		unc := w.UncertaintyOf(r.Explanation.Mean, r.Explanation.HTotal)
		out = append(out, fmt.Sprintf("  %s at δ = %g: %s (%s, %s, d %.2f)", w.Class(r.Label), r.Delta, kind.Table{Columns: cols}.InWords(row0, row),
			plural.Count(len(r.Explanation.Changed), "feature"), unc, r.Explanation.Distance))
	}
	return out
}
