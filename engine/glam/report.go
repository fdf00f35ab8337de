package glam

import "github.com/deltaclue/deltaclue/engine/clue"

// Reported is an amortised answer as explain.json stores it (`deltaclue explain`, and the set the page
// downloads): the answer, how long it took, and the searched set's cheapest accepted explanation of the same
// label for comparison (search_found false and search_distance 0 when it has none).
type Reported struct {
	From           int       `json:"from"`
	To             int       `json:"to"`
	Sure           bool      `json:"sure"`
	K              float32   `json:"k"`
	Shift          float32   `json:"shift"`
	Label          int       `json:"label"`
	HTotal         float32   `json:"h_total"`
	Distance       float32   `json:"distance"`
	Image          []float32 `json:"image"`
	Milliseconds   float64   `json:"ms"`
	SearchFound    bool      `json:"search_found"`
	SearchDistance float32   `json:"search_distance"`
}

// ExplainFile is explain.json: the set's report and the amortised answers beside it.
type ExplainFile struct {
	clue.Report
	Amortised []Reported `json:"amortised"`
}

// Compare sets each answer's search_found and search_distance from the set's cheapest accepted explanation of
// its label (Nearest).
func Compare(rs []Reported, exps []clue.Explanation) {
	nearest := Nearest(exps)
	for i := range rs {
		x, found := nearest[rs[i].To]
		rs[i].SearchFound, rs[i].SearchDistance = found, x.Distance
	}
}
