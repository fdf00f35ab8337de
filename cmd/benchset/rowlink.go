//go:build !js

package main

import (
	"os"
	"path/filepath"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/kind"
	"github.com/deltaclue/deltaclue/engine/clue/sharelink"
)

// rowLink is the share link (fragment) of a measured set on the row models named (credit: issue 41; concrete,
// a regression: issue 42): the test row the models are least sure of, 100 restarts × exactly 100 steps (no early
// stop), the models' defaults otherwise; and the git tree id of this tree's weights/<name>, which a build must
// have for the link to be its. "" and "" when this tree ships no such models.
//
// A build from before clue.Params.Sparse (on by default for rows) cannot read a link that asks for it: forBuild
// gives such a build the same link without it, the set as that build made it.
func rowLink(root, name string) (link, tree string, err error) {
	models, x, err := leastSure(root, name)
	if models == nil || err != nil {
		return "", "", err
	}
	d := models.Description()
	p := clue.DefaultsFor(d)
	p.N, p.MaxSteps, p.RelTol, p.AbsTol = setN, setSteps, 0, 0
	row := kind.Table{Columns: d.Input.Columns}.Carry(x)
	link = sharelink.Encode(sharelink.State{Models: d.Name, Model: models.Bundle.Fingerprint(), Height: 1, Width: len(row),
		Channels: 1, Image: row, Params: p, Selected: sharelink.NoSelection})
	if tree, err = weightsTree(root, name); err != nil {
		return "", "", err
	}
	return link, tree, nil
}

// forBuild is link (a rowLink) as the build at root can read it: without Params.Sparse (links' flag 16) where the
// build predates it (it has no engine/clue/sparse.go).
func forBuild(link, root string) string {
	if _, err := os.Stat(filepath.Join(root, "engine", "clue", "sparse.go")); err == nil || link == "" {
		return link
	}
	s, err := sharelink.Decode(link)
	if err != nil || !s.Params.Sparse {
		return link
	}
	s.Params.Sparse = false
	logf("%s: a build from before Params.Sparse: its row link keeps the search's own rows", root)
	return sharelink.Encode(s)
}
