package tablekind

// Rows shown on the page: a row as its fields (a definition list), an explanation as only the fields it
// changes, each with an arrow and a word for its direction besides its colour; in the grid, the changes in text
// on its canvas.

import (
	"fmt"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/app/inputkind"
	"github.com/deltaclue/deltaclue/engine/clue/figures"
	"github.com/deltaclue/deltaclue/engine/clue/kind"
)

// Placeholder is an element that Fill and FillDiff write a row or a change into.
func (k *Table) Placeholder(id string, s inputkind.Size, label string) app.UI {
	d := app.Div().ID(id).Class("row-view " + sizeClass(s))
	if label != "" {
		d = d.Aria("label", label)
	}
	return d
}

// PlaceholderHTML is Placeholder as HTML.
func (k *Table) PlaceholderHTML(id string, s inputkind.Size, label string) string {
	aria := ""
	if label != "" {
		aria = ` aria-label="` + figures.Escape(label) + `"`
	}
	return fmt.Sprintf(`<div id="%s" class="row-view %s"%s></div>`, id, sizeClass(s), aria)
}

func sizeClass(s inputkind.Size) string {
	switch s {
	case inputkind.Thumb:
		return "thumb"
	case inputkind.Detail:
		return "detail"
	}
	return "card"
}

// Fill writes row x's fields into the element id, unless it shows them already.
func (k *Table) Fill(id string, x []float32, s inputkind.Size) bool {
	row := k.t.Row(x)
	if row == nil {
		return false
	}
	return k.write(id, fmt.Sprintf("row %x", inputkind.Hash(x)), k.RowHTML(row))
}

// FillDiff writes the fields e changes in x0 into the element id, unless it shows them already.
func (k *Table) FillDiff(id string, x0, e []float32, s inputkind.Size) bool {
	row0, row := k.t.Row(x0), k.t.Row(e)
	if row0 == nil || row == nil {
		return false
	}
	return k.write(id, fmt.Sprintf("diff %x %x", inputkind.Hash(x0), inputkind.Hash(e)), k.DiffHTML(row0, row))
}

// write sets an element's HTML unless it shows what key names.
func (k *Table) write(id, key, html string) bool {
	el := app.Window().GetElementByID(id)
	// Skipped only while it still holds what it was given: go-app, updating the element, may empty it and keep
	// the mark (a canvas keeps its pixels; a list does not).
	if el.IsNull() || el.IsUndefined() || (el.Get("deltaclueShows").String() == key && el.Get("childElementCount").Int() > 0) {
		return false
	}
	el.Set("deltaclueShows", key)
	el.Set("innerHTML", html)
	return true
}

// RowHTML is a row as a list of its fields: "Seniority 9 years", each on a line.
func (k *Table) RowHTML(row []float64) string {
	var b strings.Builder
	b.WriteString(`<dl class="row-fields-shown">`)
	for i, col := range k.m.Columns {
		fmt.Fprintf(&b, "<dt>%s</dt><dd>%s</dd>", figures.Escape(col.Name), figures.Escape(k.t.WithUnit(i, row[i])))
	}
	b.WriteString("</dl>")
	return b.String()
}

// direction is how a change reads: its arrow, its word and its class (the colour).
func direction(c kind.Change) (arrow, word, class string) {
	switch c {
	case kind.Up:
		return "▲", "rose", "up"
	case kind.Down:
		return "▼", "fell", "down"
	}
	return "⇄", "now", "other"
}

// DiffHTML is what row changes in row0: a line per changed field, "▲ Seniority 2 → 5 years (rose)", or "no
// change".
func (k *Table) DiffHTML(row0, row []float64) string {
	var b strings.Builder
	b.WriteString(`<ul class="row-changes">`)
	n := 0
	for i, col := range k.m.Columns {
		c := k.t.ChangeOf(i, row0[i], row[i])
		if c == kind.None {
			continue
		}
		arrow, word, class := direction(c)
		fmt.Fprintf(&b, `<li class="%s"><span aria-hidden="true">%s</span> %s %s → %s <span class="dir">(%s)</span></li>`, class, arrow,
			figures.Escape(col.Name), figures.Escape(k.t.Value(i, row0[i])), figures.Escape(k.t.WithUnit(i, row[i])), word)
		n++
	}
	if n == 0 {
		b.WriteString(`<li class="none">no change</li>`)
	}
	b.WriteString("</ul>")
	return b.String()
}

// The grid's cell for a row: up to cellLines changed fields in text.
const (
	cellW, cellLine, cellLines = 132, 14, 3
)

// Cell is a row's size in the grid: a few lines of its changes.
func (k *Table) Cell() (w, h int) { return cellW, cellLines * cellLine }

// DrawCell writes what e changes in x0 on the grid's canvas, a line per changed field ("▲ Debt 0"), the fields
// past the third counted ("+2 more"); faded when it was not accepted.
func (k *Table) DrawCell(c2d app.Value, x, y int, x0, e []float32, faded bool) {
	row0, row := k.t.Row(x0), k.t.Row(e)
	if row0 == nil || row == nil {
		return
	}
	c2d.Set("font", "11px system-ui, sans-serif")
	c2d.Set("textAlign", "left")
	if faded {
		c2d.Set("globalAlpha", 0.45)
	}
	var changed []int
	for i := range k.m.Columns {
		if row[i] != row0[i] {
			changed = append(changed, i)
		}
	}
	shown := changed
	if len(changed) > cellLines {
		shown = changed[:cellLines-1]
	}
	for line, i := range shown {
		arrow, _, class := direction(k.t.ChangeOf(i, row0[i], row[i]))
		c2d.Set("fillStyle", map[string]string{"up": "#0072B2", "down": "#D55E00", "other": "#111"}[class])
		c2d.Call("fillText", clipText(arrow+" "+k.m.Columns[i].Name+" "+k.t.Value(i, row[i]), 22), x, y+(line+1)*cellLine-3)
	}
	c2d.Set("fillStyle", "#555")
	switch {
	case len(changed) == 0:
		c2d.Call("fillText", "no change", x, y+cellLine-3)
	case len(shown) < len(changed):
		c2d.Call("fillText", fmt.Sprintf("+%d more", len(changed)-len(shown)), x, y+cellLines*cellLine-3)
	}
	c2d.Set("globalAlpha", 1)
}

// clipText shortens s to n characters.
func clipText(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
