package app

import (
	"testing"

	"github.com/deltaclue/deltaclue/app/core"
	"github.com/deltaclue/deltaclue/engine/clue"
)

// TestOrderKeyFollowsWhatTheOrderReads: the grid's order is kept while orderKey stays the same, so every field
// Ordered's answer depends on must change the key, and the same results must give the same key.
func TestOrderKeyFollowsWhatTheOrderReads(t *testing.T) {
	results := func() []clue.Explanation {
		xs := make([]clue.Explanation, 5)
		for i := range xs {
			xs[i] = clue.Explanation{Restart: i, Label: i % 3, Cost: float32(i) / 3, Distance: float32(10 - i), Accepted: i%2 == 0, Mode: 0, DuplicateOf: -1}
		}
		return xs
	}
	sel := core.NewSelection()
	base := orderKey(sel, results())
	if orderKey(sel, results()) != base {
		t.Fatal("the same results and order give another key")
	}
	changes := map[string]func(s *core.Selection, xs []clue.Explanation) []clue.Explanation{
		"sort by":   func(s *core.Selection, xs []clue.Explanation) []clue.Explanation { s.SortBy = "cost"; return xs },
		"show all":  func(s *core.Selection, xs []clue.Explanation) []clue.Explanation { s.ShowAll = true; return xs },
		"one more":  func(_ *core.Selection, xs []clue.Explanation) []clue.Explanation { return append(xs, xs[0]) },
		"one fewer": func(_ *core.Selection, xs []clue.Explanation) []clue.Explanation { return xs[:4] },
		"places": func(_ *core.Selection, xs []clue.Explanation) []clue.Explanation {
			xs[1], xs[2] = xs[2], xs[1]
			return xs
		},
		"restart":   func(_ *core.Selection, xs []clue.Explanation) []clue.Explanation { xs[3].Restart = 9; return xs },
		"accepted":  func(_ *core.Selection, xs []clue.Explanation) []clue.Explanation { xs[3].Accepted = true; return xs },
		"label":     func(_ *core.Selection, xs []clue.Explanation) []clue.Explanation { xs[3].Label = 7; return xs },
		"cost":      func(_ *core.Selection, xs []clue.Explanation) []clue.Explanation { xs[3].Cost += 1e-6; return xs },
		"distance":  func(_ *core.Selection, xs []clue.Explanation) []clue.Explanation { xs[3].Distance += 1e-5; return xs },
		"mode":      func(_ *core.Selection, xs []clue.Explanation) []clue.Explanation { xs[3].Mode = 1; return xs },
		"duplicate": func(_ *core.Selection, xs []clue.Explanation) []clue.Explanation { xs[3].DuplicateOf = 1; return xs },
		"unmarked":  func(_ *core.Selection, xs []clue.Explanation) []clue.Explanation { xs[3].Mode = -1; return xs },
	}
	for name, change := range changes {
		s := core.NewSelection()
		xs := change(&s, results())
		if orderKey(s, xs) == base {
			t.Errorf("%s: the key did not change, so the grid would keep a stale order", name)
		}
	}
}
