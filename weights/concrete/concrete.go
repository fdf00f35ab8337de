// Package concrete holds the concrete-strength models the project ships (issue 42; `make train DATASET=concrete`
// writes this folder): a heteroscedastic MC-dropout MLP that predicts a mix's compressive strength in MPa as a
// mean and a standard deviation (a regression, weights.Regression) and a VAE of the mixes with CLUE's likelihood
// for numbers, as int8 weights files, and their description (model.json: a table, the columns of
// internal/concrete's schema), as a models folder (internal/modelsource) that the command line opens by name:
// -models concrete. Their test mixes are internal/concrete's committed test split. Only native tools import it.
package concrete

import (
	"embed"
	"io/fs"
)

//go:embed model.json *.dcw
var files embed.FS

// FS is the models folder.
func FS() fs.FS { return files }
