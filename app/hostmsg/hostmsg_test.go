package hostmsg

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/sharelink"
)

func aLink(t testing.TB) string {
	var img [sharelink.Pixels]uint8
	for i := 300; i < 500; i++ {
		img[i] = 200
	}
	return sharelink.Encode(sharelink.State{Image: img[:], Params: clue.Defaults(), Model: 7, Selected: sharelink.NoSelection})
}

func pixels(v float64) string {
	px := make([]float64, sharelink.Pixels)
	for i := range px {
		px[i] = v
	}
	b, _ := json.Marshal(px)
	return string(b)
}

func TestRead(t *testing.T) {
	link := aLink(t)
	cases := []struct {
		name, text string
		forFrame   bool
		err        string // part of the error, "" for none
		id         string
	}{
		{"open, the fragment", `{"type":"deltaclue:open","link":"` + link + `"}`, true, "", ""},
		{"open, an address, with an id", `{"type":"deltaclue:open","link":"https://x.github.io/d/?embed=1#` + link + `","id":"a1"}`, true, "", `"a1"`},
		{"open, re-encoded by a chat app", `{"type":"deltaclue:open","link":"#` + strings.ReplaceAll(link, ".", "%2E") + `","id":7}`, true, "", "7"},
		{"digit", `{"type":"deltaclue:digit","pixels":` + pixels(0.5) + `}`, true, "", ""},
		{"not JSON", `hello`, false, "", ""},
		{"a string", `"deltaclue:open"`, false, "", ""},
		{"null", `null`, false, "", ""},
		{"an array", `[{"type":"deltaclue:open"}]`, false, "", ""},
		{"another library's message", `{"type":"webpackOk"}`, false, "", ""},
		{"a type that is not a string", `{"type":42}`, false, "", ""},
		{"the frame's own message, echoed", `{"type":"deltaclue:done","sentence":"x"}`, false, "", ""},
		{"an unknown type", `{"type":"deltaclue:explode"}`, true, "not a message the frame knows", ""},
		{"open without a link", `{"type":"deltaclue:open"}`, true, `needs "link"`, ""},
		{"open with a number", `{"type":"deltaclue:open","link":5}`, true, `needs "link"`, ""},
		{"open with a damaged link", `{"type":"deltaclue:open","link":"#v2.garbage","id":"x"}`, true, "cannot be opened", `"x"`},
		{"digit of 783", `{"type":"deltaclue:digit","pixels":` + strings.Replace(pixels(0.5), "0.5,", "", 1) + `}`, true, "784", ""},
		{"digit of bytes", `{"type":"deltaclue:digit","pixels":` + pixels(200) + `}`, true, "[0, 1]", ""},
		{"digit with a string", `{"type":"deltaclue:digit","pixels":` + strings.Replace(pixels(0.5), "0.5", `"a"`, 1) + `}`, true, "784", ""},
		{"digit, empty", `{"type":"deltaclue:digit","pixels":` + pixels(0) + `}`, true, "empty", ""},
		{"an id of an object", `{"type":"deltaclue:open","link":"` + link + `","id":{}}`, true, "id must be", ""},
		{"too large for the frame", `{"type":"deltaclue:open","link":"` + strings.Repeat("a", MaxBytes) + `"}`, true, "at most", ""},
		{"too large, not for the frame", `{"x":"` + strings.Repeat("a", MaxBytes) + `"}`, false, "", ""},
	}
	for _, c := range cases {
		m, forFrame, err := Read(c.text, Digits)
		if forFrame != c.forFrame || (c.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%s: for the frame %v, error %v; want %v, %q", c.name, forFrame, err, c.forFrame, c.err)
		}
		if string(m.ID) != c.id && err == nil {
			t.Errorf("%s: id %s, want %s", c.name, m.ID, c.id)
		}
	}
	m, _, _ := Read(`{"type":"deltaclue:open","link":"https://x/#`+link+`"}`, Digits)
	if m.Link != link {
		t.Errorf("the link read from an address is %q", m.Link)
	}
	m, _, _ = Read(`{"type":"deltaclue:digit","pixels":`+pixels(0.5)+`}`, Digits)
	if m.Input[0] != 128 || m.Input[783] != 128 {
		t.Errorf("0.5 quantised to %d", m.Input[0])
	}
}

