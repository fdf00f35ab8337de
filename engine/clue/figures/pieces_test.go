package figures

import (
	"strings"
	"testing"

	"github.com/deltaclue/deltaclue/engine/clue"
)

// Pieces gives the document back whole, split at its top-level elements: each marker of the trade-off plot is
// a part of its own.
func TestPiecesRejoin(t *testing.T) {
	var exps []clue.Explanation
	for i := 0; i < 40; i++ {
		exps = append(exps, clue.Explanation{Restart: i, Label: i % 3, Distance: float32(10 + i), HTotal: float32(i) / 40, Accepted: i%2 == 0, DuplicateOf: -1, Mode: -1})
	}
	svg := Tradeoff(TradeoffOf(exps, 10, 0.5))
	open, parts, closing := Pieces(svg)
	if open+strings.Join(parts, "")+closing != svg {
		t.Fatal("the pieces do not make the document again")
	}
	if !strings.HasPrefix(open, "<svg") || !strings.HasPrefix(closing, "</svg>") {
		t.Errorf("opening %.40q, closing %q", open, closing)
	}
	markers := 0
	for _, p := range parts {
		if strings.HasPrefix(p, `<g class="pt`) {
			markers++
		}
		if strings.Count(p, "<g") != strings.Count(p, "</g>") {
			t.Errorf("a part that is not whole: %.80q", p)
		}
	}
	if markers != len(exps) {
		t.Errorf("%d markers among the parts, want %d", markers, len(exps))
	}
	for _, bad := range []string{"", "no svg", "<svg><g></svg>", "<svg><g>"} {
		if o, p, c := Pieces(bad); o != bad || p != nil || c != "" {
			t.Errorf("Pieces(%q) = %q, %q, %q", bad, o, p, c)
		}
	}
}
