package clue

import (
	"math"
	"reflect"
	"testing"
)

// TestCARLAOfHandComputed checks CARLA's exact measures on results worked out by hand.
func TestCARLAOfHandComputed(t *testing.T) {
	x0 := make([]float32, 784)
	x0[2] = 0.25
	img := func(set map[int]float32) []float32 {
		x := append([]float32(nil), x0...)
		for k, v := range set {
			x[k] = v
		}
		return x
	}
	exps := []Explanation{
		{Restart: 0, Label: 3, Image: img(map[int]float32{0: 0.9})}, // x0's label: not valid, however sure
		// Changed: pixel 0 by 0.5, pixel 1 by 2e-5 (beyond 1e-5: CARLA counts it, our L0 does not), pixel 2
		// by −0.25; pixel 3 by 5e-6 (within 1e-5). L1 = 0.750025, L2 = 0.25 + 4e-10 + 0.0625 + 2.5e-11.
		{Restart: 1, Label: 5, Image: img(map[int]float32{0: 0.5, 1: 2e-5, 2: 0, 3: 5e-6})},
		{Restart: 2, Failed: "NaN"},
		{Restart: 3, Label: 7, Image: img(nil)}, // valid (label changed) with no pixel changed
	}
	c := CARLAOf(x0, 3, exps)
	if c.Valid != 2 || c.Validity != 0.5 || c.YNN != -1 {
		t.Fatalf("valid %d, validity %v, yNN %v; want 2, 0.5, -1", c.Valid, c.Validity, c.YNN)
	}
	near := func(got, want float64) bool { return math.Abs(got-want) < 1e-7 }
	if c.L0.Min != 0 || c.L0.Max != 3 || c.L0.Mean != 1.5 {
		t.Errorf("L0 %+v, want 0 / 1.5 / 3", c.L0)
	}
	if !near(c.L1.Max, 0.750025) || c.L1.Min != 0 {
		t.Errorf("L1 %+v, want max 0.750025", c.L1)
	}
	if !near(c.L2.Max, 0.3125) || !near(c.L2.Mean, 0.15625) {
		t.Errorf("L2 %+v, want max 0.3125 (Σ squares, no root), mean 0.15625", c.L2)
	}
	if c := CARLAOf(x0, 3, exps[:1]); c.Valid != 0 || c.Validity != 0 || c.L0 != (Stat{}) {
		t.Errorf("nothing valid: %+v", c)
	}
}

// TestCARLAYNNHandComputed checks CARLA's yNN on four one-pixel data points labelled 5, 4, 5, 5 by "the model".
func TestCARLAYNNHandComputed(t *testing.T) {
	data := make([]float32, 4*784)
	for i := 0; i < 4; i++ {
		data[i*784] = float32(i)
	}
	var asked []int
	nd := NeighbourData{Images: data, Name: "four points", Labels: func(idx []int) []int {
		asked = append(asked, idx...)
		out := make([]int, len(idx))
		for k, i := range idx {
			out[k] = []int{5, 4, 5, 5}[i]
		}
		return out
	}}
	point := func(label int, v float32) Explanation {
		x := make([]float32, 784)
		x[0] = v
		return Explanation{Label: label, Image: x}
	}
	exps := []Explanation{
		point(5, 0.1), // nearest two: points 0 (label 5) and 1 (label 4): 1/2
		point(4, 2.9), // nearest two: points 3 and 2, both 5: 0/2
		point(9, 9),   // x0's label: not valid, not counted
		{Failed: "NaN"},
	}
	var c CARLA
	c.SetYNN(9, exps, nd, 2)
	if c.YNN != 0.25 || c.YNNData != "four points" {
		t.Errorf("yNN %v over %q, want 0.25 over four points", c.YNN, c.YNNData)
	}
	if !reflect.DeepEqual(asked, []int{0, 1, 2, 3}) {
		t.Errorf("labelled %v, want each neighbour once, in order", asked)
	}
	// A tie in distance goes to the lower index.
	c.SetYNN(9, []Explanation{point(4, 0.5)}, nd, 1)
	if c.YNN != 0 {
		t.Errorf("tie between points 0 (label 5) and 1 (label 4): yNN %v, want 0 (point 0)", c.YNN)
	}
	c = CARLA{YNN: -1}
	c.SetYNN(9, exps[2:], nd, 2)
	if c.YNN != -1 {
		t.Errorf("nothing valid: yNN %v, want -1", c.YNN)
	}
}
