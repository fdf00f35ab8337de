package kind

import (
	"fmt"
	"strings"

	"github.com/deltaclue/deltaclue/engine"
	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/raster"
	"github.com/deltaclue/deltaclue/internal/plural"
	"github.com/deltaclue/deltaclue/weights"
)

// Table is the kind of a table's rows (issue 41): the networks read a row flattened (weights.Columns: each number
// standardised, each category one-hot); a link carries it column by column, exactly; a figure draws it as its
// fields in words, and a change as the fields it changes.
type Table struct{ Columns weights.Columns }

// TableOf is the kind of a description's rows.
func TableOf(in weights.Input) Table { return Table{in.Columns} }

// CarriedSize, Carry, Carried and Check are the table's (weights.CarryRow): a link carries a row column by
// column, exactly.
func (t Table) CarriedSize() int          { return weights.CarriedRowSize(t.Columns) }
func (t Table) Carry(x []float32) []uint8 { return weights.CarryRow(t.Columns, x) }
func (t Table) Check(q []uint8) error     { _, err := weights.CarriedRow(t.Columns, q); return err }

// Carried is the flattened row a link's bytes give, or nil when they are not a row of this table (Check says
// why).
func (t Table) Carried(q []uint8) []float32 {
	x, err := weights.CarriedRow(t.Columns, q)
	if err != nil {
		return nil
	}
	return x
}

// Row is the flattened x in natural units (weights.Columns.Unstandardise), nil when it is not this table's.
func (t Table) Row(x []float32) []float64 {
	row, err := t.Columns.Unstandardise(x)
	if err != nil {
		return nil
	}
	return row
}

// Value writes column i's value of row as a person reads it: a category's level, a whole number as it is, a
// number to four significant figures (float32 keeps about seven).
func (t Table) Value(i int, v float64) string {
	col := t.Columns[i]
	if col.Kind == weights.ColumnNumber {
		return trimNumber(fmt.Sprintf("%.4g", v))
	}
	return col.Format(v)
}

// trimNumber leaves %g's exponent form to large numbers only ("1.5e+04" → "15000").
func trimNumber(s string) string {
	if !strings.Contains(s, "e+") {
		return s
	}
	var v float64
	fmt.Sscan(s, &v)
	return fmt.Sprintf("%.0f", v)
}

// WithUnit is Value with the column's unit: "9 years".
func (t Table) WithUnit(i int, v float64) string {
	if u := t.Columns[i].Unit; u != "" && t.Columns[i].Kind != weights.ColumnCategory {
		return t.Value(i, v) + " " + u
	}
	return t.Value(i, v)
}

// Change is how column i changes from a to b: Up or Down for a number, Other for a category, None when equal.
type Change int

// The ways a column changes.
const (
	None Change = iota
	Up
	Down
	Other
)

// ChangeOf is how column i changes from a to b.
func (t Table) ChangeOf(i int, a, b float64) Change {
	switch {
	case a == b:
		return None
	case t.Columns[i].Kind == weights.ColumnCategory:
		return Other
	case b > a:
		return Up
	}
	return Down
}

// Said is how column i's change from a to b reads in a sentence: "Debt fell from 800 to 0", "Seniority rose from 2
// to 5 years", "Home were rent rather than owner".
func (t Table) Said(i int, a, b float64) string {
	col := t.Columns[i]
	switch t.ChangeOf(i, a, b) {
	case Other:
		return fmt.Sprintf("%s were %s rather than %s", col.Name, t.Value(i, b), t.Value(i, a))
	case Up:
		return fmt.Sprintf("%s rose from %s to %s", col.Name, t.Value(i, a), t.WithUnit(i, b))
	case Down:
		return fmt.Sprintf("%s fell from %s to %s", col.Name, t.Value(i, a), t.WithUnit(i, b))
	}
	return col.Name + " stayed " + t.WithUnit(i, a)
}

// InWords says how row differs from row0, column by column in order: "Debt fell from 800 to 0 and Records were
// yes rather than no"; "nothing changed" when it does not.
func (t Table) InWords(row0, row []float64) string {
	var parts []string
	for i := range t.Columns {
		if row[i] != row0[i] {
			parts = append(parts, t.Said(i, row0[i], row[i]))
		}
	}
	if len(parts) == 0 {
		return "nothing changed"
	}
	return plural.List(parts)
}

// Arrows writes the changed columns of row against row0 briefly: "Debt 800 → 0, Records no → yes".
func (t Table) Arrows(row0, row []float64) string {
	var parts []string
	for i, col := range t.Columns {
		if row[i] != row0[i] {
			parts = append(parts, fmt.Sprintf("%s %s → %s", col.Name, t.Value(i, row0[i]), t.Value(i, row[i])))
		}
	}
	if len(parts) == 0 {
		return "no change"
	}
	return strings.Join(parts, ", ")
}

