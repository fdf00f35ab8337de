package clue

import "testing"

// Sentences name classes and inputs as the description does; the zero Words are the digits' (their numbers).
func TestWords(t *testing.T) {
	for _, c := range []struct {
		w    Words
		k    int
		want string
	}{
		{Words{}, 7, "a 7"}, {Words{}, 8, "an 8"}, {Words{}, 11, "an 11"}, {Words{}, 83, "an 83"}, {Words{}, 3, "a 3"},
		{NewWords([]string{"T-shirt/top", "ankle boot"}, "garment"), 1, "an ankle boot"},
		{NewWords([]string{"T-shirt/top", "ankle boot"}, "garment"), 0, "a T-shirt/top"},
		{NewWords([]string{"cat", "dog"}, "photo"), 5, "a 5"},
		// Zalando's names, capitalised, go in lower case inside a sentence; a name that is not a capitalised word stays.
		{NewWords([]string{"Coat", "Ankle boot", "T-shirt/top"}, "garment"), 0, "a coat"},
		{NewWords([]string{"Coat", "Ankle boot", "T-shirt/top"}, "garment"), 1, "an ankle boot"},
		{NewWords([]string{"Coat", "Ankle boot", "T-shirt/top"}, "garment"), 2, "a T-shirt/top"},
	} {
		if got := c.w.A(c.k); got != c.want {
			t.Errorf("A(%d) = %q, want %q", c.k, got, c.want)
		}
	}
	w := NewWords([]string{"cat", "dog", "owl"}, "photo")
	got := w.DescribeReaches([]Reach{{Label: 2, Delta: 1}}, Ladder{Radii: []float64{1, 2}}, 0)
	if want := "Up to δ = 2: a confident owl is 1 away; no other label appears (1 of 3 does)."; got != want {
		t.Errorf("reaches: %q, want %q", got, want)
	}
	if got := w.DescribeReaches(nil, Ladder{Radii: []float64{4}}, 0); got != "Up to δ = 4, no restart reached a photo the model is sure of: try larger radii or a higher threshold." {
		t.Errorf("no reaches: %q", got)
	}
}
