package app

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// sentence makes a message from the workers or the engine (Go errors: lower case, no full stop) a sentence for
// the page: capitalised, ended with a full stop.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	s = string(unicode.ToUpper(r)) + s[n:]
	return endSentence(s)
}

// endSentence ends a clause with a full stop unless it has one (or a ? or !).
func endSentence(s string) string {
	if strings.HasSuffix(s, ".") || strings.HasSuffix(s, "?") || strings.HasSuffix(s, "!") {
		return s
	}
	return s + "."
}