// Any model's input comes as deltaclue:image, of the frame's models' shape; deltaclue:digit is the digits' alone.
func TestReadImage(t *testing.T) {
	colour := Shape{2, 3, 3}
	vals := `[0,0.5,1,0,0,0, 0,0,0,0,0,0, 1,1,1,1,1,1]`
	m, forFrame, err := Read(`{"type":"deltaclue:image","height":2,"width":3,"channels":3,"pixels":`+vals+`,"id":"a"}`, colour)
	if !forFrame || err != nil || len(m.Input) != 18 || m.Input[1] != 128 || m.Input[17] != 255 || string(m.ID) != `"a"` {
		t.Fatalf("the image: %v %v %v %s", forFrame, err, m.Input, m.ID)
	}
	for text, want := range map[string]string{
		`{"type":"deltaclue:image","height":3,"width":2,"channels":3,"pixels":` + vals + `}`: "the image is 3×2 colour, and this frame's models take 2×3 colour: resize it first",
		`{"type":"deltaclue:image","height":2,"width":3,"pixels":` + vals + `}`:              `deltaclue:image needs "channels", a whole number (this frame's models take 2×3 colour)`,
		`{"type":"deltaclue:image","height":2,"width":3,"channels":3,"pixels":[1]}`:          `deltaclue:image needs "pixels", an array of 18 numbers in [0, 1]`,
		`{"type":"deltaclue:digit","pixels":` + pixels(0.5) + `}`:                            "deltaclue:digit sends a 28×28 digit, and this frame's models take 2×3 colour: send deltaclue:image",
	} {
		if _, forFrame, err := Read(text, colour); !forFrame || err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%.60s…: %v, want %q", text, err, want)
		}
	}
	// The digits take an image message too, of their shape.
	if m, _, err := Read(`{"type":"deltaclue:image","height":28,"width":28,"channels":1,"pixels":`+pixels(0.5)+`}`, Digits); err != nil || len(m.Input) != 784 {
		t.Errorf("the digits' image message: %v", err)
	}
}

func FuzzRead(f *testing.F) {
	f.Add(`{"type":"deltaclue:image","height":2,"width":2,"channels":3,"pixels":[0,0,0,0,1,1,1,1,0.5,0.5,0.5,0.5]}`)
	f.Add(`{"type":"deltaclue:open","link":"` + aLink(f) + `","id":1}`)
	f.Add(`{"type":"deltaclue:digit","pixels":` + pixels(0.25) + `}`)
	f.Add(`{"type":"deltaclue:digit","pixels":[1e999]}`)
	f.Add(`{"type":"deltaclue:x","id":[]}`)
	f.Fuzz(func(t *testing.T, text string) {
		shape := Digits
		if len(text)%2 == 1 {
			shape = Shape{2, 2, 3}
		}
		m, forFrame, err := Read(text, shape)
		if !forFrame && (err != nil || m.Type != "") {
			t.Fatalf("a message not for the frame came back with %q, %v", m.Type, err)
		}
		if forFrame && err == nil {
			switch m.Type {
			case Open:
				if _, err := sharelink.Decode(m.Link); err != nil {
					t.Fatalf("an open message's link does not decode: %v", err)
				}
			case Digit, Image:
				if len(m.Input) != shape.Size() {
					t.Fatalf("%d values accepted for a %s input", len(m.Input), shape)
				}
			default:
				t.Fatalf("type %q accepted", m.Type)
			}
		}
		if err != nil && (strings.Contains(err.Error(), "\n") || len(err.Error()) > 400) {
			t.Fatalf("error %q is not one short sentence", err)
		}
	})
}
