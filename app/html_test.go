package app

import "testing"

// TestHTMLTextEscapes: text and attribute values cannot close their element or attribute, or start markup.
func TestHTMLTextEscapes(t *testing.T) {
	var h htmlText
	h.open("div", "id", `a"b`, "title", "x<y & z>'w'")
	h.elem("td", `1 < 2 & "3" </td><script>`)
	h.close("div")
	want := `<div id="a&#34;b" title="x&lt;y &amp; z&gt;&#39;w&#39;"><td>1 &lt; 2 &amp; &#34;3&#34; &lt;/td&gt;&lt;script&gt;</td></div>`
	if got := h.String(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
