package app

import (
	"strings"
	"testing"

	"github.com/deltaclue/deltaclue/weights"
)

// The site's resolver leaves URLs with a scheme alone (go-app's prefixed data: URLs under a sub-path) and
// resolves the site's own paths as go-app does.
func TestResources(t *testing.T) {
	h := Handler("demo", "v", []SiteModels{{Description: weights.DigitsDescription(), Gallery: true, Global: true}})
	for in, want := range map[string]string{
		"data:image/png;base64,iVBORw0KGgo=": "data:image/png;base64,iVBORw0KGgo=",
		"blob:https://x/1":                   "blob:https://x/1",
		"https://arxiv.org/abs/2104.06323":   "https://arxiv.org/abs/2104.06323",
		"mailto:a@b.c":                       "mailto:a@b.c",
		"/web/app.wasm":                      "/demo/web/app.wasm",
		"/app.js":                            "/demo/app.js",
		"/":                                  "/demo",
		"#grid":                              "#grid",
		"?workers=2":                         "?workers=2",
	} {
		if got := h.Resources.Resolve(in); got != want {
			t.Errorf("%q resolves to %q, want %q", in, got, want)
		}
	}
	for s, want := range map[string]bool{"data:x": true, "a+b-c.d:x": true, "web/x:y": false, ":x": false, "1a:x": false, "": false, "/x": false} {
		if hasScheme(s) != want {
			t.Errorf("hasScheme(%q) = %v", s, !want)
		}
	}
}

// TestCompactJS: indentation, blank lines and whole-line comments go; a copyright block at the top stays when
// asked; code, and a comment after code, are left as they are; the compacted Go wasm_exec.js still defines Go.
func TestCompactJS(t *testing.T) {
	js := "// Copyright 2018 The Go Authors.\n// BSD-style.\n\n\"use strict\";\n(() => {\n\t// why\n\tconst a = \"x // y\"; // note\n\n\treturn a;\n})();\n"
	if got, want := CompactJS(js, true), "// Copyright 2018 The Go Authors.\n// BSD-style.\n\"use strict\";\n(() => {\nconst a = \"x // y\"; // note\nreturn a;\n})();\n"; got != want {
		t.Errorf("CompactJS(keepHead) =\n%s\nwant\n%s", got, want)
	}
	if got := CompactJS(js, false); strings.Contains(got, "Copyright") || !strings.HasPrefix(got, "\"use strict\";") {
		t.Errorf("CompactJS(drop head) =\n%s", got)
	}
}

// TestStripCSSComments: comments go, quoted text that looks like one stays, and so does every rule.
func TestStripCSSComments(t *testing.T) {
	in := "/* a */\na { b: c; } /* d\n e */\n\n.x::before { content: \"/* not */\"; }\n.y { content: '\\'/*'; }\n"
	want := "a { b: c; } \n.x::before { content: \"/* not */\"; }\n.y { content: '\\'/*'; }\n"
	if got := StripCSSComments(in); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
