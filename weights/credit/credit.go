// Package credit holds the credit-scoring models the project ships (issue 41; `make train DATASET=credit` writes
// this folder): an MC-dropout MLP classifier of applicants (bad or good) and a VAE with CLUE's likelihood for
// mixed data, as int8 weights files, and their description (model.json: a table, the columns of
// internal/credit's schema), as a models folder (internal/modelsource) that the command line opens by name:
// -models credit. Their test applicants are internal/credit's committed test split. Only native tools import it.
package credit

import (
	"embed"
	"io/fs"
)

//go:embed model.json *.dcw
var files embed.FS

// FS is the models folder.
func FS() fs.FS { return files }
