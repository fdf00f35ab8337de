//go:build !js

package app

import (
	"strings"
	"testing"
)

func TestEmbedSnippet(t *testing.T) {
	for _, c := range []struct{ page, frag, want string }{
		{"https://u.github.io/deltaclue/?workers=2#v2.old", "v2.abc", `src="https://u.github.io/deltaclue/?embed=1#v2.abc"`},
		{"http://127.0.0.1:8080/", "", `src="http://127.0.0.1:8080/?embed=1"`},
		{`https://h/"><script>/`, "v2.x", `src="https://h/&quot;&gt;&lt;script&gt;/?embed=1#v2.x"`},
	} {
		got := EmbedSnippet(c.page, c.frag)
		if !strings.Contains(got, c.want) || !strings.Contains(got, `loading="lazy"`) || !strings.Contains(got, "<iframe ") {
			t.Errorf("EmbedSnippet(%q, %q) = %s; want %s in it", c.page, c.frag, got, c.want)
		}
	}
}
