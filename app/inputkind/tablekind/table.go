// Package tablekind is the page's kind of input for a model of rows (issue 41; package inputkind): an applicant
// entered in a form (a field per column, with its unit and range, and a lock), or picked among the test rows the
// model is least sure of; a row shown as its fields, and an explanation as the fields it changes, up and down
// told apart by an arrow and a word as well as a colour. The form's state is plain Go (form.go), tested natively.
package tablekind

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/app/hostmsg"
	"github.com/deltaclue/deltaclue/app/inputkind"
	"github.com/deltaclue/deltaclue/engine"
	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/kind"
	"github.com/deltaclue/deltaclue/engine/clue/raster"
	"github.com/deltaclue/deltaclue/internal/plural"
	"github.com/deltaclue/deltaclue/weights"
)

// Models is what the kind needs to know of the served models.
type Models struct {
	Columns weights.Columns
	inputkind.Served
}

// Table is the rows' kind: the form and the gallery, and the elements that show rows.
type Table struct {
	t       kind.Table
	m       Models
	form    Form
	gallery galleryState
}

var _ inputkind.Kind = (*Table)(nil)

// New is the kind for the rows of models m.
func New(m Models) *Table {
	addStyle()
	return &Table{t: kind.Table{Columns: m.Columns}, m: m, form: NewForm(m.Columns)}
}

// Carry, Carried, Check and Describe are kind.Table's: a row is carried column by column, exactly, and a set is
// said as the changes its explanations make.
func (k *Table) Carry(x []float32) []uint8   { return k.t.Carry(x) }
func (k *Table) Carried(q []uint8) []float32 { return k.t.Carried(q) }
func (k *Table) Check(q []uint8) error       { return k.t.Check(q) }
func (k *Table) Describe(w clue.Words, x0 []float32, pred0 engine.Uncertainty, exps []clue.Explanation, s clue.Summary, p clue.Params) string {
	return k.t.Describe(w, x0, pred0, exps, s, p)
}

// Fit, Size, Draw, DrawDiff and Changes draw rows in the PNG figures (kind.Table's).
func (k *Table) Fit(side int) int          { return k.t.Fit(side) }
func (k *Table) Size(scale int) (w, h int) { return k.t.Size(scale) }
func (k *Table) Draw(img *raster.Image, x0, y0 int, x []float32, scale int) {
	k.t.Draw(img, x0, y0, x, scale)
}
func (k *Table) DrawDiff(img *raster.Image, x0, y0 int, orig, e []float32, scale int) {
	k.t.DrawDiff(img, x0, y0, orig, e, scale)
}
func (k *Table) Changes() (added, removed string) { return k.t.Changes() }

func (k *Table) nouns() string { return plural.Word(2, k.m.Noun) }
func (k *Table) aNoun() string { return plural.A(k.m.Noun) }

// Tabs are the form and the gallery (when the site has one).
func (k *Table) Tabs() []inputkind.Tab {
	ts := []inputkind.Tab{{ID: "form", Label: "Fill in"}}
	if k.m.Gallery != "" {
		ts = append(ts, inputkind.Tab{ID: "gallery", Label: "Uncertain " + k.nouns()})
	}
	return ts
}

// Open loads the gallery when its tab is opened.
func (k *Table) Open(ctx app.Context, tab string) {
	if tab == "gallery" {
		k.loadGallery(ctx)
	}
}

// Entry is the form and the gallery, the open one shown.
func (k *Table) Entry(host inputkind.Host, open string) []app.UI {
	return []app.UI{
		k.formPanel(host, open == "form"),
		app.Div().Class("tab-panel gallery rows").Hidden(open != "gallery").Body(
			app.If(open == "gallery", func() app.UI { return k.galleryList(host) }),
		),
	}
}

// entryState is what the entry shows beyond the input.
type entryState struct {
	Values, Errs string // the form's, joined
	Locks        clue.ColumnList
	Gallery      int
	GalleryErr   string
}

// EntryState is the form's values and errors, the locks and the gallery's items.
func (k *Table) EntryState() any {
	return entryState{Values: strings.Join(k.form.Values, "\x00"), Errs: strings.Join(k.form.Errs, "\x00"),
		Gallery: len(k.gallery.items), GalleryErr: k.gallery.err}
}

// Show puts a row into the form, where it can be seen and edited.
func (k *Table) Show(x []float32) string {
	if row := k.t.Row(x); row != nil {
		k.form.Show(row)
	}
	return "form"
}

// Blank leaves the form as it is: it shows a typical row from the start.
func (k *Table) Blank() {}

// Phrase is the rows' words for the page's phrases.
func (k *Table) Phrase(p inputkind.Phrase) string {
	switch p {
	case inputkind.AnswerHint:
		if k.m.Gallery == "" {
			return "Fill in " + k.aNoun() + ": the answer comes here."
		}
		return "Fill in " + k.aNoun() + ", or pick one of the test " + k.nouns() + " the model is least sure of: the answer comes here."
	case inputkind.ModelHint:
		return "Fill in " + k.aNoun() + " or pick one."
	case inputkind.WhileLoading:
		return "fill in or pick " + k.aNoun()
	case inputkind.ChangeLegend:
		return "▲ rose, in blue; ▼ fell, in orange; ⇄ another category"
	}
	return ""
}

