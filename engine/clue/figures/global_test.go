package figures

import (
	"strings"
	"testing"
)

func TestCostCoverage(t *testing.T) {
	ch := CostCoverageChart{Lines: []CoverageLine{
		{From: 4, To: 9, Members: 11, K: []float64{0.5, 1, 2}, Coverage: []float64{0, 0.5, 1}, Cost: []float64{0, 40, 52}, SearchCost: 37},
		{From: 7, To: 1, Members: 10, K: []float64{0.5, 1}, Coverage: []float64{0.2, 1}, Cost: []float64{30, 35}},
	}}
	svg := CostCoverage(ch)
	if svg != CostCoverage(ch) {
		t.Error("the same chart gave different bytes")
	}
	for _, want := range []string{"<title", "<desc", "4→9 (11)", "7→1 (10)", `data-from="4" data-to="9"`, `stroke-dasharray="4 3"`, LabelColour(9), LabelColour(1)} {
		if !strings.Contains(svg, want) {
			t.Errorf("the chart lacks %q", want)
		}
	}
	// The point with no coverage has no cost and is left out: 2 of 4 drawn for 4→9's line, plus 7→1's 2.
	if got := strings.Count(svg, "<circle"); got != 4 {
		t.Errorf("%d points drawn, want 4", got)
	}
	if got := strings.Count(svg, "stroke-dasharray"); got != 1 {
		t.Errorf("%d dashed δ-CLUE lines, want 1 (7→1 has none)", got)
	}
}
