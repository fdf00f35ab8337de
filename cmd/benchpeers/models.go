//go:build !js

package main

// Which models and which image: -models as every command takes it (internal/modelsource), with "fashion" also
// found as the models folder weights/fashion of this tree once the Fashion models ship there; the image is the
// digits' test digit 1735 (what `make bench-set` explains) or, for other models, the test item the classifier
// is least sure of.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/sharelink"
	"github.com/deltaclue/deltaclue/internal/benchenv"
	"github.com/deltaclue/deltaclue/internal/modelsource"
)

// fashionName is the Fashion models' name (training.FashionName; package training is gomlx's, too heavy here).
const fashionName = "fashion"

// digitsItem is the digits' test digit the set is made of: `make bench-set`'s.
const digitsItem = 1735

// openModels opens the models spec names: modelsource.Open's, or "fashion" as this tree's weights/fashion.
func openModels(spec string) (*modelsource.Models, error) {
	m, err := modelsource.Open(spec)
	if err == nil || spec != fashionName {
		return m, err
	}
	root, rerr := benchenv.ModuleRoot()
	if rerr != nil {
		return nil, err
	}
	dir := filepath.Join(root, "weights", fashionName)
	if _, serr := os.Stat(filepath.Join(dir, "model.json")); serr != nil {
		return nil, fmt.Errorf("the Fashion models have not shipped yet (%s has no model.json: make train DATASET=fashion)", dir)
	}
	return modelsource.Open(dir)
}

// modelsSpec is the spec the harness uses for -models: as given, or "" for the default, fashion if it opens,
// else digits; with the spec as other processes (the native runner, cmd/site) must be told it.
func modelsSpec(flag string) (string, *modelsource.Models, error) {
	if flag != "" {
		m, err := openModels(flag)
		return resolvedSpec(flag, m), m, err
	}
	m, err := openModels(fashionName)
	if err == nil {
		return resolvedSpec(fashionName, m), m, nil
	}
	logf("-models: the default is fashion, but %v: the digits instead", err)
	m, err = openModels(modelsource.Digits)
	return modelsource.Digits, m, err
}

// resolvedSpec is the spec another process opens the same models with.
func resolvedSpec(spec string, m *modelsource.Models) string {
	if m == nil || m.Spec == spec || spec == modelsource.Digits {
		return spec
	}
	return m.Spec // weights/fashion's path
}

// pickImage chooses x0: item i of the models' test items (-index; -1: the digits' 1735, or the item the
// classifier is least sure of), quantised as a share link carries it. It returns the image as the page decodes
// it from the link, what it is, and the link's state.
func pickImage(m *modelsource.Models, models *clue.Models, index int) ([]float32, string, sharelink.State, error) {
	var st sharelink.State
	if m.Test == nil || m.Test.Len() == 0 {
		return nil, "", st, errors.New("the models have no test items to explain")
	}
	if index < 0 {
		if m.ShippedDigits {
			index = digitsItem
		} else {
			all := make([]float32, 0, m.Test.Len()*m.Test.Size())
			for i := range m.Test.Len() {
				all = append(all, m.Test.Float(i, nil)...)
			}
			index = clue.MostUncertain(models.BNN, all, 1)[0]
		}
	}
	if index >= m.Test.Len() {
		return nil, "", st, fmt.Errorf("-index %d: the models have %d test items", index, m.Test.Len())
	}
	in := m.Description().Input
	st = sharelink.State{Models: m.Name(), Model: m.Bundle.Fingerprint(), Height: in.Height, Width: in.Width, Channels: in.Channels,
		Image: sharelink.Quantize(m.Test.Float(index, nil)), Selected: sharelink.NoSelection}
	what := fmt.Sprintf("test item %d of %s", index, m.Name())
	if m.ShippedDigits {
		st.Height, st.Width, st.Channels = 0, 0, 0 // a v2 link, as the digits' links are
		what = fmt.Sprintf("test digit %d", index)
	}
	return st.Float(), what, st, nil
}