// ReadHost reads deltaclue:open (as hostmsg reads it for every kind) and deltaclue:row with {column: value} for
// these models' rows; any other message for the frame is refused in a sentence naming the two.
func (k *Table) ReadHost(text string) (hostmsg.Message, bool, error) {
	var fields map[string]json.RawMessage
	var typ string
	if len(text) > hostmsg.MaxBytes || json.Unmarshal([]byte(text), &fields) != nil || json.Unmarshal(fields["type"], &typ) != nil ||
		typ == hostmsg.Open || !strings.HasPrefix(typ, "deltaclue:") {
		return hostmsg.Read(text, hostmsg.Shape{Height: 1, Width: 1, Channels: 1}) // a link, too long, or not for the frame
	}
	switch typ {
	case hostmsg.Ready, hostmsg.Done, hostmsg.Error: // the frame's own
		return hostmsg.Message{}, false, nil
	}
	m := hostmsg.Message{Type: typ}
	var err error
	if m.ID, err = hostmsg.ID(fields); err != nil {
		return m, true, err
	}
	if typ != hostmsg.Row {
		return m, true, fmt.Errorf("%q is not a message the frame knows: send %q or %q", typ, hostmsg.Open, hostmsg.Row)
	}
	var values map[string]any
	if json.Unmarshal(fields["row"], &values) != nil || values == nil {
		return m, true, fmt.Errorf(`%s needs "row", an object {column: value} with every column: %s`, hostmsg.Row, strings.Join(k.m.Columns.Names(), ", "))
	}
	row, err := k.m.Columns.FromMap(values)
	if err != nil {
		return m, true, err
	}
	x, err := k.m.Columns.Standardise(row)
	if err != nil {
		return m, true, err
	}
	m.Input = k.t.Carry(x)
	return m, true, nil
}

// formPanel is the form: a field per column (a number with its unit and range, a category's levels), each with
// its lock, and a button that takes the form as it is.
func (k *Table) formPanel(host inputkind.Host, open bool) app.UI {
	cols := k.m.Columns
	var locks []string
	locker, _ := host.(inputkind.Locker)
	if locker != nil {
		locks = locker.Locks().Names()
	}
	fields := make([]app.UI, len(cols))
	for i, col := range cols {
		id := fmt.Sprintf("col-%d", i)
		var input app.UI
		change := func(ctx app.Context, _ app.Event) {
			k.form.Set(i, ctx.JSSrc().Get("value").String())
			k.take(ctx, host)
		}
		if col.Kind == weights.ColumnCategory {
			input = app.Select().ID(id).Aria("describedby", id+"-hint").OnChange(change).Body(
				app.Range(col.Levels).Slice(func(j int) app.UI {
					return app.Option().Value(col.Levels[j]).Text(col.Levels[j]).Selected(col.Levels[j] == k.form.Values[i])
				}))
		} else {
			in := app.Input().ID(id).Type("number").Value(k.form.Values[i]).Aria("describedby", id+"-hint").OnChange(change).
				Attr("min", col.Range[0]).Attr("max", col.Range[1])
			if col.Kind == weights.ColumnInteger {
				in = in.Attr("step", 1)
			} else {
				in = in.Attr("step", "any")
			}
			input = in
		}
		never := col.Change == weights.ChangeNever
		locked := never || slices.Contains(locks, col.Name)
		label := col.Name
		if col.Unit != "" {
			label += " (" + col.Unit + ")"
		}
		fields[i] = app.Div().Class("row-field").Body(
			app.Label().For(id).Text(label),
			input,
			app.Label().Class("check lock").Title("Every explanation keeps "+col.Name+" as it is").Body(
				app.Input().ID(id+"-lock").Type("checkbox").Checked(locked).Disabled(never || locker == nil).Aria("label", "lock "+col.Name).
					OnChange(func(ctx app.Context, _ app.Event) { k.lock(ctx, locker, col.Name, ctx.JSSrc().Get("checked").Bool()) }),
				app.Text(" lock"),
			),
			app.Small().ID(id+"-hint").Class("help").Text(Hint(col)),
			app.If(k.form.Errs[i] != "", func() app.UI { return app.Small().Class("error").Role("alert").Text(k.form.Errs[i]) }),
		)
	}
	return app.Div().Class("tab-panel form").Hidden(!open).Body(
		app.Div().Class("row-fields").Body(fields...),
		app.Div().Class("row pad-tools").Body(
			app.Button().ID("take-row").Text("Use this "+k.m.Noun).OnClick(func(ctx app.Context, _ app.Event) { k.take(ctx, host) }),
			app.Span().Class("hint").Text("A locked field keeps its value in every explanation."),
		),
	)
}

// take makes the form's row the input, or says which field is refused.
func (k *Table) take(ctx app.Context, host inputkind.Host) {
	row, err := k.form.Row()
	if err != nil {
		host.Fault(err.Error() + ".")
		return
	}
	x, err := k.m.Columns.Standardise(row)
	if err != nil {
		host.Fault(err.Error() + ".")
		return
	}
	host.Take(ctx, x, "the form")
}

// lock locks or unlocks a column for the searches to come.
func (k *Table) lock(ctx app.Context, host inputkind.Locker, name string, on bool) {
	var names []string
	for _, n := range host.Locks().Names() {
		if n != name {
			names = append(names, n)
		}
	}
	if on {
		names = append(names, name)
	}
	// In the columns' order, so that a link says the same locks the same way.
	slices.SortFunc(names, func(a, b string) int { return k.m.Columns.Index(a) - k.m.Columns.Index(b) })
	host.SetLocks(ctx, clue.NewColumnList(names...))
}
