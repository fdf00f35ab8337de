// Raw HTML for the page's static blocks (tables of numbers), which go-app would mount one element, attribute
// and text at a time through JavaScript calls.

package app

import (
	"html"
	"strings"
)

// htmlText builds HTML, escaping every text and attribute value.
type htmlText struct{ strings.Builder }

// open writes a start tag with its attributes, given as name, value pairs.
func (h *htmlText) open(tag string, attrs ...string) {
	h.WriteByte('<')
	h.WriteString(tag)
	for i := 0; i+1 < len(attrs); i += 2 {
		h.WriteByte(' ')
		h.WriteString(attrs[i])
		h.WriteString(`="`)
		h.WriteString(html.EscapeString(attrs[i+1]))
		h.WriteByte('"')
	}
	h.WriteByte('>')
}

// close writes an end tag.
func (h *htmlText) close(tag string) {
	h.WriteString("</")
	h.WriteString(tag)
	h.WriteByte('>')
}

// elem writes an element holding text.
func (h *htmlText) elem(tag, text string, attrs ...string) {
	h.open(tag, attrs...)
	h.WriteString(html.EscapeString(text))
	h.close(tag)
}
