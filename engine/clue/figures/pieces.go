package figures

import "strings"

// Pieces splits an SVG document made by this package into its opening (up to and including the <svg> tag),
// its top-level elements in order (each with the text that follows it), and its closing: opening +
// strings.Join(parts, "") + closing is the document again. The page inserts a large figure a few parts at a
// time (parsing 1000 markers at once blocked its thread for a tenth of a second); the markup is this
// package's own, whose text and attributes escape every '<'. A document it cannot split comes back whole as
// the opening.
func Pieces(svg string) (opening string, parts []string, closing string) {
	start := strings.Index(svg, "<svg")
	end := strings.LastIndex(svg, "</svg>")
	if start < 0 || end < 0 {
		return svg, nil, ""
	}
	open := strings.IndexByte(svg[start:], '>')
	if open < 0 || start+open >= end {
		return svg, nil, ""
	}
	opening, body, closing := svg[:start+open+1], svg[start+open+1:end], svg[end:]
	depth, from := 0, 0
	for i := 0; i < len(body); i++ {
		if body[i] != '<' {
			continue
		}
		gt := strings.IndexByte(body[i:], '>')
		if gt < 0 {
			return svg, nil, ""
		}
		tag := body[i : i+gt+1]
		switch {
		case strings.HasPrefix(tag, "</"):
			depth--
		case strings.HasSuffix(tag, "/>"):
		default:
			depth++
		}
		i += gt
		if depth == 0 { // a top-level element ends here: it takes the text up to the next tag
			next := strings.IndexByte(body[i:], '<')
			if next < 0 {
				next = len(body) - i
			}
			parts = append(parts, body[from:i+next])
			from = i + next
			i += next - 1
		}
		if depth < 0 {
			return svg, nil, ""
		}
	}
	if depth != 0 {
		return svg, nil, ""
	}
	if from < len(body) { // text before the first element, or after the last
		parts = append(parts, body[from:])
	}
	return opening, parts, closing
}
