//go:build imagesonly

package app

import (
	"github.com/deltaclue/deltaclue/app/inputkind"
	"github.com/deltaclue/deltaclue/weights"
)

// The page for a site whose default models read images leaves the table's kind out (cmd/site builds it with the
// tag imagesonly: a first visit downloads no code for rows); models of rows get a page of their own, which the
// loader fetches for their address. This one lists them (for the choice of models) and runs the default in
// their place, saying so (chooseModels).

const tablesLeftOut = true

func (m *pageModel) tableKind(string) inputkind.Kind { return nil }

func checkTable(weights.Input) error { return nil }

func ownDescription(r pageDescription) (pageDescription, error) { return r, nil }

func (e *Explainer) rowDownload(string) ([]byte, bool) { return nil, false }
