//go:build !js

package audit

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/deltaclue/deltaclue/engine/clue/figures"
	"github.com/deltaclue/deltaclue/internal/features"
)

// reportRows is report.html for a model of rows: thumbnails draw images, so each item is said in words (its
// cheapest explanation's changes), and a table says which features the model's uncertainty hinges on: how often
// each column is changed by the cheapest sure explanation of the items, by the class read.
func reportRows(h Header, s Summary, recs []Record) ([]byte, error) {
	var b bytes.Buffer
	esc := figures.Escape
	cols, err := h.columns()
	if err != nil {
		return nil, err
	}
	names := cols.Names()
	b.WriteString(reportHead(h))
	fmt.Fprintf(&b, "<p>%d rows read; %d audited (%s), %d of them not explained. δ-CLUE: n = %d, δ = %g, λx = %g, scheme %s, seed %d%s.</p>\n",
		h.Items, h.Audited, selection(h), s.Failed, h.Params.N, h.Params.Delta, h.Params.LambdaX, h.Params.Scheme, h.Params.Seed, lockedText(h))
	b.WriteString(`<p>d is the row distance: the sum over the numbers of |change| in standard deviations, plus the number of categories changed. ` +
		`An explanation is sure when the model's entropy on it is below the threshold.</p>` + "\n")
	if fr := s.Features; fr != nil {
		b.WriteString("<h2>Which features the model's uncertainty hinges on</h2>\n")
		fmt.Fprintf(&b, "<p>For each audited row with a sure explanation, its cheapest one (the smallest d, whichever label) changes these features: the share of those rows, by the class the model reads; d is the feature's mean part of the row distance, and the features are in its order (a number the decoder moves a little in nearly every explanation changes often, for a small d); a number's rises and falls are the mean move in its unit. %.1f features changed on average, d %.2f.</p>\n", fr.All.Sparsity, fr.All.D)
		b.WriteString(`<table><tr><th scope="col">feature</th>`)
		fmt.Fprintf(&b, `<th scope="col">all (%d of %d rows)</th>`, fr.All.Explanations, h.Audited-s.Failed)
		for _, l := range fr.ByLabel {
			fmt.Fprintf(&b, `<th scope="col">read as %s (%d of %d)</th>`, esc(l.Class), l.Tally.Explanations, l.Audited)
		}
		b.WriteString("</tr>\n")
		order := fr.All.Ranked()
		for _, c := range fr.All.Columns {
			if c.Changed == 0 {
				order = append(order, c)
			}
		}
		for _, c := range order {
			at := indexOf(names, c.Column)
			fmt.Fprintf(&b, `<tr><th scope="row">%s</th><td>%s</td>`, esc(c.Column), esc(c.Describe(fr.All.Explanations)))
			for _, l := range fr.ByLabel {
				lc := l.Tally.Columns[at]
				fmt.Fprintf(&b, "<td>%s</td>", esc(lc.Describe(l.Tally.Explanations)))
			}
			b.WriteString("</tr>\n")
		}
		b.WriteString("</table>\n")
	}
	b.WriteString("<h2>Groups: read as a, sure of b nearby</h2>\n")
	b.WriteString(groupChart(s.Groups, 7.5)) // (classes in words: "good → good" at 6.6 px a character was clipped)
	for _, g := range s.Groups {
		fmt.Fprintf(&b, `<section class="group" aria-label="read as %s, sure of %s nearby"><h2>Read as %s → sure of %s nearby: %d rows</h2>
<p>The cheapest explanation towards %s is %.2f away on average, %.2f at least (row distance d).`,
			esc(g.FromClass), esc(g.ToClass), esc(g.FromClass), esc(g.ToClass), g.Items, esc(g.ToClass), g.MeanD, g.MinD)
		if g.Features != nil {
			fmt.Fprintf(&b, " Its largest parts of d: %s (%.1f features changed on average; every feature in summary.json).", esc(g.Features.Words(5)), g.Features.Sparsity)
		}
		b.WriteString("</p><ul>\n")
		for _, k := range g.members[:min(len(g.members), ThumbnailsPerGroup)] {
			r := recs[k]
			row0, err := features.Decode(names, r.Row)
			if err != nil {
				return nil, fmt.Errorf("item %d: %v", r.Item, err)
			}
			for _, re := range r.Reach {
				if re.Label != g.To {
					continue
				}
				row, err := features.Decode(names, re.Row)
				if err != nil {
					return nil, fmt.Errorf("item %d: %v", r.Item, err)
				}
				what := fmt.Sprintf("#%d (%s)", r.Item, esc(r.File))
				if r.Link != "" { // the row in the explainer's page, its set searched anew (-site)
					what = fmt.Sprintf(`<a href="%s" title="open in the explainer">%s</a>`, esc(r.Link), what)
				}
				fmt.Fprintf(&b, "<li>%s, read as %s with H %.2f, d %.2f: %s</li>\n", what, esc(r.Class), r.HTotal, re.Distance,
					esc(features.Arrows(names, row0, row)))
			}
		}
		if len(g.members) > ThumbnailsPerGroup {
			fmt.Fprintf(&b, "<li>and %d more in items.jsonl</li>", len(g.members)-ThumbnailsPerGroup)
		}
		b.WriteString("</ul></section>\n")
	}
	b.WriteString(notAudited(recs))
	b.WriteString("</body></html>\n")
	return b.Bytes(), nil
}

// lockedText is ", locked: Age, Marital" for an audit with locks, else "".
func lockedText(h Header) string {
	if l := h.Params.Lock.Names(); len(l) > 0 {
		return ", locked: " + strings.Join(l, ", ")
	}
	return ""
}

func indexOf(names []string, n string) int {
	for i, m := range names {
		if m == n {
			return i
		}
	}
	return -1
}
