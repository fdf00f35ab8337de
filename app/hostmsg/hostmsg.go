// Package hostmsg reads the messages a page that embeds the explainer posts to its frame (docs/embed.md): a
// share link to open, or a digit as 784 intensities to explain. Messages are untrusted: Read takes any text at
// all (the frame's JSON.stringify of event.data; fuzzed) and says whether it is meant for the frame, and if so
// what it asks or why it cannot be done.
package hostmsg

import (
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"strings"

	"github.com/deltaclue/deltaclue/app/sharelink"
)

// MaxBytes is the longest message the frame reads: a digit of 784 intensities written out in full takes about
// 20 KB.
const MaxBytes = 64 << 10

// The message types a host sends.
const (
	Open  = "deltaclue:open"  // {type, link, id?}: open a share link (its address, or the part after #)
	Digit = "deltaclue:digit" // {type, pixels: 784 numbers in [0, 1], row by row, id?}: explain this digit
)

// The message types the frame sends.
const (
	Ready = "deltaclue:ready" // the workers are ready
	Done  = "deltaclue:done"  // a set is finished: {type, id?, sentence, label, labels, link}
	Error = "deltaclue:error" // a message could not be done: {type, id?, reason}
)

// Message is what a host asked for.
type Message struct {
	Type   string  // Open or Digit
	Link   string  // Open: the link's fragment (what follows #)
	Pixels []uint8 // Digit: the intensities, quantised as a share link holds them
	// ID is the message's id, to be sent back with what answers it: a string or a number as the host wrote it
	// (JSON), or nil.
	ID json.RawMessage
}

// Read reads a message. forFrame is false for anything not meant for the frame (not an object whose "type" is
// a string beginning "deltaclue:", or one of the frame's own types): the frame ignores it, as other scripts'
// messages pass through the same window. For a message meant for it, err says why it cannot be done, in one
// sentence a host's developer can act on; id is the message's id when it has a usable one.
func Read(text string) (m Message, forFrame bool, err error) {
	if len(text) > MaxBytes {
		// Too large to read: it may still be meant for the frame, which says so rather than stay silent.
		if strings.Contains(text[:min(len(text), 200)], `"deltaclue:`) {
			return Message{}, true, fmt.Errorf("the message is %d bytes long; at most %d are read", len(text), MaxBytes)
		}
		return Message{}, false, nil
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal([]byte(text), &fields) != nil {
		return Message{}, false, nil
	}
	var kind string
	if json.Unmarshal(fields["type"], &kind) != nil || !strings.HasPrefix(kind, "deltaclue:") {
		return Message{}, false, nil
	}
	switch kind {
	case Ready, Done, Error:
		return Message{}, false, nil
	}
	m.Type = kind
	if raw, ok := fields["id"]; ok && string(raw) != "null" {
		var s string
		var f float64
		switch {
		case json.Unmarshal(raw, &s) == nil && len(s) <= 200:
		case json.Unmarshal(raw, &f) == nil:
		default:
			return m, true, fmt.Errorf("its id must be a string of at most 200 characters or a number")
		}
		m.ID = raw
	}
	switch kind {
	case Open:
		var link string
		if json.Unmarshal(fields["link"], &link) != nil || link == "" {
			return m, true, fmt.Errorf(`%s needs "link", a share link (its address or the part after #) as a string`, Open)
		}
		if _, frag, ok := strings.Cut(link, "#"); ok {
			link = frag
		}
		if _, err := sharelink.Decode(link); err != nil {
			// A link a chat app or a mail client re-encoded opens as it does in the address bar.
			if u, uerr := url.PathUnescape(link); uerr == nil && u != link {
				if _, err2 := sharelink.Decode(u); err2 == nil {
					link, err = u, nil
				}
			}
			if err != nil {
				return m, true, fmt.Errorf("the link cannot be opened: %v", err)
			}
		}
		m.Link = link
	case Digit:
		var px []float64
		if json.Unmarshal(fields["pixels"], &px) != nil || len(px) != sharelink.Pixels {
			return m, true, fmt.Errorf(`%s needs "pixels", an array of %d numbers (28 rows of 28 intensities in [0, 1], ink bright)`, Digit, sharelink.Pixels)
		}
		var ink float64
		x := make([]float32, len(px))
		for i, v := range px {
			if math.IsNaN(v) || v < 0 || v > 1 {
				return m, true, fmt.Errorf("pixel %d is %v: every intensity must lie in [0, 1] (divide bytes by 255)", i, v)
			}
			x[i] = float32(v)
			ink += v
		}
		m.Pixels = sharelink.Quantize(x) // as a drawn or uploaded digit is
		if ink < 1 {
			return m, true, fmt.Errorf("the digit is empty: its intensities add up to %.2f, and there is nothing to explain", ink)
		}
	default:
		return m, true, fmt.Errorf("%q is not a message the frame knows: send %q or %q", kind, Open, Digit)
	}
	return m, true, nil
}
