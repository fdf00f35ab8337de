package app

import (
	"fmt"

	"github.com/deltaclue/deltaclue/engine/clue"
)

// The grid's plain logic, apart from the canvas: which cell shows a restart, where the arrow keys go, and
// what the detail says of the selected explanation's mode.

// cellOf returns the index of the cell that shows restart among the grid's cells: its own, or, when it is a
// duplicate collapsed into another's cell (the grid's "×k"), the cell of the explanation it duplicates; -1
// if no cell shows it. results are the whole set, whose DuplicateOf says what each duplicates.
func cellOf(cells, results []clue.Explanation, restart int) int {
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
			return cellOf(cells, nil, x.DuplicateOf)
		}
	}
	return -1
}

// gridMove is the cell an arrow key leads to from cell pos among n cells in cols columns, or -1 for any other
// key (the arrows, Home and End). With no cell selected (pos < 0), every arrow selects the first cell; moves
// stop at the ends.
func gridMove(pos int, key string, n, cols int) int {
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

// modeText says which mode an explanation is in, for the detail: its own, or for a duplicate the mode of the
// explanation it duplicates (a duplicate has none of its own); modes are the summary's modes per label.
func modeText(x clue.Explanation, results []clue.Explanation, modes []int) string {
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
