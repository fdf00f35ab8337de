package app

import (
	"github.com/deltaclue/deltaclue/app/inputkind"
	"github.com/deltaclue/deltaclue/app/inputkind/imagekind"
)

// input is the served models' kind of input (package inputkind), made once: all the page knows of how an input
// is entered, shown, carried and drawn. This is the one place a kind is chosen; images are the only one today.
func (m *pageModel) input() inputkind.Kind {
	if m.kind == nil {
		gallery := ""
		if m.hasGallery() {
			gallery = m.file("gallery.json")
		}
		m.kind = imagekind.New(imagekind.Models{Input: m.Input, Noun: m.noun(), Classes: len(m.classes), Class: m.class, Gallery: gallery})
	}
	return m.kind
}

// The page is its input kind's host.
var _ inputkind.Host = (*Explainer)(nil)
