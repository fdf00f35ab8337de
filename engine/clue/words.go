package clue

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/deltaclue/deltaclue/internal/plural"
	"github.com/deltaclue/deltaclue/weights"
)

// Words are what sentences call the models' classes and one input: the description's class names and noun.
// The zero value is the digits': classes named by their number, an input called a digit.
type Words struct {
	Classes []string // class k's name; a class beyond them is named by its number
	Noun    string   // what one input is called ("digit" when empty)
	// Regression is a predictor's target (nil for a classifier): its classes are ranges of the prediction.
	Regression *weights.Regression
}

// NewWords are the words of a description's classes and noun.
func NewWords(classes []string, noun string) Words { return Words{Classes: classes, Noun: noun} }

// Class is class k's name.
func (w Words) Class(k int) string {
	if k >= 0 && k < len(w.Classes) {
		return w.Classes[k]
	}
	return strconv.Itoa(k)
}

// classes is how many classes there are: the names', or the digits' ten.
func (w Words) classes() int {
	if len(w.Classes) > 0 {
		return len(w.Classes)
	}
	return 10
}

// noun is what one input is called.
func (w Words) noun() string {
	if w.Noun == "" {
		return "digit"
	}
	return w.Noun
}

// AnInput is one input with its article: "a digit".
func (w Words) AnInput() string { return plural.A(w.noun()) }

// A is class k's name with its article ("a 7", "an 8", "an ankle boot").
func (w Words) A(k int) string { return plural.A(inSentence(w.Class(k))) }

// inSentence is a class's name as a sentence writes it after "a": a capitalised word, as Zalando names its
// classes ("Coat", "Ankle boot"), in lower case; a name that is not one (a digit, "T-shirt/top") as it is.
func inSentence(name string) string {
	if len(name) > 1 && name[0] >= 'A' && name[0] <= 'Z' && name[1] >= 'a' && name[1] <= 'z' {
		return string(name[0]+'a'-'A') + name[1:]
	}
	return name
}

// Unanchored says which classes scheme S2 starts no restart toward, and why: the classifier reads no training
// input of them with confidence, so they have no anchors. It is "" when every class has anchors.
func (w Words) Unanchored(classes []int) string {
	if len(classes) == 0 {
		return ""
	}
	names := make([]string, len(classes))
	for i, c := range classes {
		names[i] = w.Class(c)
	}
	if !weights.RegressionLeftOut && w.Regression != nil {
		which, its := "that range", "it has"
		if len(classes) > 1 {
			which, its = "those ranges", "they have"
		}
		return "scheme S2 starts no restart toward " + plural.List(names) + ": the model is sure (σ ≤ " + Figure(w.sure()) +
			") of no training " + w.noun() + " whose measured value lies in " + which + ", so " + its + " no anchors"
	}
	if len(classes) == 1 {
		return "scheme S2 starts no restart toward " + names[0] + ": the classifier reads no training " + w.noun() +
			" of that class with confidence, so it has no anchors"
	}
	return "scheme S2 starts no restart toward " + plural.List(names) + ": the classifier reads no training " + w.noun() +
		" of those classes with confidence, so they have no anchors"
}

// WordsOf are the words of a description: its classes and noun, and for a regression its target (whose
// sentences speak of predicted values and their standard deviations, not of classes and entropies).
func WordsOf(d *weights.Description) Words {
	return Words{Classes: d.Classes, Noun: d.Input.Noun, Regression: d.Regression}
}

// Figure is v to three significant digits, written without an exponent or trailing zeros: 41.3, 0.052, 1230, 8.
func Figure(v float64) string {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	digits := 2 - int(math.Floor(math.Log10(math.Abs(v))))
	if digits < 0 {
		p := math.Pow(10, float64(-digits))
		return strconv.FormatFloat(math.Round(v/p)*p, 'f', 0, 64)
	}
	out := strconv.FormatFloat(v, 'f', digits, 64)
	if strings.Contains(out, ".") { // 8.00 → 8, 2.50 → 2.5
		out = strings.TrimRight(strings.TrimRight(out, "0"), ".")
	}
	return out
}

// Uncertainty is how sure a result is in the model's terms: its entropy ("H 0.24"), or a regression's predictive
// standard deviation ("σ 2.38").
func (w Words) Uncertainty(h float32) string {
	if !weights.RegressionLeftOut && w.Regression != nil {
		return "σ " + Figure(float64(h))
	}
	return fmt.Sprintf("H %.2f", h)
}

// UncertaintyOf is a result's uncertainty with what it predicts: a regression's prediction and σ ("41.3 MPa ±
// 2.38") when its mean is known, else Uncertainty(h).
func (w Words) UncertaintyOf(mean *float32, h float32) string {
	if !weights.RegressionLeftOut && w.Regression != nil && mean != nil {
		return w.Prediction(*mean, h)
	}
	return w.Uncertainty(h)
}
