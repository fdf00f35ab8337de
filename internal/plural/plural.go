// Package plural writes counts with their nouns in correct English: "1 worker", "2 workers", "0 radii".
// The page, the CLI and the engine's summaries all count things in messages to users, so they share it.
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
