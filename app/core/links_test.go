package core

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/sharelink"
	"github.com/deltaclue/deltaclue/wasm/worker/searchworker"
)

func fragment(model uint32) string {
	var img [sharelink.Pixels]uint8
	for i := 200; i < 600; i += 3 {
		img[i] = 200
	}
	return sharelink.Encode(sharelink.State{Image: img[:], Params: clue.Defaults(), Model: model, Selected: sharelink.NoSelection})
}

func TestADamagedLinkSaysWhyAndIsNotHeld(t *testing.T) {
	var l Links
	f := fragment(7)
	if _, ok := l.Read(f[:len(f)/2]); ok || l.Err == "" || l.Pending != nil {
		t.Fatalf("a link cut in half: ok, err %q", l.Err)
	}
}

func TestALinkWaitsForEveryWorker(t *testing.T) {
	var l Links
	if _, ok := l.Read(fragment(7)); !ok || l.Pending == nil || l.Err != "" {
		t.Fatalf("err %q", l.Err)
	}
	p := &Pool{}
	p.Resize(2, false, t0)
	p.Said(0, searchworker.Response{Type: "ready"}, t0, 0)
	if _, due, _ := l.Due(p, sharelink.DigitsModels, 7); due {
		t.Fatal("due with one of two workers up")
	}
	p.Said(1, searchworker.Response{Type: "ready"}, t0, 0)
	link, due, err := l.Due(p, sharelink.DigitsModels, 7)
	if !due || err != nil || link.Image[300] != 0 || link.Image[302] != 200 || l.Pending != nil {
		t.Fatalf("due %v, err %v", due, err)
	}
	if _, due, _ := l.Due(p, sharelink.DigitsModels, 7); due {
		t.Error("a link opened twice")
	}
}

func TestALinkWaitsForTheRunUnderWay(t *testing.T) {
	var l Links
	l.Read(fragment(7))
	p, _ := started(t, 1, 4)
	if _, due, _ := l.Due(p, sharelink.DigitsModels, 7); due || l.Pending == nil {
		t.Fatal("a link opened over a run under way")
	}
}

func TestALinkOfOtherModelsIsRefused(t *testing.T) {
	var l Links
	l.Read(fragment(7))
	p := readyPool(t, 1)
	if _, due, err := l.Due(p, sharelink.DigitsModels, 8); due || err == nil || l.Err == "" || l.Pending != nil {
		t.Fatalf("due %v, err %v, Err %q", due, err, l.Err)
	}
	if !strings.Contains(strings.ToLower(l.Err), "model") {
		t.Errorf("the refusal does not say it is about the models: %q", l.Err)
	}
	// A link made for other models altogether (a v3 link naming them) is refused by their name, in a sentence.
	img := make([]uint8, 3*8*8)
	img[10] = 255
	other := sharelink.Encode(sharelink.State{Models: "colour-test", Model: 7, Height: 8, Width: 8, Channels: 3, Image: img,
		Params: clue.Defaults(), Selected: sharelink.NoSelection})
	var m Links
	if _, ok := m.Read(other); !ok {
		t.Fatalf("a v3 link was not read: %q", m.Err)
	}
	if _, due, err := m.Due(p, sharelink.DigitsModels, 7); due || err == nil || !strings.Contains(m.Err, `made for the "colour-test" models, and this page runs the "digits" models`) {
		t.Errorf("a link for other models: due %v, Err %q", due, m.Err)
	}
}

// Every kind of bad link is refused with a sentence that names its fault, and nothing is held; the page shows
// the sentence as text (the browser test checks one that looks like markup).
func TestEveryBadLinkSaysItsFault(t *testing.T) {
	good := fragment(7)
	for frag, want := range map[string]string{
		"v1.!!not-base64":                 "damaged",
		good[:len(good)/2]:                "damaged",
		"v7.AAAA":                         "another version",
		"<img src=x onerror=alert(1)>":    "not a deltaclue link",
		"v1." + strings.Repeat("A", 9000): "characters long",
	} {
		var l Links
		if _, ok := l.Read(frag); ok || l.Pending != nil || !strings.Contains(l.Err, want) {
			t.Errorf("%.40s: ok %v, error %q, want it to mention %q", frag, ok, l.Err, want)
		}
		if l.Err != "" && (l.Err[0] < 'A' || l.Err[0] > 'Z' || !strings.HasSuffix(l.Err, ".")) {
			t.Errorf("%.40s: %q is not one sentence", frag, l.Err)
		}
	}
}

// The page's state makes the link that opens it again: input, parameters, models, choice and ladder.
func TestSharedRoundTrips(t *testing.T) {
	in, s, sel := NewInput("draw"), NewSettings(clue.Defaults()), NewSelection()
	if _, ok := Shared(in, s, sel, Models{Kind: image, Name: sharelink.DigitsModels, Fingerprint: 7}, nil); ok {
		t.Fatal("a link with no input")
	}
	var q [sharelink.Pixels]uint8
	for i := 200; i < 600; i += 3 {
		q[i] = 200
	}
	in.Take(image.Carried(q[:]), "a drawing")
	if _, ok := Shared(in, s, sel, Models{Kind: image, Name: sharelink.DigitsModels, Fingerprint: 0}, nil); ok {
		t.Error("a link before the models are known")
	}
	s.Set("delta", "-1")
	if _, ok := Shared(in, s, sel, Models{Kind: image, Name: sharelink.DigitsModels, Fingerprint: 7}, nil); ok {
		t.Error("a link of refused parameters")
	}
	s.Set("delta", "3.5")
	sel.Select(12)
	ladder := clue.DefaultLadder()
	st, ok := Shared(in, s, sel, Models{Kind: image, Name: sharelink.DigitsModels, Fingerprint: 7}, &ladder)
	if !ok {
		t.Fatal("nothing shared")
	}
	var l Links
	back, ok := l.Read(sharelink.Encode(st))
	if !ok || !slices.Equal(back.Image, q[:]) || !reflect.DeepEqual(back.Params, s.Params) || back.Model != 7 || back.Selected != 12 || len(back.Sweep.Radii) != len(ladder.Radii) {
		t.Errorf("round trip: ok %v, %+v (err %q)", ok, back, l.Err)
	}
	// A choice beyond the parameters' set (n lowered since) is not carried.
	s.Set("n", "5")
	if st, _ := Shared(in, s, sel, Models{Kind: image, Name: sharelink.DigitsModels, Fingerprint: 7}, nil); st.Selected != sharelink.NoSelection {
		t.Errorf("restart 12 of a set of 5 carried: %d", st.Selected)
	}
}
