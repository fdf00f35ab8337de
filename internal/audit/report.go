//go:build !js

package audit

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"strings"
	"unicode/utf8"

	"github.com/deltaclue/deltaclue/engine/clue/figures"
)

// ThumbnailsPerGroup bounds the items a group shows in the report.
const ThumbnailsPerGroup = 8

// Report is report.html: a static page, self-contained (thumbnails as data: URIs, the chart inline SVG), that
// a person opens from disk or hosts: the groups a → b largest first, each with thumbnails of its items and their
// cheapest explanation towards b, every item a link into the explainer when the audit was given its address.
func Report(h Header, s Summary, recs []Record) ([]byte, error) {
	if h.Columns != "" {
		return reportRows(h, s, recs)
	}
	var b bytes.Buffer
	esc := figures.Escape
	b.WriteString(reportHead(h))
	fmt.Fprintf(&b, "<p>%d items read, %d unreadable; %d audited (%s), %d of them not explained. δ-CLUE: n = %d, δ = %g, scheme %s, seed %d.</p>\n",
		h.Items, h.Unreadable, h.Audited, selection(h), s.Failed, h.Params.N, h.Params.Delta, h.Params.Scheme, h.Params.Seed)
	b.WriteString(groupChart(s.Groups, 6.6))
	for _, g := range s.Groups {
		fmt.Fprintf(&b, `<section class="group" aria-label="read as %s, sure of %s nearby"><h2>Read as %s → sure of %s nearby: %d items</h2>
<p>The cheapest explanation towards %s is %.1f away on average, %.1f at least (L1 distance d).</p><div class="pairs">`,
			esc(g.FromClass), esc(g.ToClass), esc(g.FromClass), esc(g.ToClass), g.Items, esc(g.ToClass), g.MeanD, g.MinD)
		for _, k := range g.members[:min(len(g.members), ThumbnailsPerGroup)] {
			r := recs[k]
			var cheapest []byte
			for j, re := range r.Reach {
				if re.Label == g.To && j < len(r.Cheapest) {
					cheapest = r.Cheapest[j]
				}
			}
			item, err := thumbnail(r.Image, h)
			if err != nil {
				return nil, err
			}
			expl, err := thumbnail(cheapest, h)
			if err != nil {
				return nil, err
			}
			what := fmt.Sprintf("item %d (%s), read as %s with H %.2f; its cheapest %s at d %.1f", r.Item, r.File, r.Class, r.HTotal, g.ToClass, distanceTo(r, g.To))
			open, close := `<span class="pair">`, `</span>`
			if h.Site != "" {
				open, close = fmt.Sprintf(`<a class="pair" href="%s" title="%s">`, esc(r.Link), esc("open in the explainer: "+what)), `</a>`
			}
			fmt.Fprintf(&b, `%s<img src="%s" alt="%s"><img src="%s" alt="%s"><span>#%d</span>%s`, open, item, esc(what), expl,
				esc("its cheapest explanation, read as "+g.ToClass), r.Item, close)
		}
		if len(g.members) > ThumbnailsPerGroup {
			fmt.Fprintf(&b, "<span>and %d more in items.jsonl</span>", len(g.members)-ThumbnailsPerGroup)
		}
		b.WriteString("</div></section>\n")
	}
	b.WriteString(notAudited(recs))
	b.WriteString("</body></html>\n")
	return b.Bytes(), nil
}

// reportHead is the report's page up to its heading.
func reportHead(h Header) string {
	var b bytes.Buffer
	esc := figures.Escape
	fmt.Fprintf(&b, `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>deltaclue audit: %s</title>
<style>
body{font:15px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1200px;padding:1rem;color:#1a1a1a;background:#fafafa}
h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:2rem}.group h2{margin-top:.25rem}
.group{background:#fff;border:1px solid #ddd;border-radius:8px;padding:.75rem;margin:1rem 0}
.pairs{display:flex;flex-wrap:wrap;gap:.75rem}
.pair{display:flex;gap:2px;align-items:center;text-decoration:none;color:inherit;border:1px solid #ccc;border-radius:6px;padding:3px}
a.pair:focus{outline:3px solid #1a5fb4}
.pair img{width:56px;height:56px;image-rendering:pixelated;background:#fff}
.pair span{font-size:12px;padding:0 4px}
svg text{font:12px system-ui,sans-serif}
table{border-collapse:collapse}td,th{padding:2px 8px;text-align:left;border-bottom:1px solid #eee}
</style></head><body>
<h1>Where the %s model is unsure, and what would make it sure</h1>
`, esc(h.Models), esc(h.Models))
	return b.String()
}

