package core

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/deltaclue/deltaclue/engine/clue"
)

// A set of five: restarts 3 and 4 duplicate restart 1; restart 2 is rejected. Collapsed, the grid shows 0, 1, 2.
func gridFixture() (results, collapsed []clue.Explanation) {
	results = []clue.Explanation{
		{Restart: 0, Accepted: true, Label: 4, Mode: 0, DuplicateOf: -1},
		{Restart: 1, Accepted: true, Label: 9, Mode: 1, DuplicateOf: -1},
		{Restart: 2, Label: 7, Mode: -1, DuplicateOf: -1},
		{Restart: 3, Accepted: true, Label: 9, Mode: -1, DuplicateOf: 1},
		{Restart: 4, Accepted: true, Label: 9, Mode: -1, DuplicateOf: 1},
	}
	return results, []clue.Explanation{results[1], results[0], results[2]}
}

func TestCellOfADuplicateIsItsRepresentatives(t *testing.T) {
	results, cells := gridFixture()
	for _, c := range []struct{ restart, want int }{{1, 0}, {0, 1}, {2, 2}, {3, 0}, {4, 0}, {-1, -1}, {99, -1}} {
		if got := CellOf(cells, results, c.restart); got != c.want {
			t.Errorf("restart %d: cell %d, want %d", c.restart, got, c.want)
		}
	}
	// Shown in full (every restart its own cell), a duplicate has its own cell.
	if got := CellOf(results, results, 3); got != 3 {
		t.Errorf("every restart shown: restart 3 in cell %d", got)
	}
}

func TestGridMoveStartsAtTheFirstCell(t *testing.T) {
	for _, c := range []struct {
		pos  int
		key  string
		want int
	}{
		{-1, "ArrowRight", 0}, {-1, "ArrowDown", 0}, {-1, "ArrowLeft", 0}, {-1, "End", 24},
		{0, "ArrowRight", 1}, {0, "ArrowLeft", 0}, {0, "ArrowDown", 10}, {15, "ArrowUp", 5}, {5, "ArrowUp", 0},
		{24, "ArrowRight", 24}, {20, "ArrowDown", 24}, {7, "Home", 0}, {7, "End", 24},
		{3, "Enter", -1}, {-1, "a", -1},
	} {
		if got := GridMove(c.pos, c.key, 25, 10); got != c.want {
			t.Errorf("from %d, %s: %d, want %d", c.pos, c.key, got, c.want)
		}
	}
	if got := GridMove(-1, "ArrowRight", 0, 10); got != -1 {
		t.Errorf("an empty grid: %d", got)
	}
}

func TestOrderedCollapsesAndSorts(t *testing.T) {
	results, _ := gridFixture()
	results[0].Cost, results[1].Cost, results[2].Cost = 3, 1, 0.5
	results[0].Distance, results[1].Distance = 1, 2
	restarts := func(xs []clue.Explanation) (r []int) {
		for _, x := range xs {
			r = append(r, x.Restart)
		}
		return r
	}
	s := NewSelection()
	for _, c := range []struct {
		by   string
		all  bool
		want []int
	}{
		{"label", false, []int{0, 1, 2}}, // accepted first, by label: 4 then 9; the rejected 7 last
		{"cost", false, []int{1, 0, 2}},  // accepted by cost; rejected last even though cheapest
		{"distance", false, []int{0, 1, 2}},
		{"restart", true, []int{0, 1, 3, 4, 2}},
	} {
		s.SortBy, s.ShowAll = c.by, c.all
		if got := restarts(s.Ordered(results)); !slices.Equal(got, c.want) {
			t.Errorf("by %s (all %v): %v, want %v", c.by, c.all, got, c.want)
		}
	}
}

// largeSet is n seeded results as a big run streams them in: ties in label and cost, a tenth rejected, a third
// duplicates, and a NaN cost now and then (a search's failed restart).
func largeSet(n int, seed uint64) []clue.Explanation {
	r := rand.New(rand.NewPCG(seed, 1))
	out := make([]clue.Explanation, n)
	for i := range out {
		out[i] = clue.Explanation{Restart: i, Label: r.IntN(4), Cost: float32(r.IntN(20)) / 4, Distance: float32(r.IntN(9)),
			Accepted: r.IntN(10) > 0, DuplicateOf: -1, Image: make([]float32, 784)}
		if r.IntN(3) == 0 && i > 0 {
			out[i].DuplicateOf = r.IntN(i)
		}
		if r.IntN(50) == 0 {
			out[i].Cost = float32(math.NaN())
		}
	}
	return out
}

