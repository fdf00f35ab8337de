package address

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/sharelink"
)

const site = "https://user.github.io/repo/"

func link(t testing.TB) string {
	t.Helper()
	var img [sharelink.Pixels]uint8
	for i := 300; i < 420; i++ {
		img[i] = 255
	}
	return sharelink.Encode(sharelink.State{Image: img[:], Params: clue.Defaults(), Model: 7, Selected: sharelink.NoSelection})
}

func TestRead(t *testing.T) {
	good := link(t)
	cases := []struct {
		href, link, workers, problem, fixed string
		hasWorkers                          bool
	}{
		{href: site},
		{href: site + "#" + good, link: good},
		{href: site + "?workers=2#" + good, link: good, workers: "2", hasWorkers: true},
		// A chat app's re-encoding: valid escapes are decoded.
		{href: site + "#v2%2E" + good[3:], link: good, fixed: site + "#v2%2E" + good[3:]},
		{href: site + "#%zz", problem: `The link in the address cannot be opened: it has an invalid percent-escape ("%zz" at character 1 of the link).`, fixed: site},
		{href: site + "#v1.%4", problem: `it has an invalid percent-escape ("%4" at character 4 of the link)`, fixed: site},
		{href: site + "#%E0%A4%A", problem: `("%A" at character 7 of the link)`, fixed: site},
		{href: site + "?workers=1#%zz", workers: "1", hasWorkers: true, problem: `"%zz"`, fixed: site + "?workers=1"},
		{href: site + "?workers=%zz", workers: "%zz", hasWorkers: true},
		{href: site + "?workers=abc&workers=2", workers: "abc", hasWorkers: true},
		{href: site + "?a=1&workers=%203", workers: " 3", hasWorkers: true},
		{href: site + "#a\x01b", problem: "control character (U+0001 at character 2 of the link)", fixed: site},
		{href: site + "%zz/#" + good, link: good, problem: `The address's path has an invalid percent-escape ("%zz" at character 29 of the address), which the page escaped.`, fixed: "https://user.github.io/repo/%25zz/#" + good},
		{href: site + "?q=\x7f", problem: "The address's query has a control character (U+007F at character 3 of the query), which the page escaped.", fixed: site + "?q=%7F"},
		{href: site + "#" + strings.Repeat("A", MaxFragment+1), problem: "it is 24577 characters long, more than a deltaclue link can be (8192)", fixed: site},
		{href: "http://[::1/#%zz", problem: "not a valid web address", fixed: "/"},
	}
	for _, c := range cases {
		r := Read(c.href)
		name := c.href[:min(len(c.href), 60)]
		if c.fixed == "" {
			c.fixed = c.href
		}
		if r.Href != c.fixed || r.Link != c.link || r.Workers != c.workers || r.HasWorkers != c.hasWorkers {
			t.Errorf("%q: got href %.80q link %.20q workers %q %v, want %.80q %.20q %q %v", name, r.Href, r.Link, r.Workers, r.HasWorkers,
				c.fixed, c.link, c.workers, c.hasWorkers)
		}
		if (c.problem == "") != (r.Problem == "") || !strings.Contains(r.Problem, c.problem) {
			t.Errorf("%q: problem %q, want one containing %q", name, r.Problem, c.problem)
		}
		if r.Problem != "" && (strings.Count(r.Problem, ". ") > 0 || !strings.HasSuffix(r.Problem, ".") || r.Problem[0] < 'A' || r.Problem[0] > 'Z') {
			t.Errorf("%q: %q is not one capitalised sentence", name, r.Problem)
		}
	}
}

// TestReadPathSentence: faults in the path and the query make one sentence.
func TestReadPathSentence(t *testing.T) {
	r := Read(site + "%zz/?q=%1\x02")
	want := `The address's path has an invalid percent-escape ("%zz" at character 29 of the address) and its query has a control character (U+0002 at character 5 of the query), which the page escaped.`
	if r.Problem != want || r.Href != "https://user.github.io/repo/%25zz/?q=%1%02" {
		t.Errorf("got %q %q\nwant %q", r.Href, r.Problem, want)
	}
}

