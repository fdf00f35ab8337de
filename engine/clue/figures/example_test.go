package figures_test

import (
	"fmt"
	"strings"

	"github.com/deltaclue/deltaclue/engine/clue/figures"
)

func ExampleTradeoff() {
	svg := figures.Tradeoff(figures.TradeoffChart{
		Points: []figures.TradeoffPoint{
			{Restart: 0, Label: 9, D: 31.2, H: 0.05, Accepted: true},
			{Restart: 1, Label: 4, D: 44.0, H: 0.12, Accepted: true},
			{Restart: 2, Label: 7, D: 25.5, H: 0.61},
		},
		Fronts:    []figures.Front{{Label: 9, D: []float64{31.2}, H: []float64{0.05}}},
		Threshold: 0.3,
		Selected:  1,
		Title:     "Explanations of digit #1735",
	})
	// The page inserts svg into the DOM; the command writes it to a file.
	fmt.Println(strings.HasPrefix(svg, `<svg xmlns="http://www.w3.org/2000/svg"`))
	fmt.Println(strings.Count(svg, `<g class="pt`), "points,", strings.Count(svg, `class="pt rejected`), "rejected")
	fmt.Println(strings.Contains(svg, `aria-label="restart 1: label 4, d 44.0, H 0.12, selected"`))
	// Output:
	// true
	// 3 points, 1 rejected
	// true
}
