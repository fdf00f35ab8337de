package app

import "testing"

func TestSentence(t *testing.T) {
	for in, want := range map[string]string{
		"the image is empty: there is nothing to explain": "The image is empty: there is nothing to explain.",
		"élan vital.": "Élan vital.",
		"":            "",
		"why?":        "Why?",
	} {
		if got := sentence(in); got != want {
			t.Errorf("sentence(%q) = %q, want %q", in, got, want)
		}
	}
}
