package app

import (
	"github.com/deltaclue/deltaclue/app/inputkind"
	"github.com/deltaclue/deltaclue/app/inputkind/imagekind"
)

// input is the served models' kind of input (package inputkind), made once: all the page knows of how an input
// is entered, shown, carried and drawn. This is the one place a kind is chosen: images, or a table's rows (kinds_table.go).
func (m *pageModel) input() inputkind.Kind {
	if m.kind == nil {
		gallery := ""
		if m.hasGallery() {
			gallery = m.file("gallery.json")
		}
		if !tablesLeftOut && m.IsTable() {
			m.kind = m.tableKind(gallery)
			return m.kind
		}
		m.kind = imagekind.New(imagekind.Models{Input: m.Input, Served: m.servedTo(gallery)})
	}
	return m.kind
}

// The page is its input kind's host.
var _ inputkind.Host = (*Explainer)(nil)

// servedTo is what a kind knows of the models beyond their input.
func (m *pageModel) servedTo(gallery string) inputkind.Served {
	return inputkind.Served{Noun: m.noun(), Classes: len(m.classes), Class: m.class, Gallery: gallery, Regression: m.regression != nil}
}
