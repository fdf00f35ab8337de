package main

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/deltaclue/deltaclue/engine"
	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/glam"
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

// rowJSON is a row as explain.json writes it: {column: value} in the columns' order, a number as a JSON number
// and a category as its level's name (weights.Columns.FromMap reads it back).
type rowJSON struct {
	cols weights.Columns
	row  []float64
}

func (r rowJSON) MarshalJSON() ([]byte, error) {
	if r.row == nil {
		return []byte("null"), nil
	}
	return r.cols.RowJSON(r.row)
}

// rowExplanation is an explanation of a row as explain.json writes it: the engine's (with its flattened row as
// image, and changed) and its row in natural units; a failed one has none (null).
type rowExplanation struct {
	clue.Explanation
	Row rowJSON `json:"row"`
}

// rowExplainFile is explain.json for a model of rows: the input's row first, then what it holds for images
// (x0 and each explanation's image are the flattened rows the networks read), each explanation with its row.
type rowExplainFile struct {
	Row rowJSON `json:"row"`
	glam.ExplainFile
	Explanations []rowExplanation `json:"explanations"`
}

// rowReader reads an explanation's flattened row back in natural units: the problem's ExplanationRow (x0's own
// values in the columns it keeps, numbers in range).
type rowReader func(x []float32) ([]float64, error)

