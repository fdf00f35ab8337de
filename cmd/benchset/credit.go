//go:build !js

package main

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/kind"
	"github.com/deltaclue/deltaclue/engine/clue/sharelink"
	"github.com/deltaclue/deltaclue/internal/modelsource"
)

// creditLink is the share link (fragment) of issue 41's measured set on the credit models: the test applicant
// the classifier is least sure of, 100 restarts × exactly 100 steps (no early stop), the models' defaults
// otherwise; and the git tree id of this tree's weights/credit, which a build must have for the link to be its.
// "" and "" when this tree ships no credit models.
func creditLink(root string) (link, tree string, err error) {
	if _, err := os.Stat(filepath.Join(root, "weights", "credit", "model.json")); errors.Is(err, os.ErrNotExist) {
		return "", "", nil
	}
	credit, err := modelsource.Open("credit")
	if err != nil {
		return "", "", err
	}
	m, err := clue.LoadBundle(credit.Bundle)
	if err != nil {
		return "", "", err
	}
	d := credit.Description()
	x := make([]float32, d.Input.Size())
	all := make([]float32, 0, credit.Test.Len()*len(x))
	for i := 0; i < credit.Test.Len(); i++ {
		all = append(all, credit.Test.Float(i, x)...)
	}
	credit.Test.Float(clue.MostUncertain(m.BNN, all, 1)[0], x)
	p := clue.DefaultsFor(d)
	p.N, p.MaxSteps, p.RelTol, p.AbsTol = setN, setSteps, 0, 0
	row := kind.Table{Columns: d.Input.Columns}.Carry(x)
	link = sharelink.Encode(sharelink.State{Models: d.Name, Model: credit.Bundle.Fingerprint(), Height: 1, Width: len(row),
		Channels: 1, Image: row, Params: p, Selected: sharelink.NoSelection})
	tree, err = git(root, "rev-parse", "HEAD:weights/credit")
	if err != nil {
		return "", "", err
	}
	return link, tree, nil
}