// The grid's order sorts indices: it must be the order a stable sort of the results themselves gives, under
// every order and with NaN costs. (What each order means, TestOrderedCollapsesAndSorts checks.)
func TestOrderedIsTheStableSortOfTheResults(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		results := largeSet(300, seed)
		for _, by := range SortOrders {
			for _, all := range []bool{false, true} {
				s := Selection{SortBy: by, ShowAll: all, Restart: -1}
				var want []clue.Explanation
				for _, x := range results {
					if all || x.DuplicateOf < 0 {
						want = append(want, x)
					}
				}
				sort.SliceStable(want, func(a, b int) bool { return s.before(&want[a], &want[b]) })
				got := s.Ordered(results)
				if len(got) != len(want) {
					t.Fatalf("seed %d, by %s, all %v: %d cells, want %d", seed, by, all, len(got), len(want))
				}
				for i := range got {
					if got[i].Restart != want[i].Restart {
						t.Fatalf("seed %d, by %s, all %v: cell %d holds restart %d, want %d", seed, by, all, i, got[i].Restart, want[i].Restart)
					}
				}
			}
		}
	}
}

// BenchmarkOrdered is the grid's order of a streaming set of 1000, as the page makes it at every redraw.
func BenchmarkOrdered(b *testing.B) {
	results := largeSet(1000, 7)
	s := NewSelection()
	for b.Loop() {
		s.Ordered(results)
	}
}

func TestSelectionMovesByKeyAndFromADuplicate(t *testing.T) {
	results, _ := gridFixture()
	s := NewSelection()
	cells := s.Ordered(results) // 0, 1, 2
	if r, ok := s.Move(cells, results, "ArrowRight", 10); !ok || r != 0 {
		t.Fatalf("nothing chosen, ArrowRight: %d %v", r, ok)
	}
	if !s.Select(3) || s.Select(3) {
		t.Fatal("Select says whether the choice changed")
	}
	// Restart 3 is collapsed into restart 1's cell (cell 1): ArrowRight goes to cell 2.
	if r, ok := s.Move(cells, results, "ArrowRight", 10); !ok || r != 2 {
		t.Errorf("from the duplicate 3, ArrowRight: %d %v", r, ok)
	}
	if _, ok := s.Move(cells, results, "Enter", 10); ok {
		t.Error("Enter moved the selection")
	}
	results[3].Image = []float32{1}
	if x := s.Chosen(results); x == nil || x.Restart != 3 {
		t.Errorf("chosen: %v", x)
	}
	s.Select(4)
	if s.Chosen(results) != nil {
		t.Error("restart 4 has no image yet, but is given as chosen")
	}
}

func TestTraceOnlyForTheStandingChoice(t *testing.T) {
	s := NewSelection()
	s.Select(5)
	if s.TraceWanted(4, 10) {
		t.Error("a trace asked for a restart no longer chosen")
	}
	if !s.TraceWanted(5, 11) || s.TraceID != 11 {
		t.Fatalf("the chosen restart's trace not asked: %+v", s)
	}
	if s.Traced(10, &clue.Trajectory{Restart: 5}) {
		t.Error("an older request's answer taken")
	}
	s.Select(6)
	if s.Traced(11, &clue.Trajectory{Restart: 5}) {
		t.Error("the trajectory of a restart chosen before taken")
	}
	s.Select(5)
	if !s.Traced(11, &clue.Trajectory{Restart: 5}) || s.Trajectory == nil {
		t.Error("the answer to the standing request refused")
	}
	if s.TraceWanted(5, 12) {
		t.Error("a trajectory already shown asked again")
	}
	if s.TraceFailed(0, "x") || !s.TraceFailed(11, "no worker") || s.TraceErr != "no worker" {
		t.Errorf("trace failure: %+v", s)
	}
	if s.Select(7); s.TraceErr != "" {
		t.Error("a new choice kept the previous trace's failure")
	}
	s.SortBy, s.ShowAll = "cost", true
	s.Clear()
	if s.Restart != -1 || s.Trajectory != nil || s.SortBy != "cost" || !s.ShowAll {
		t.Errorf("after Clear: %+v", s)
	}
}

func TestModeTextHasNoMinusOne(t *testing.T) {
	results, _ := gridFixture()
	modes := make([]int, 10)
	modes[4], modes[9] = 1, 2
	for _, c := range []struct {
		x    clue.Explanation
		want string
	}{
		{results[0], "mode 1 of 1 of label 4"},
		{results[1], "mode 2 of 2 of label 9"},
		{results[2], "not accepted, so in no mode"},
		{results[3], "a duplicate of restart 1, in its mode 2 of 2 of label 9"},
		{clue.Explanation{Restart: 5, Failed: "NaN", Mode: -1, DuplicateOf: -1}, "not accepted, so in no mode"},
	} {
		got := ModeText(c.x, results, modes)
		if got != c.want || strings.Contains(got, "-1") {
			t.Errorf("restart %d: %q, want %q", c.x.Restart, got, c.want)
		}
	}
}