// TestReadLarge: a 2 MB address of every kind is read in linear time: about 0.15 s natively on a quiet machine.
// The bound is loose (a loaded machine, WASM under Node) but catches anything quadratic, which would take hours.
func TestReadLarge(t *testing.T) {
	big := strings.Repeat("%zz", 700_000)
	for _, href := range []string{site + "#" + big, site + "?workers=" + big, site + big, site + "#" + strings.Repeat("%41", 700_000)} {
		start := time.Now()
		r := Read(href)
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("a %d-byte address took %s", len(href), d)
		}
		t.Logf("%d bytes in %s", len(href), time.Since(start))
		if _, err := url.Parse(r.Href); err != nil || r.Problem == "" && strings.Contains(href, "/%zz") {
			t.Errorf("%.40q: %v, problem %q", href, err, r.Problem)
		}
	}
}

func FuzzRead(f *testing.F) {
	good := link(f)
	for _, s := range []string{site, site + "#" + good, site + "#%zz", site + "#v1.%4", site + "#%E0%A4%A", site + "?workers=1#%zz",
		site + "?workers=%zz", site + "%zz", site + "#a\x00", "http://[::1", "", "#", "?", "%", site + "#v2%2E" + good[3:]} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, href string) {
		start := time.Now()
		r := Read(href)
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("%d bytes took %s", len(href), d)
		}
		u, err := url.Parse(r.Href)
		if err != nil {
			t.Fatalf("the repaired address %q does not parse: %v", r.Href, err)
		}
		// The repaired address is a fixed point, and go-app's view of it agrees with the page's.
		again := Read(r.Href)
		if again.Href != r.Href || again.Link != r.Link {
			t.Fatalf("Read is not idempotent on %q: %q %q", href, again.Href, again.Link)
		}
		if u.Fragment != r.Link {
			t.Fatalf("url.Parse reads the fragment %q, the page %q", u.Fragment, r.Link)
		}
		if r.Problem != "" && (r.Problem[0] < 'A' || r.Problem[0] > 'Z' || !strings.HasSuffix(r.Problem, ".")) {
			t.Fatalf("problem %q is not a capitalised sentence", r.Problem)
		}
		if r.Problem == "" && r.Href != href {
			t.Fatalf("%q was changed to %q without a word", href, r.Href)
		}
		// A valid link survives re-encoding: every character percent-escaped opens the same link.
		if r.Link != "" && len(r.Link) <= sharelink.MaxLinkLength && !strings.ContainsAny(r.Link, "\x00") {
			var b strings.Builder
			for i := 0; i < len(r.Link); i++ {
				b.WriteString("%" + strings.ToUpper(string("0123456789abcdef"[r.Link[i]>>4])+string("0123456789abcdef"[r.Link[i]&15])))
			}
			base, _, _ := strings.Cut(r.Href, "#")
			if re := Read(base + "#" + b.String()); re.Link != r.Link {
				t.Fatalf("re-encoded, link %q reads as %q", r.Link, re.Link)
			}
		}
	})
}

func TestReadEmbed(t *testing.T) {
	for href, want := range map[string]bool{
		"https://x.github.io/d/?embed=1#v2.abc":        true,
		"https://x.github.io/d/?workers=1&embed=1":     true,
		"https://x.github.io/d/?embed=%31":             true,
		"https://x.github.io/d/?embed=0":               false,
		"https://x.github.io/d/?embed=1x":              false,
		"https://x.github.io/d/?embed":                 false,
		"https://x.github.io/d/#embed=1":               false,
		"https://x.github.io/d/?embed=2&embed=1":       false, // the first counts
		"https://x.github.io/d/?q=%zz&embed=1#v2.junk": true,
	} {
		if got := Read(href).Embed; got != want {
			t.Errorf("%q: embed %v, want %v", href, got, want)
		}
	}
}
