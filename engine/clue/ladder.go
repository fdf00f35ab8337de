package clue

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Ladder is a δ sweep's plan: the radii to search, smallest first, and the restarts at each.
type Ladder struct {
	Radii []float64 `json:"radii"`
	N     int       `json:"n"` // restarts per radius
}

// MaxRadii is the most radii a ladder may hold.
const MaxRadii = 12

// DefaultLadder is δ = 0.5, 1, …, 4 with n = 50 at each.
func DefaultLadder() Ladder {
	return Ladder{Radii: []float64{0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4}, N: 50}
}

// Validate checks the ladder: 1 to MaxRadii radii, each a number in (0, 20] (the range of δ), strictly
// increasing, and n from 1 to 1000. Its error names what is wrong in a sentence.
func (l Ladder) Validate() error {
	if len(l.Radii) == 0 {
		return &ParamError{"ladder", "", "give at least one radius"}
	}
	if len(l.Radii) > MaxRadii {
		return &ParamError{"ladder", len(l.Radii), fmt.Sprintf("at most %d radii", MaxRadii)}
	}
	for i, r := range l.Radii {
		if !finite(r) || r <= 0 || r > 20 {
			return &ParamError{"ladder", r, "every radius must be a number in (0, 20]"}
		}
		if i > 0 && r <= l.Radii[i-1] {
			return &ParamError{"ladder", r, "the radii must increase"}
		}
	}
	if l.N < 1 || l.N > 1000 {
		return &ParamError{"ladder n", l.N, "must be a whole number from 1 to 1000"}
	}
	return nil
}

// ParseRadii reads radii written as numbers separated by commas or spaces ("0.5, 1, 1.5"), or a range
// "0.5:4:0.5" (first:last:step). It checks only that each is a number; Validate checks the rest.
func ParseRadii(s string) ([]float64, error) {
	s = strings.TrimSpace(s)
	if parts := strings.Split(s, ":"); len(parts) == 3 {
		var v [3]float64
		for i, p := range parts {
			f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
			if err != nil || !finite(f) {
				return nil, &ParamError{"ladder", s, fmt.Sprintf("%q is not a number", strings.TrimSpace(p))}
			}
			v[i] = f
		}
		if v[2] <= 0 || v[1] < v[0] {
			return nil, &ParamError{"ladder", s, "a range first:last:step needs first ≤ last and a positive step"}
		}
		count := math.Floor((v[1]-v[0])/v[2]+1e-9) + 1
		if count > MaxRadii {
			return nil, &ParamError{"ladder", s, fmt.Sprintf("that range has %.0f radii, at most %d are allowed", count, MaxRadii)}
		}
		var out []float64
		for i := 0; i < int(count); i++ {
			// Rounded to 12 significant digits so that 0.1-steps read back as written.
			r, _ := strconv.ParseFloat(strconv.FormatFloat(v[0]+float64(i)*v[2], 'g', 12, 64), 64)
			out = append(out, r)
		}
		return out, nil
	}
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == ';' || r == '\t' })
	if len(fields) == 0 {
		return nil, &ParamError{"ladder", s, "give at least one radius"}
	}
	out := make([]float64, len(fields))
	for i, f := range fields {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil || !finite(v) {
			return nil, &ParamError{"ladder", f, fmt.Sprintf("%q is not a number", f)}
		}
		out[i] = v
	}
	return out, nil
}

// FormatRadii writes radii as ParseRadii reads them: "0.5, 1, 1.5".
func FormatRadii(radii []float64) string {
	parts := make([]string, len(radii))
	for i, r := range radii {
		parts[i] = strconv.FormatFloat(r, 'g', -1, 64)
	}
	return strings.Join(parts, ", ")
}
