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
	if _, err := os.Stat(filepath.Join(root, "weights", "fashion", "model.json")); errors.Is(err, os.ErrNotExist) {
		return "", "", nil
	}
	fashion, err := modelsource.Open("fashion")
	if err != nil {
		return "", "", err
	}
	m, err := clue.LoadBundle(fashion.Bundle)
	if err != nil {
		return "", "", err
	}
	d := fashion.Description()
	x := make([]float32, d.Input.Size())
	all := make([]float32, 0, fashion.Test.Len()*len(x))
	for i := 0; i < fashion.Test.Len(); i++ {
		all = append(all, fashion.Test.Float(i, x)...)
	}
	fashion.Test.Float(clue.MostUncertain(m.BNN, all, 1)[0], x)
	link = sharelink.Encode(sharelink.State{Models: d.Name, Model: fashion.Bundle.Fingerprint(), Height: d.Input.Height,
		Width: d.Input.Width, Channels: d.Input.Channels, Image: sharelink.Quantize(x), Params: clue.DefaultsFor(d),
		Selected: sharelink.NoSelection})
	tree, err = git(root, "rev-parse", "HEAD:weights/fashion")
	if err != nil {
		return "", "", err
	}
	return link, tree, nil
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
	got, err := git(root, "rev-parse", "HEAD:weights/"+name)
	return err == nil && got == tree
}
