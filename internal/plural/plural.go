// Package plural writes counts with their nouns in correct English: "1 worker", "2 workers", "0 radii", and a
// noun or a name with its article: "a sketch", "an 8". The page, the CLI, the image reader and the engine's
// summaries all write them in messages to users, so they share it.
package plural

import (
	"strconv"
	"strings"
)

// Count writes n and the noun in the form n takes: "1 worker", "2 workers". The plural is the noun with
// an "s", or the irregular form when one is given: Count(3, "radius", "radii") is "3 radii".
func Count(n int, noun string, irregular ...string) string {
	return strconv.Itoa(n) + " " + Word(n, noun, irregular...)
}

// Word is the noun alone in the form n takes, for counts written apart from their noun ("4 of 100 restarts",
// where the noun agrees with 100): Word(1, "restart") is "restart", Word(100, "restart") "restarts". The
// regular plural adds "es" after a hissing end (s, x, z, ch, sh: "sketches") and makes a consonant's "y" "ies"
// ("entries"), so that a noun a model's description gives (what one input is called) reads right.
func Word(n int, noun string, irregular ...string) string {
	if n == 1 || n == -1 {
		return noun
	}
	if len(irregular) > 0 {
		return irregular[0]
	}
	for _, end := range []string{"s", "x", "z", "ch", "sh"} {
		if strings.HasSuffix(noun, end) {
			return noun + "es"
		}
	}
	if len(noun) > 1 && noun[len(noun)-1] == 'y' && !strings.ContainsRune("aeiouAEIOU", rune(noun[len(noun)-2])) {
		return noun[:len(noun)-1] + "ies"
	}
	return noun + "s"
}

// Of writes "k of n nouns", the noun agreeing with n: Of(4, 100, "restart") is "4 of 100 restarts",
// Of(1, 1, "restart") "1 of 1 restart".
func Of(k, n int, noun string, irregular ...string) string {
	return strconv.Itoa(k) + " of " + Count(n, noun, irregular...)
}

// A is a noun or a name with its indefinite article: "an" before a vowel sound (the numbers 8, 11, 18 and
// 80–89, as the digits' names are read, and words that start with a vowel: "an ankle boot"), else "a" ("a 7",
// "a sketch").
func A(name string) string {
	if n, err := strconv.Atoi(name); err == nil {
		if n == 8 || n == 11 || n == 18 || (n >= 80 && n <= 89) {
			return "an " + name
		}
		return "a " + name
	}
	if name != "" && strings.ContainsRune("aeiouAEIOU", rune(name[0])) {
		return "an " + name
	}
	return "a " + name
}

// List joins words as a sentence lists them: "a", "a and b", "a, b and c".
func List(words []string) string {
	switch len(words) {
	case 0:
		return ""
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// Or joins alternatives as a sentence offers them: "a", "a or b", "a, b or c".
func Or(words []string) string {
	switch len(words) {
	case 0:
		return ""
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}
