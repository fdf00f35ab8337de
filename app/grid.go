package app

import (
	"fmt"

	"github.com/deltaclue/deltaclue/engine/clue"
)

// What the detail says of the selected explanation's mode (which cell shows a restart, and where the arrow
// keys go, are core.Selection's).

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
