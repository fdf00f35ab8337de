// Package fashion holds the Fashion-MNIST models the project ships (`make train DATASET=fashion` writes this
// folder): a convolutional MC-dropout classifier and a convolutional VAE as int8 weights files, their
// description (model.json), their S2 anchors and GLAM-CLUE translations with the groups they were measured in
// (groups.json, deltaclue global), and 2,000 held-out test items (the
// first 200 of each class of Zalando's test split, which `make data DATASET=fashion` checks), as a models folder
// (internal/modelsource) that the command line opens by name: -models fashion. Only native tools import it:
// the page fetches the bundle cmd/site makes of it.
package fashion

import (
	"embed"
	"io/fs"
)

//go:embed model.json *.dcw test-images.idx test-labels.idx groups.json
var files embed.FS

// FS is the models folder.
func FS() fs.FS { return files }
