package glam

import (
	"slices"
	"time"

	"github.com/deltaclue/deltaclue/engine/clue"
)

// Case is one uncertain input's amortised answer towards b, by the translation a→b of the label a read on it,
// beside what δ-CLUE found for it.
type Case struct {
	Digit int `json:"digit"` // its index in its set (named "digit" since the digits' first files)
	From  int `json:"from"`
	To    int `json:"to"`
	// Member: δ-CLUE reached b on this input, so it is one of the group's members on this set; then
	// SearchDistance and SearchRho are its cheapest accepted explanation of b.
	Member         bool    `json:"member"`
	SearchDistance float32 `json:"search_distance"`
	SearchRho      float32 `json:"search_rho"`
	// The amortised answer (Explain): whether it made the model sure of b, its scale k, ‖k·t‖, d and H.
	Sure     bool    `json:"sure"`
	K        float32 `json:"k"`
	Shift    float32 `json:"shift"`
	Distance float32 `json:"distance"`
	HTotal   float32 `json:"h_total"`
	Label    int     `json:"label"`
	Seconds  float64 `json:"seconds"` // how long the answer took (wall clock)
	// FirstSure is the index in CurveLadder of the first rung that makes the model sure of b (−1: none), and
	// FirstSureDistance its d: the cost–coverage curve (GroupResult.Curve).
	FirstSure         int     `json:"first_sure"`
	FirstSureDistance float32 `json:"first_sure_distance"`
}

// Evaluate answers every image of rs (images of the models' input, one after another; codes by the VAE) towards every label b with a translation
// from the label read on it, and notes for the curves the first sure rung of CurveLadder: the answer's own rung
// when it is sure (Ladder is CurveLadder's start, and a rung's bits do not depend on the batch it is in), else
// the first sure one beyond the cap, the only rungs decoded again.
func Evaluate(m *clue.Models, ts []Translation, images []float32, rs []Reached, hThreshold float64) []Case {
	var cases []Case
	size := m.BNN.Input.Size()
	for _, r := range rs {
		x0 := images[r.Index*size : (r.Index+1)*size]
		z0 := m.VAE.Encode(x0)
		for _, t := range ts {
			if t.From != r.Read {
				continue
			}
			c := Case{Digit: r.Index, From: t.From, To: t.To, FirstSure: -1}
			c.SearchDistance, c.SearchRho, c.Member = r.Best(t.To)
			start := time.Now()
			as := Explain(m, []Translation{t}, x0, z0, t.From, []int{t.To}, hThreshold)
			c.Seconds = time.Since(start).Seconds()
			if len(as) == 1 {
				a := as[0]
				c.Sure, c.K, c.Shift, c.Distance, c.HTotal, c.Label = a.Sure, a.K, a.Shift, a.Distance, a.HTotal, a.Label
			}
			if c.Sure {
				c.FirstSure, c.FirstSureDistance = slices.Index(CurveLadder, c.K), c.Distance
			} else {
				for i, rung := range Rungs(m, t, x0, z0, CurveLadder[len(Ladder):]) {
					if rung.Sure(t.To, hThreshold) {
						c.FirstSure, c.FirstSureDistance = len(Ladder)+i, rung.Distance
						break
					}
				}
			}
			cases = append(cases, c)
		}
	}
	return cases
}

// GroupResult is a translation's record on a set: how many inputs read as a, how many of them are members (δ-CLUE
// reached b), the share of members its answers make sure of b (coverage) and of all the inputs read
// as a, and the mean costs: d of its sure answers on members, d of δ-CLUE's cheapest b on the same members, and
// ‖k·t‖ of its sure answers.
type GroupResult struct {
	From  int `json:"from"`
	To    int `json:"to"`
	Train int `json:"train_members"`
	Tally
	Curve []CurvePoint `json:"curve"`
}

// Tally sums up cases: how many there are (Read) and how many are members; the share of members made sure of
// their b (Coverage) and of all the cases (CoverageRead); the mean d and ‖k·t‖ of the sure answers on members,
// and the mean d and ρ of δ-CLUE's nearest explanations of b on the members.
type Tally struct {
	Read               int     `json:"read"`
	Members            int     `json:"members"`
	Coverage           float64 `json:"coverage"`
	CoverageRead       float64 `json:"coverage_read"`
	MeanDistance       float64 `json:"mean_distance"`
	MeanSearchDistance float64 `json:"mean_search_distance"`
	MeanSearchRho      float64 `json:"mean_search_rho"`
	MeanShift          float64 `json:"mean_shift"`
}

// TallyOf sums the cases up (Tally).
func TallyOf(cases []Case) Tally {
	var g Tally
	var sure, sureRead int
	var d, ds, rho, shift float64
	for _, c := range cases {
		g.Read++
		if c.Sure {
			sureRead++
		}
		if !c.Member {
			continue
		}
		g.Members++
		ds += float64(c.SearchDistance)
		rho += float64(c.SearchRho)
		if c.Sure {
			sure++
			d += float64(c.Distance)
			shift += float64(c.Shift)
		}
	}
	g.Coverage, g.CoverageRead = ratio(sure, g.Members), ratio(sureRead, g.Read)
	g.MeanDistance, g.MeanShift = mean(d, sure), mean(shift, sure)
	g.MeanSearchDistance, g.MeanSearchRho = mean(ds, g.Members), mean(rho, g.Members)
	return g
}

// CurvePoint is GLOBE-CE's cost–coverage trade-off at one scale of the ladder: the share of members made sure
// of b by a rung up to K (of CurveLadder), and the mean d of those answers.
type CurvePoint struct {
	K            float32 `json:"k"`
	Coverage     float64 `json:"coverage"`
	MeanDistance float64 `json:"mean_distance"`
}

// Results sums the cases up per translation, in the order of ts.
func Results(ts []Translation, cases []Case) []GroupResult {
	var out []GroupResult
	for _, t := range ts {
		var group []Case
		for _, c := range cases {
			if c.From == t.From && c.To == t.To {
				group = append(group, c)
			}
		}
		g := GroupResult{From: t.From, To: t.To, Train: t.Members, Tally: TallyOf(group)}
		for i, k := range CurveLadder {
			n, sum := 0, 0.0
			for _, c := range group {
				if c.Member && c.FirstSure >= 0 && c.FirstSure <= i {
					n++
					sum += float64(c.FirstSureDistance)
				}
			}
			g.Curve = append(g.Curve, CurvePoint{K: k, Coverage: ratio(n, g.Members), MeanDistance: mean(sum, n)})
		}
		out = append(out, g)
	}
	return out
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func mean(sum float64, n int) float64 {
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}
