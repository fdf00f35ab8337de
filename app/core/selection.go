// The selection: which explanation the reader chose, how the grid orders and collapses the set, and the
// chosen explanation's trajectory, asked of a worker, and what the detail says of its mode.

package core

import (
	"fmt"
	"sort"

	"github.com/deltaclue/deltaclue/engine/clue"
)

// Orders of the grid.
var SortOrders = []string{"label", "cost", "distance", "restart"}

// Selection is the reader's view of a set: the restart chosen (−1 for none), the grid's order, whether the
// grid shows every restart or collapses duplicates onto their representative, and the chosen restart's
// trajectory (asked of a worker under TraceID; TraceErr if it failed).
type Selection struct {
	Restart    int
	SortBy     string
	ShowAll    bool
	Trajectory *clue.Trajectory
	TraceID    int
	TraceErr   string
}

// NewSelection is nothing chosen, the grid by label, duplicates collapsed.
func NewSelection() Selection { return Selection{Restart: -1, SortBy: "label"} }

// Ordered returns results in the grid's order: accepted first, then by the chosen order (label: by label,
// then cost), without the duplicates of another result unless every restart is asked for.
func (s Selection) Ordered(results []clue.Explanation) []clue.Explanation {
	// The sort moves indices, not explanations: an Explanation is a few hundred bytes, and a stable sort of 1000
	// of them copied enough to block the page's thread for tens of ms at every redraw while a set streams in.
	idx := make([]int32, 0, len(results))
	for i, x := range results {
		if s.ShowAll || x.DuplicateOf < 0 {
			idx = append(idx, int32(i))
		}
	}
	// (sort.SliceStable, not slices.SortStableFunc: the page's binary has it already, and each generic sort
	// instantiated adds kilobytes to the page's download.)
	sort.SliceStable(idx, func(a, b int) bool { return s.before(&results[idx[a]], &results[idx[b]]) })
	out := make([]clue.Explanation, len(idx))
	for k, i := range idx {
		out[k] = results[i]
	}
	return out
}

// before says whether x comes before y in the grid's order.
func (s Selection) before(x, y *clue.Explanation) bool {
	if x.Accepted != y.Accepted {
		return x.Accepted
	}
	switch s.SortBy {
	case "cost":
		return x.Cost < y.Cost
	case "distance":
		return x.Distance < y.Distance
	case "restart":
		return x.Restart < y.Restart
	}
	if x.Label != y.Label {
		return x.Label < y.Label
	}
	return x.Cost < y.Cost
}

// Select chooses restart (−1: none) and says whether that changed the selection. A new choice forgets the
// failure of the previous trajectory.
func (s *Selection) Select(restart int) bool {
	if restart == s.Restart {
		return false
	}
	s.Restart, s.TraceErr = restart, ""
	return true
}

// Clear forgets the choice and its trajectory (a new input), keeping the grid's order and collapse.
func (s *Selection) Clear() {
	*s = Selection{Restart: -1, SortBy: s.SortBy, ShowAll: s.ShowAll}
}

// Move is the restart an arrow key (or Home, End) leads to in the grid's cells (Ordered) of cols columns, and
// whether the key moves at all. With nothing chosen, the first arrow chooses the first cell; a chosen
// duplicate moves from its representative's cell.
func (s Selection) Move(cells, results []clue.Explanation, key string, cols int) (int, bool) {
	k := GridMove(CellOf(cells, results, s.Restart), key, len(cells), cols)
	if k < 0 {
		return 0, false
	}
	return cells[k].Restart, true
}

// Chosen is the chosen explanation among results, if it has come and has an image.
func (s Selection) Chosen(results []clue.Explanation) *clue.Explanation {
	for i := range results {
		if results[i].Restart == s.Restart && results[i].Image != nil {
			return &results[i]
		}
	}
	return nil
}

// TraceWanted says whether restart, chosen a moment ago, still is and has no trajectory yet: the moment to
// ask a worker for it (under id, which the answer carries).
func (s *Selection) TraceWanted(restart, id int) bool {
	if s.Restart != restart || restart < 0 || (s.Trajectory != nil && s.Trajectory.Restart == restart) {
		return false
	}
	s.TraceID, s.TraceErr = id, ""
	return true
}

// Traced takes a worker's trajectory, answered under id; it says whether it is the chosen restart's.
func (s *Selection) Traced(id int, t *clue.Trajectory) bool {
	if id != s.TraceID || t == nil || t.Restart != s.Restart {
		return false
	}
	s.Trajectory = t
	return true
}

// TraceFailed records a worker's refusal to trace, if it answers the last request.
func (s *Selection) TraceFailed(id int, err string) bool {
	if id != s.TraceID || id == 0 {
		return false
	}
	s.TraceErr = err
	return true
}

// CellOf returns the index of the cell that shows restart among the grid's cells: its own, or, when it is a
// duplicate collapsed into another's cell (the grid's "×k"), the cell of the explanation it duplicates; -1
// if no cell shows it. results are the whole set, whose DuplicateOf says what each duplicates.
func CellOf(cells, results []clue.Explanation, restart int) int {
	if restart < 0 {
		return -1
	}
	for i, x := range cells {
		if x.Restart == restart {
			return i
		}
	}
	for _, x := range results {
		if x.Restart == restart && x.DuplicateOf >= 0 && x.DuplicateOf != restart {
			return CellOf(cells, nil, x.DuplicateOf)
		}
	}
	return -1
}

// GridMove is the cell an arrow key leads to from cell pos among n cells in cols columns, or -1 for any other
// key (the arrows, Home and End). With no cell selected (pos < 0), every arrow selects the first cell; moves
// stop at the ends.
func GridMove(pos int, key string, n, cols int) int {
	if n == 0 {
		return -1
	}
	step := map[string]int{"ArrowRight": 1, "ArrowLeft": -1, "ArrowDown": cols, "ArrowUp": -cols, "Home": -n, "End": n}
	d, ok := step[key]
	if !ok {
		return -1
	}
	if pos < 0 || pos >= n {
		if key == "End" {
			return n - 1
		}
		return 0
	}
	return min(max(pos+d, 0), n-1)
}

// ModeText says which mode an explanation is in, for the detail: its own, or for a duplicate the mode of the
// explanation it duplicates (a duplicate has none of its own); modes are the summary's modes per label.
func ModeText(x clue.Explanation, results []clue.Explanation, modes []int) string {
	if x.Failed != "" || !x.Accepted {
		return "not accepted, so in no mode"
	}
	of := func(m clue.Explanation) string {
		if m.Mode < 0 {
			return "no mode"
		}
		n := 1
		if m.Label < len(modes) && modes[m.Label] > 0 {
			n = modes[m.Label]
		}
		return fmt.Sprintf("mode %d of %d of label %d", m.Mode+1, n, m.Label)
	}
	if x.DuplicateOf < 0 {
		return of(x)
	}
	for _, m := range results {
		if m.Restart == x.DuplicateOf {
			return fmt.Sprintf("a duplicate of restart %d, in its %s", m.Restart, of(m))
		}
	}
	return fmt.Sprintf("a duplicate of restart %d", x.DuplicateOf)
}
