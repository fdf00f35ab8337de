// Package address reads the page's address (location.href) into what the page should do with it: the share
// link to open, the number of workers asked for, and, when the address has a fault, one sentence saying what
// was wrong. It also repairs the address into a form net/url parses, because go-app parses location.href with
// url.Parse and dereferences the nil URL it gets for an invalid percent-escape: the page writes the repaired
// address back (history.replaceState) before go-app reads it.
//
// Read works on any string at all (fuzzed) in time linear in its length, and needs no browser.
package address

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/deltaclue/deltaclue/engine/clue/sharelink"
)

// Reading is what an address asks of the page.
type Reading struct {
	// Href is the address in a form url.Parse accepts: the input itself when it parses, else the input with its
	// path and query repaired (invalid percent-escapes and control characters escaped) and a faulty fragment
	// dropped.
	Href string

	// Link is the fragment with its percent-escapes decoded (chat apps and mail clients re-encode links), or ""
	// when there is none or the fragment was dropped.
	Link string

	// Workers is the value of ?workers=, percent-decoded when it decodes and as written when it does not;
	// HasWorkers says whether the query names it at all.
	Workers    string
	HasWorkers bool

	// Embed says that the query asks for the compact layout for another page's frame (?embed=1).
	Embed bool

	// Problem is one sentence saying what was wrong with the address, or "" when nothing was.
	Problem string
}

// MaxFragment is the longest fragment Read decodes: a link of sharelink.MaxLinkLength characters with every
// character percent-escaped. A longer one is dropped with a sentence, so that the page never carries it.
const MaxFragment = 3 * sharelink.MaxLinkLength

// Read reads an address: an absolute URL as location.href gives it.
func Read(href string) Reading {
	var r Reading
	rest, fragment, hasFragment := strings.Cut(href, "#")
	base, query, hasQuery := strings.Cut(rest, "?")

	var problems []string
	if fixed, fault := repair(base, true); fault != "" {
		base = fixed
		problems = append(problems, "path has "+fault+" of the address)")
	}
	if hasQuery {
		r.Workers, r.HasWorkers = paramOf(query, "workers")
		embed, _ := paramOf(query, "embed")
		r.Embed = embed == "1"
		// net/url keeps a query as written, invalid escapes included; only a control character fails it.
		if fixed, fault := repair(query, false); fault != "" {
			query = fixed
			problems = append(problems, "query has "+fault+" of the query)")
		}
	}
	r.Href = base
	if hasQuery {
		r.Href += "?" + query
	}

	if hasFragment {
		if fault := fragmentFault(fragment); fault != "" {
			r.Problem = "The link in the address cannot be opened: " + fault + "."
		} else {
			r.Link = unescape(fragment)
			r.Href += "#" + fragment
		}
	}
	if len(problems) > 0 && r.Problem == "" {
		r.Problem = "The address's " + strings.Join(problems, " and its ") + ", which the page escaped."
	}

	if _, err := url.Parse(r.Href); err != nil {
		// Not an address a browser gives (it has no valid scheme and host, say): nothing of it can be used.
		return Reading{Href: "/", Problem: "The page's address is not a valid web address, so the page ignored it."}
	}
	return r
}

// fragmentFault says what makes a fragment unusable, or "".
func fragmentFault(f string) string {
	if len(f) > MaxFragment {
		return fmt.Sprintf("it is %d characters long, more than a deltaclue link can be (%d)", len(f), sharelink.MaxLinkLength)
	}
	if i, c := control(f); i >= 0 {
		return fmt.Sprintf("it holds a control character (U+%04X at character %d of the link), which no deltaclue link has", c, i+1)
	}
	if i, esc := badEscape(f); i >= 0 {
		return fmt.Sprintf("it has an invalid percent-escape (%q at character %d of the link)", esc, i+1)
	}
	return ""
}

// repair escapes what makes s fail url.Parse: a control character becomes its escape and, if escapes is set, a
// '%' that starts no valid escape becomes "%25". fault describes the first such character, without closing
// its parenthesis ("a control character (U+0001 at character 3"), or is "" when s needed no repair.
func repair(s string, escapes bool) (fixed, fault string) {
	ci, c := control(s)
	ei, esc := -1, ""
	if escapes {
		ei, esc = badEscape(s)
	}
	switch {
	case ci < 0 && ei < 0:
		return s, ""
	case ci >= 0 && (ei < 0 || ci < ei):
		fault = fmt.Sprintf("a control character (U+%04X at character %d", c, ci+1)
	default:
		fault = fmt.Sprintf("an invalid percent-escape (%q at character %d", esc, ei+1)
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; {
		case ch < 0x20 || ch == 0x7f:
			fmt.Fprintf(&b, "%%%02X", ch)
		case escapes && ch == '%' && !(i+2 < len(s) && ishex(s[i+1]) && ishex(s[i+2])):
			b.WriteString("%25")
		default:
			b.WriteByte(ch)
		}
	}
	return b.String(), fault
}

// control returns the index and value of s's first control character (C0 or DEL), or -1.
func control(s string) (int, byte) {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return i, s[i]
		}
	}
	return -1, 0
}

// badEscape returns the index of s's first '%' that starts no valid escape, and that escape as written (up to
// three characters), or -1.
func badEscape(s string) (int, string) {
	for i := strings.IndexByte(s, '%'); i >= 0 && i < len(s); {
		if i+2 < len(s) && ishex(s[i+1]) && ishex(s[i+2]) {
			j := strings.IndexByte(s[i+3:], '%')
			if j < 0 {
				break
			}
			i += 3 + j
			continue
		}
		return i, s[i:min(i+3, len(s))]
	}
	return -1, ""
}

func ishex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// unescape decodes a string whose escapes are all valid (badEscape found none).
func unescape(s string) string {
	if strings.IndexByte(s, '%') < 0 {
		return s
	}
	u, err := url.PathUnescape(s)
	if err != nil {
		return s
	}
	return u
}

// paramOf finds name= in a query: its value decoded when it decodes, as written otherwise (so that
// "?workers=%zz" is reported like "?workers=abc", not ignored). The first occurrence counts, as with
// url.Values.Get and URLSearchParams.get.
func paramOf(query, name string) (string, bool) {
	for _, kv := range strings.Split(query, "&") {
		k, v, _ := strings.Cut(kv, "=")
		if k, err := url.QueryUnescape(k); err != nil || k != name {
			continue
		}
		if d, err := url.QueryUnescape(v); err == nil {
			return d, true
		}
		return v, true
	}
	return "", false
}
