package tablekind

import "github.com/maxence-charriere/go-app/v10/pkg/app"

// style is the form's and the rows' look. It ships with the page for rows, which puts it into the document
// once: web/app.css is every first visit's, and a first visit is the default models' page (images).
const style = `
.row-fields{display:grid;grid-template-columns:repeat(auto-fill,minmax(14rem,1fr));gap:.6rem 1rem}
.row-field{display:grid;grid-template-columns:1fr auto;align-items:center;gap:.15rem .5rem}
.row-field>label:first-child{grid-column:1/-1;font-weight:600}
.row-field input[type=number],.row-field select{width:100%;box-sizing:border-box}
.row-field .help,.row-field .error{grid-column:1/-1}
.row-field .lock{white-space:nowrap}
.row-view{min-width:0}
.row-view dl{display:grid;grid-template-columns:auto 1fr;gap:0 .6rem;margin:0;font-size:.85rem;text-align:left}
.row-view dt{color:#4b5563}
.row-view dd{margin:0}
.row-view.thumb dl,.row-view.thumb .row-changes{font-size:.7rem}
.views .row-view dl{font-size:.72rem;gap:0 .35rem}
.views figure{min-width:0}
.views:has(.row-view){flex-direction:column}
.row-view dt,.row-view dd{overflow-wrap:anywhere}
.row-changes{list-style:none;padding:0;margin:0;font-size:.9rem;text-align:left}
.row-changes .up{color:#005a8c}
.row-changes .down{color:#a84a00}
.row-changes .dir,.row-changes .none{color:#4b5563;font-size:.85em}
.gallery.rows{display:flex;flex-direction:column;gap:.3rem}
.row-pick{text-align:left;white-space:normal}
@media (max-width:700px){#cards .row-view:has(>dl){display:none}.row-field input[type=number],.row-field select{font-size:16px}}
`

// addStyle puts style into the document, once.
func addStyle() {
	if app.IsServer {
		return
	}
	doc := app.Window().Get("document")
	if !doc.Call("getElementById", "tablekind-style").IsNull() {
		return
	}
	el := doc.Call("createElement", "style")
	el.Set("id", "tablekind-style")
	el.Set("textContent", style)
	doc.Get("head").Call("appendChild", el)
}
