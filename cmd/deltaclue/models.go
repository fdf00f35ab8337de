package main

import (
	"flag"
	"fmt"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/glam"
	"github.com/deltaclue/deltaclue/internal/dataset"
	"github.com/deltaclue/deltaclue/internal/modelsource"
	"github.com/deltaclue/deltaclue/internal/plural"
	"github.com/deltaclue/deltaclue/weights"
)

// modelsFlag registers -models, the models a command runs on (the shipped digits by default).
func modelsFlag(fs *flag.FlagSet) *string {
	return fs.String("models", modelsource.Digits, modelsource.Help)
}

// models are the models a command runs on: where they came from (their bundle, description and test items),
// what the search runs on, and GLAM-CLUE's translations (nil when the bundle has none).
type models struct {
	*modelsource.Models
	search       *clue.Models
	translations []glam.Translation
}

// loadModels opens the models -models names and builds the search's.
func loadModels(spec string) (*models, error) {
	src, err := modelsource.Open(spec)
	if err != nil {
		return nil, err
	}
	m, ts, err := glam.LoadBundle(src.Bundle)
	if err != nil {
		return nil, fmt.Errorf("%s: the models could not be built: %w", src.Spec, err)
	}
	return &models{Models: src, search: m, translations: ts}, nil
}

// input is the models' input.
func (m *models) input() weights.Input { return m.Description().Input }

// words are the models' class names and noun, in which the engine's sentences speak.
func (m *models) words() clue.Words {
	return clue.WordsOf(m.Description())
}

// noun is what one input is called ("digit").
func (m *models) noun() string { return m.Description().Input.Noun }

// class is class c's name ("7" for the digits).
func (m *models) class(c int) string { return m.words().Class(c) }

// test returns the models' test items, or says in one sentence that they have none (what is what wants them).
func (m *models) test(what string) (dataset.Items, error) {
	if m.Test == nil {
		return nil, fmt.Errorf("%s: the %q models have no test items (a models folder holds them as test-images.idx and test-labels.idx)", what, m.Name())
	}
	return m.Test, nil
}

// flatten returns every item's values one after another ([Len·Size]).
func flatten(items dataset.Items) []float32 {
	n := items.Size()
	out := make([]float32, items.Len()*n)
	for i := range items.Len() {
		items.Float(i, out[i*n:(i+1)*n])
	}
	return out
}

// items counts inputs with the models' noun ("3 test digits", "1 test sketch"): with a word before the noun
// when before is given ("test").
func (m *models) items(n int, before string) string {
	noun := m.noun()
	if before != "" {
		noun = before + " " + noun
	}
	return plural.Count(n, noun)
}