// Describe says the set of explanations of row x0 in words, as clue.Words.Describe says an image's, with each
// label's cheapest explanation told as the changes it makes: "The model is unsure whether this applicant is
// good (p 0.55, H 0.69 nats). It would be sure of good if Debt fell from 800 to 0 (31 of 100 restarts) or of
// bad if Records were yes rather than no (12 of 100 restarts)."
func (t Table) Describe(w clue.Words, x0 []float32, pred0 engine.Uncertainty, exps []clue.Explanation, s clue.Summary, p clue.Params) string {
	row0 := t.Row(x0)
	label0 := pred0.Label()
	if row0 == nil || label0 < 0 || label0 >= len(pred0.Probs) {
		return w.Describe(pred0, exps, s, p)
	}
	noun := w.Noun
	var b strings.Builder
	if !weights.RegressionLeftOut && w.Regression != nil && pred0.Mean != nil {
		return t.describeRegression(w, row0, pred0, exps, s, p)
	}
	if float64(pred0.Total) < p.HThreshold {
		fmt.Fprintf(&b, "The model is already sure this %s is %s (p %.2f, H %.2f nats, below the threshold %g), so the explanations change it little.",
			noun, w.Class(label0), pred0.Probs[label0], pred0.Total, p.HThreshold)
	} else {
		fmt.Fprintf(&b, "The model is unsure whether this %s is %s (p %.2f, H %.2f nats).", noun, w.Class(label0), pred0.Probs[label0], pred0.Total)
	}
	if s.Accepted == 0 {
		return b.String() + w.NoneSure(exps, s, p, "a larger δ, a higher threshold or fewer locks")
	}
	labels := clue.SaidLabels(exps, s)
	parts := make([]string, len(labels))
	for i, l := range labels {
		row := t.Row(exps[l.Cheapest].Image)
		if row == nil {
			return w.Describe(pred0, exps, s, p)
		}
		parts[i] = fmt.Sprintf("of %s if %s (%s", w.Class(l.Label), t.InWords(row0, row), plural.Of(s.LabelCounts[l.Label], s.Restarts, "restart"))
		if l.Label < len(s.Modes) && s.Modes[l.Label] > 1 {
			parts[i] += fmt.Sprintf(", in %d forms", s.Modes[l.Label])
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

// A row in a figure: one line a column, in raster's font at scale 1 (6 px a character, lines of tableLine px),
// tableChars characters wide.
const (
	tableChars = 19
	tableLine  = 9
)

// Fit is 1: a row is drawn in text at one size.
func (t Table) Fit(int) int { return 1 }

// Size is a row's block of text: a line a column.
func (t Table) Size(int) (w, h int) { return tableChars * 6, len(t.Columns) * tableLine }

// Draw writes the row's fields, "Name value", a line each.
func (t Table) Draw(img *raster.Image, x0, y0 int, x []float32, _ int) {
	row := t.Row(x)
	if row == nil {
		return
	}
	for i, col := range t.Columns {
		raster.DrawText(img, x0, y0+i*tableLine, clip(col.Name+" "+t.Value(i, row[i])), 1, raster.Black)
	}
}

// DrawDiff writes the fields e changes in orig, "+Debt 0->800" in the added colour for a rise, "-" and the
// removed colour for a fall, "*" (in black) for a category: the sign tells them apart without colour.
func (t Table) DrawDiff(img *raster.Image, x0, y0 int, orig, e []float32, _ int) {
	row0, row := t.Row(orig), t.Row(e)
	if row0 == nil || row == nil {
		return
	}
	line := 0
	for i, col := range t.Columns {
		sign, c := "*", raster.Black
		switch t.ChangeOf(i, row0[i], row[i]) {
		case None:
			continue
		case Up:
			sign, c = "+", raster.AddedColour
		case Down:
			sign, c = "-", raster.RemovedColour
		}
		raster.DrawText(img, x0, y0+line*tableLine, clip(sign+col.Name+" "+t.Value(i, row0[i])+">"+t.Value(i, row[i])), 1, c)
		line++
	}
	if line == 0 {
		raster.DrawText(img, x0, y0, "no change", 1, raster.Grey)
	}
}

// Changes names DrawDiff's colours.
func (Table) Changes() (added, removed string) { return "+ rose", "- fell" }

// clip shortens a figure's line to its width.
func clip(s string) string {
	if r := []rune(s); len(r) > tableChars {
		return string(r[:tableChars-1]) + "…"
	}
	return s
}
