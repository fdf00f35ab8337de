// Package hostmsg reads the messages a page that embeds the explainer posts to its frame (docs/embed.md): a
// share link to open, or an image to explain: the digits' as deltaclue:digit (28×28 intensities), any model's
// input as deltaclue:image (its shape and its values). Messages are untrusted: Read takes any text at
// all (the frame's JSON.stringify of event.data; fuzzed) and says whether it is meant for the frame, and if so
// what it asks or why it cannot be done.
package hostmsg

import (
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"strings"

	"github.com/deltaclue/deltaclue/engine/clue/sharelink"
)

// MaxBytes is the longest message the frame reads for a small input: a digit's 28×28 intensities written out in
// full take about 20 KB. A larger input may take bytesPerValue per value (Shape.MaxBytes).
const MaxBytes = 64 << 10

// bytesPerValue is the most one value of an image message may take written out: "0.123456789012345," is 19.
const bytesPerValue = 24

// Shape is the input the frame's models take: height, width and channels.
type Shape struct{ Height, Width, Channels int }

// Digits is the digits' input, which deltaclue:digit sends.
var Digits = Shape{28, 28, 1}

// Size is the number of values of an input.
func (s Shape) Size() int { return s.Height * s.Width * s.Channels }

// MaxBytes is the longest message the frame reads for inputs of this shape.
func (s Shape) MaxBytes() int { return max(MaxBytes, 1024+bytesPerValue*s.Size()) }

// The message types a host sends.
const (
	Open  = "deltaclue:open"  // {type, link, id?}: open a share link (its address, or the part after #)
	Digit = "deltaclue:digit" // {type, pixels: 28·28 numbers in [0, 1], row by row, id?}: explain this digit
	// {type, height, width, channels, pixels: height·width·channels numbers in [0, 1], channel by channel, each
	// row by row, id?}: explain this input (of the frame's models' shape)
	Image = "deltaclue:image"
	// {type, row: {column: value, …} with every column (a category by its level's name), id?}: explain this row,
	// to a frame whose models read rows (their kind reads it: tablekind)
	Row = "deltaclue:row"
)

// The message types the frame sends.
const (
	Ready = "deltaclue:ready" // the workers are ready
	Done  = "deltaclue:done"  // a set is finished: {type, id?, sentence, label, labels, link}
	Error = "deltaclue:error" // a message could not be done: {type, id?, reason}
)

// Message is what a host asked for.
type Message struct {
	Type  string  // Open, Digit or Image
	Link  string  // Open: the link's fragment (what follows #)
	Input []uint8 // Digit, Image: the input, as a share link carries it (its values quantised)
	// ID is the message's id, to be sent back with what answers it: a string or a number as the host wrote it
	// (JSON), or nil.
	ID json.RawMessage
}

// Read reads a message. forFrame is false for anything not meant for the frame (not an object whose "type" is
// a string beginning "deltaclue:", or one of the frame's own types): the frame ignores it, as other scripts'
// messages pass through the same window. For a message meant for it, err says why it cannot be done, in one
// sentence a host's developer can act on; id is the message's id when it has a usable one. shape is the input
// the frame's models take.
func Read(text string, shape Shape) (m Message, forFrame bool, err error) {
	if limit := shape.MaxBytes(); len(text) > limit {
		// Too large to read: it may still be meant for the frame, which says so rather than stay silent.
		if strings.Contains(text[:min(len(text), 200)], `"deltaclue:`) {
			return Message{}, true, fmt.Errorf("the message is %d bytes long; at most %d are read", len(text), limit)
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
	if m.ID, err = ID(fields); err != nil {
		return m, true, err
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
		if shape != Digits {
			return m, true, fmt.Errorf("%s sends a 28×28 digit, and this frame's models take %s: send %s", Digit, shape, Image)
		}
		var px []float64
		if json.Unmarshal(fields["pixels"], &px) != nil || len(px) != Digits.Size() {
			return m, true, fmt.Errorf(`%s needs "pixels", an array of %d numbers (28 rows of 28 intensities in [0, 1], ink bright)`, Digit, Digits.Size())
		}
		var ink float64
		if m.Input, ink, err = quantize(px); err != nil {
			return m, true, err
		}
		if ink < 1 {
			return m, true, fmt.Errorf("the digit is empty: its intensities add up to %.2f, and there is nothing to explain", ink)
		}
	case Image:
		var got Shape
		for _, f := range []struct {
			name string
			v    *int
		}{{"height", &got.Height}, {"width", &got.Width}, {"channels", &got.Channels}} {
			if json.Unmarshal(fields[f.name], f.v) != nil {
				return m, true, fmt.Errorf(`%s needs "%s", a whole number (this frame's models take %s)`, Image, f.name, shape)
			}
		}
		if got != shape {
			return m, true, fmt.Errorf("the image is %s, and this frame's models take %s: resize it first", got, shape)
		}
		var px []float64
		if json.Unmarshal(fields["pixels"], &px) != nil || len(px) != shape.Size() {
			return m, true, fmt.Errorf(`%s needs "pixels", an array of %d numbers in [0, 1] (channel by channel, each row by row)`, Image, shape.Size())
		}
		if m.Input, _, err = quantize(px); err != nil {
			return m, true, err
		}
	default:
		return m, true, fmt.Errorf("%q is not a message the frame knows: send %q, %q or %q", kind, Open, Image, Digit)
	}
	return m, true, nil
}

// ID is a message's id, to be sent back with what answers it: a string of at most 200 characters or a number as
// the host wrote it (JSON), or nil for none.
func ID(fields map[string]json.RawMessage) (json.RawMessage, error) {
	raw, ok := fields["id"]
	if !ok || string(raw) == "null" {
		return nil, nil
	}
	var s string
	var f float64
	switch {
	case json.Unmarshal(raw, &s) == nil && len(s) <= 200:
	case json.Unmarshal(raw, &f) == nil:
	default:
		return nil, fmt.Errorf("its id must be a string of at most 200 characters or a number")
	}
	return raw, nil
}

// String is the shape in words: "28×28 grey", "32×32 colour".
func (s Shape) String() string {
	kind := "grey"
	if s.Channels == 3 {
		kind = "colour"
	} else if s.Channels != 1 {
		kind = fmt.Sprintf("%d-channel", s.Channels)
	}
	return fmt.Sprintf("%d×%d %s", s.Height, s.Width, kind)
}

// quantize checks values of [0, 1] and rounds them to the k/255 a link holds (as a drawn or uploaded input is);
// it returns their sum.
func quantize(px []float64) ([]uint8, float64, error) {
	var sum float64
	x := make([]float32, len(px))
	for i, v := range px {
		if math.IsNaN(v) || v < 0 || v > 1 {
			return nil, 0, fmt.Errorf("pixel %d is %v: every value must lie in [0, 1] (divide bytes by 255)", i, v)
		}
		x[i] = float32(v)
		sum += v
	}
	return sharelink.Quantize(x), sum, nil
}