// explanationRows reads every explanation's row back in natural units (nil for a failed one).
func explanationRows(cols weights.Columns, read rowReader, exps []clue.Explanation) ([][]float64, error) {
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

// rowFile is explain.json's content for a row.
func rowFile(cols weights.Columns, row0 []float64, f glam.ExplainFile, rows [][]float64) rowExplainFile {
	out := rowExplainFile{Row: rowJSON{cols, row0}, ExplainFile: f, Explanations: make([]rowExplanation, len(f.Explanations))}
	for i, e := range f.Explanations {
		out.Explanations[i] = rowExplanation{Explanation: e, Row: rowJSON{cols, rows[i]}}
	}
	return out
}

// rowSetCSV is set.csv for a model of rows: one line per restart in restart order, with its label and class,
// whether it was accepted and converged, why it failed, H (total, aleatoric, epistemic), d, ρ, whether it lies on
// the shell, its cost and steps, how many columns it changes and which (names joined by commas), then its row by
// column name (empty for a failed restart). Floats are written as set.csv writes them for images.
func rowSetCSV(cols weights.Columns, classes []string, exps []clue.Explanation, rows [][]float64) []byte {
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

// change says in words how one column of a row changes from a to b: "Debt fell from 800 to 0", "Seniority rose
// from 2 to 5 years", "Home were rent rather than owner".
func change(col weights.Column, a, b float64) string {
	if col.Kind == weights.ColumnCategory {
		return fmt.Sprintf("%s were %s rather than %s", col.Name, col.Format(b), col.Format(a))
	}
	verb := "rose"
	if b < a {
		verb = "fell"
	}
	s := fmt.Sprintf("%s %s from %s to %s", col.Name, verb, col.Format(a), col.Format(b))
	if col.Unit != "" {
		s += " " + col.Unit
	}
	return s
}

// changes says in words how row differs from row0, column by column in order: "Debt fell from 800 to 0 and
// Records were yes rather than no"; "nothing changed" when it does not.
func changes(cols weights.Columns, row0, row []float64) string {
	var parts []string
	for i, col := range cols {
		if row[i] != row0[i] {
			parts = append(parts, change(col, row0[i], row[i]))
		}
	}
	if len(parts) == 0 {
		return "nothing changed"
	}
	return plural.List(parts)
}

// arrows writes the changed columns of row against row0 briefly: "Debt 800 → 0, Records no → yes".
func arrows(cols weights.Columns, row0, row []float64) string {
	var parts []string
	for i, col := range cols {
		if row[i] != row0[i] {
			parts = append(parts, fmt.Sprintf("%s %s → %s", col.Name, col.Format(row0[i]), col.Format(row[i])))
		}
	}
	if len(parts) == 0 {
		return "no change"
	}
	return strings.Join(parts, ", ")
}

// describeRow says the set of explanations of a row in words, as clue.Words.Describe says an image's, with each
// label's cheapest explanation told as the changes it makes: "The model is unsure whether this applicant is
// good (p 0.55, H 0.69 nats). It would be sure of good if Debt fell from 800 to 0 (31 of 100 restarts) or of
// bad if Records were yes rather than no (12 of 100 restarts)."
func describeRow(w clue.Words, cols weights.Columns, row0 []float64, pred0 engine.Uncertainty, exps []clue.Explanation, rows [][]float64, s clue.Summary, p clue.Params) string {
	label0 := pred0.Label()
	noun := w.Noun
	var b strings.Builder
	if float64(pred0.Total) < p.HThreshold {
		fmt.Fprintf(&b, "The model is already sure this %s is %s (p %.2f, H %.2f nats, below the threshold %g), so the explanations change it little.",
			noun, w.Class(label0), pred0.Probs[label0], pred0.Total, p.HThreshold)
	} else {
		fmt.Fprintf(&b, "The model is unsure whether this %s is %s (p %.2f, H %.2f nats).", noun, w.Class(label0), pred0.Probs[label0], pred0.Total)
	}
	if s.Accepted == 0 {
		if s.Restarts > 0 && s.Failed == s.Restarts {
			fmt.Fprintf(&b, " Every restart failed (its cost became NaN or infinite): try a smaller learning rate than %g.", p.LearningRate)
		} else if len(exps) > 0 {
			fmt.Fprintf(&b, " Within δ = %g no restart reached %s the model is sure of (H below %g): try a larger δ, a higher threshold or fewer locks.",
				p.Delta, w.AnInput(), p.HThreshold)
		}
		return b.String()
	}
	labels := saidLabels(exps, s)
	parts := make([]string, len(labels))
	for i, l := range labels {
		k := l.cheapest
		parts[i] = fmt.Sprintf("of %s if %s (%s", w.Class(l.label), changes(cols, row0, rows[k]), plural.Of(s.LabelCounts[l.label], s.Restarts, "restart"))
		if l.label < len(s.Modes) && s.Modes[l.label] > 1 {
			parts[i] += fmt.Sprintf(", in %d forms", s.Modes[l.label])
		}
		parts[i] += ")"
	}
	list := parts[0]
	if len(parts) > 1 {
		list = strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
	}
	fmt.Fprintf(&b, " It would be sure %s.", list)
	return b.String()
}

// saidLabel is a label the set reaches and the index of its cheapest accepted explanation (the one its first
// mode card shows and its p(y) comes from).
type saidLabel struct{ label, cheapest int }

// saidLabels are the labels the accepted explanations reach, in the order of the label distribution p(y)
// (highest first), as Describe orders them.
func saidLabels(exps []clue.Explanation, s clue.Summary) []saidLabel {
	cheapest := make([]int, len(s.LabelCounts))
	for c := range cheapest {
		cheapest[c] = -1
	}
	for i, e := range exps {
		if !e.Accepted || e.Mode < 0 || e.Label < 0 || e.Label >= len(cheapest) {
			continue
		}
		if k := cheapest[e.Label]; k < 0 || e.Cost < exps[k].Cost || (e.Cost == exps[k].Cost && e.Restart < exps[k].Restart) {
			cheapest[e.Label] = i
		}
	}
	var out []saidLabel
	for c, k := range cheapest {
		if k >= 0 {
			out = append(out, saidLabel{c, k})
		}
	}
	for i := 1; i < len(out); i++ { // stable, by p(y) descending
		for j := i; j > 0 && s.LabelDistribution[out[j].label] > s.LabelDistribution[out[j-1].label]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
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
		out = append(out, fmt.Sprintf("  %s: %s (p(y) %.2f); its cheapest: %s (%s, H %.2f, d %.2f)", what,
			plural.Of(c.Count, s.Restarts, "restart"), c.P, arrows(cols, row0, rows[i]), plural.Count(len(exps[i].Changed), "feature"), c.HTotal, c.Distance))
	}
	return out
}

// sparsity is the least, mean and most number of columns the accepted explanations change (NaN mean when none
// is accepted).
func sparsity(exps []clue.Explanation) (lo, hi int, mean float64) {
	n, sum := 0, 0
	lo = math.MaxInt
	for _, e := range exps {
		if !e.Accepted {
			continue
		}
		k := len(e.Changed)
		lo, hi, sum, n = min(lo, k), max(hi, k), sum+k, n+1
	}
	if n == 0 {
		return 0, 0, math.NaN()
	}
	return lo, hi, float64(sum) / float64(n)
}

// rowSweepFile is sweep.json for a model of rows: the input's row first, then what it holds for images, each
// explanation (of every radius and of every reach) with its row.
type rowSweepFile struct {
	Row rowJSON `json:"row"`
	sweepReport
	Steps   []rowSweepStep `json:"steps"`
	Reaches []rowReach     `json:"reaches"`
}

type rowSweepStep struct {
	Delta        float64          `json:"delta"`
	Summary      clue.Summary     `json:"summary"`
	Explanations []rowExplanation `json:"explanations"`
}

type rowReach struct {
	Label       int            `json:"label"`
	Delta       float64        `json:"delta"`
	Explanation rowExplanation `json:"explanation"`
}

// withRows gives each explanation its row in natural units (none for a failed one).
func withRows(cols weights.Columns, read rowReader, exps []clue.Explanation) []rowExplanation {
	out := make([]rowExplanation, len(exps))
	for i, e := range exps {
		out[i].Explanation = e
		out[i].Row.cols = cols
		if e.Failed == "" && len(e.Image) == cols.Width() {
			out[i].Row.row, _ = read(e.Image)
		}
	}
	return out
}

// rowSweep is sweep.json's content for a row.
func rowSweep(cols weights.Columns, read rowReader, row0 []float64, rep sweepReport) rowSweepFile {
	out := rowSweepFile{Row: rowJSON{cols, row0}, sweepReport: rep}
	for _, st := range rep.Steps {
		out.Steps = append(out.Steps, rowSweepStep{Delta: st.Delta, Summary: st.Summary, Explanations: withRows(cols, read, st.Explanations)})
	}
	for _, r := range rep.Reaches {
		out.Reaches = append(out.Reaches, rowReach{Label: r.Label, Delta: r.Delta, Explanation: withRows(cols, read, []clue.Explanation{r.Explanation})[0]})
	}
	return out
}

// reachLines say, one line per label the sweep reaches, nearest first, the changes of its cheapest explanation
// at the smallest radius that reaches it.
func reachLines(w clue.Words, cols weights.Columns, read rowReader, row0 []float64, reaches []clue.Reach) []string {
	var out []string
	for _, r := range reaches {
		row, err := read(r.Explanation.Image)
		if err != nil {
			continue
		}
		out = append(out, fmt.Sprintf("  %s at δ = %g: %s (%s, H %.2f, d %.2f)", w.Class(r.Label), r.Delta, changes(cols, row0, row),
			plural.Count(len(r.Explanation.Changed), "feature"), r.Explanation.HTotal, r.Explanation.Distance))
	}
	return out
}
