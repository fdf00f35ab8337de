//go:build !imagesonly

package app

import (
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/app/core"
	"github.com/deltaclue/deltaclue/app/inputkind"
	"github.com/deltaclue/deltaclue/app/inputkind/tablekind"
	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/kind"
	"github.com/deltaclue/deltaclue/weights"
)

const tablesLeftOut = false

// A page for rows has their locks and Sparse among its search's settings.
func init() { core.Fields = append(core.Fields, core.LockField(), core.SparseField()) }

// The page for rows is its kind's Locker.
var _ inputkind.Locker = (*Explainer)(nil)

// Locks are the columns the searches keep (the form's locked columns); SetLocks changes them, for the next
// search and the link.
func (e *Explainer) Locks() clue.ColumnList { return e.settings.Params.Lock }
func (e *Explainer) SetLocks(ctx app.Context, l clue.ColumnList) {
	e.settings.Set("lock", string(l))
	e.updateLink()
	e.publish()
}

// ownModels is the full page description of the models this page is their own of (app.OwnDescription), which
// cmd/site sets (-X): JSON, base64; "" in any other page.
var ownModels string

// ownDescription is r (a stub in the site's list) described in full by ownModels when this page is theirs;
// otherwise r, which the page lists but does not run (chooseModels).
func ownDescription(r pageDescription) (pageDescription, error) {
	if ownModels == "" {
		return r, nil
	}
	var own pageDescription
	b, err := base64.StdEncoding.DecodeString(ownModels)
	if err == nil {
		err = json.Unmarshal(b, &own)
	}
	if err != nil {
		return r, fmt.Errorf("this page's own description of its models: %v", err)
	}
	if own.Name != r.Name || own.Dir != r.Dir {
		return r, nil
	}
	return own, nil
}

// tableKind is the kind of the models' rows (the table's form and gallery).
func (m *pageModel) tableKind(gallery string) inputkind.Kind {
	return tablekind.New(tablekind.Models{Columns: m.Columns, Served: m.servedTo(gallery)})
}

// checkTable is what the page relies on of a table's description: columns it can read a row of.
func checkTable(in weights.Input) error {
	if err := in.Columns.Check(); err != nil {
		return fmt.Errorf("its table: %v", err)
	}
	return nil
}

// rowDownload is explain.json or set.csv (what) of a set of rows, each row by its columns' names, as `deltaclue
// explain` writes them; ok is false for images.
func (e *Explainer) rowDownload(what string) (b []byte, ok bool) {
	m := served()
	if !m.IsTable() {
		return nil, false
	}
	t := kind.Table{Columns: m.Columns}
	f := e.explainFile()
	rows, err := t.Rows(nil, f.Explanations)
	if err != nil {
		return nil, false
	}
	if what == "csv" {
		return t.SetCSV(m.classes, f.Explanations, rows), true
	}
	b, err = json.MarshalIndent(t.ExplainFile(t.Row(e.in.X0), f, rows), "", " ")
	return b, err == nil
}