// notAudited is the table of the items not audited (unreadable or not explained), with why; "" when none.
func notAudited(recs []Record) string {
	var b strings.Builder
	esc := figures.Escape
	var unreadable []Record
	for _, r := range recs {
		if r.Item < 0 || r.Error != "" {
			unreadable = append(unreadable, r)
		}
	}
	if len(unreadable) > 0 {
		b.WriteString("<h2>Not audited</h2><table><tr><th>item</th><th>file</th><th>why</th></tr>\n")
		for _, r := range unreadable {
			fmt.Fprintf(&b, "<tr><td>%d</td><td>%s</td><td>%s</td></tr>\n", r.Item, esc(r.File), esc(r.Error))
		}
		b.WriteString("</table>\n")
	}
	return b.String()
}

func selection(h Header) string {
	if h.Top > 0 {
		return fmt.Sprintf("the %d it is least sure of", h.Top)
	}
	return fmt.Sprintf("those with H above %g nats", h.Params.HThreshold)
}

func distanceTo(r Record, label int) float32 {
	for _, re := range r.Reach {
		if re.Label == label {
			return re.Distance
		}
	}
	return 0
}

// groupChart is a horizontal bar per group (at most 20, largest first), its name and count written beside
// it, so that colour is never the only key.
// charW is the width allowed a character of the names (px at 12 px); the images' reports keep their 6.6.
func groupChart(groups []GroupTotal, charW float64) string {
	groups = groups[:min(len(groups), 20)]
	if len(groups) == 0 {
		return "<p>No audited item has an accepted explanation.</p>\n"
	}
	// The names' column as wide as the longest name (about 6.6 px a character at 12 px), the bars 160 px: the
	// chart fits a phone's 358 px at full size for names of up to 11 characters a side, and shrinks a little
	// for longer ones, where a fixed 710 px had halved its text.
	const barW, row = 160, 22
	longest := 0
	for _, g := range groups {
		longest = max(longest, utf8.RuneCountInString(g.FromClass+" → "+g.ToClass))
	}
	left := max(60, int(charW*float64(longest))+8)
	most := groups[0].Items
	var b strings.Builder
	height := row*len(groups) + 10
	fmt.Fprintf(&b, `<svg role="img" aria-labelledby="chart-title" viewBox="0 0 %d %d" width="100%%" style="max-width:%dpx">`+"\n", left+barW+60, height, left+barW+60)
	b.WriteString(`<title id="chart-title">Audited items per group: the label read → a label their explanations reach</title>` + "\n")
	for i, g := range groups {
		y := 5 + i*row
		w := float64(barW) * float64(g.Items) / float64(most)
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%s → %s</text>`, left-6, y+15, figures.Escape(g.FromClass), figures.Escape(g.ToClass))
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"/>`, left, y+3, w, row-6, figures.LabelColour(g.To))
		fmt.Fprintf(&b, `<text x="%.1f" y="%d">%d</text>`+"\n", float64(left)+w+6, y+15, g.Items)
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// thumbnail is a PNG data: URI of a quantised image of the audit's models' input (h's shape; "data:," for none).
func thumbnail(q []byte, h Header) (string, error) {
	w, ht, c := h.Width, h.Height, h.Channels
	if len(q) == 0 || len(q) != w*ht*c {
		return "data:,", nil
	}
	var img image.Image
	if c == 1 { // ink on paper, as the page draws a grey input (1 is black)
		g := image.NewGray(image.Rect(0, 0, w, ht))
		for i, v := range q {
			g.Pix[i] = 255 - v
		}
		img = g
	} else {
		rgba := image.NewRGBA(image.Rect(0, 0, w, ht))
		plane := w * ht
		for i := 0; i < plane; i++ {
			rgba.Set(i%w, i/w, color.RGBA{q[i], q[plane+i], q[2*plane+i], 255})
		}
		img = rgba
	}
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&buf, img); err != nil {
		return "", err
	}
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes()), nil
}
