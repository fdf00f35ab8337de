//go:build !js

package main

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/sharelink"
	"github.com/deltaclue/deltaclue/internal/modelsource"
)

// fashionLink is the share link (fragment) of the page's default search on the Fashion test item the classifier
// is least sure of (the gallery's first garment), and the git tree id of this tree's weights/fashion, which a
// build must have for the link to be its; "" and "" when this tree ships no Fashion models.
func fashionLink(root string) (link, tree string, err error) {
	fashion, x, err := leastSure(root, "fashion")
	if fashion == nil || err != nil {
		return "", "", err
	}
	d := fashion.Description()
	link = sharelink.Encode(sharelink.State{Models: d.Name, Model: fashion.Bundle.Fingerprint(), Height: d.Input.Height,
		Width: d.Input.Width, Channels: d.Input.Channels, Image: sharelink.Quantize(x), Params: clue.DefaultsFor(d),
		Selected: sharelink.NoSelection})
	if tree, err = weightsTree(root, "fashion"); err != nil {
		return "", "", err
	}
	return link, tree, nil
}

// leastSure opens this tree's models of the given name and returns them with the test item their classifier (or
// regressor) is least sure of, as the networks read it; nil models when the tree ships none of that name.
func leastSure(root, name string) (*modelsource.Models, []float32, error) {
	if _, err := os.Stat(filepath.Join(root, "weights", name, "model.json")); errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	models, err := modelsource.Open(name)
	if err != nil {
		return nil, nil, err
	}
	m, err := clue.LoadBundle(models.Bundle)
	if err != nil {
		return nil, nil, err
	}
	x := make([]float32, models.Description().Input.Size())
	all := make([]float32, 0, models.Test.Len()*len(x))
	for i := 0; i < models.Test.Len(); i++ {
		all = append(all, models.Test.Float(i, x)...)
	}
	models.Test.Float(clue.MostUncertain(m.BNN, all, 1)[0], x)
	return models, x, nil
}

// weightsTree is the git tree id of this tree's weights/<name>, which a build must have for a link to be its.
func weightsTree(root, name string) (string, error) {
	return git(root, "rev-parse", "HEAD:weights/"+name)
}

// sameFashion says whether the build at root ships this tree's Fashion models (the same git tree of
// weights/fashion; this tree's own uncommitted changes are not looked at): only then is the link its.
func sameFashion(root, tree string) bool { return sameWeights(root, "fashion", tree) }

// sameWeights says whether the build at root ships this tree's models of the given name (weights/<name>'s git
// tree).
func sameWeights(root, name, tree string) bool {
	if tree == "" {
		return false
	}
	got, err := weightsTree(root, name)
	return err == nil && got == tree
}
