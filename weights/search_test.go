package weights

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func ptr(v float64) *float64 { return &v }

// TestSearchDefaultsRoundTrip: a description's search defaults are written and read back as they were (λx 0
// included), need format 2, and leave a description without them the bytes it had (the digits').
func TestSearchDefaultsRoundTrip(t *testing.T) {
	d := DigitsDescription()
	before, _ := json.Marshal(d)
	if strings.Contains(string(before), `"search"`) || d.MinFormat() != 1 {
		t.Fatalf("the digits' description says search defaults, or needs format %d: %s", d.MinFormat(), before)
	}
	d.Search = &SearchDefaults{Delta: ptr(4), LambdaX: ptr(0), HThreshold: ptr(0.462)}
	if d.MinFormat() != 2 {
		t.Errorf("search defaults need format %d, want 2", d.MinFormat())
	}
	d.Format = 2
	raw, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"search":{"delta":4,"lambda_x":0,"h_threshold":0.462}`) {
		t.Errorf("the search defaults are written as %s", raw)
	}
	back, err := ParseDescription(raw)
	if err != nil {
		t.Fatal(err)
	}
	if s := back.Search; s == nil || *s.Delta != 4 || s.LambdaX == nil || *s.LambdaX != 0 || *s.HThreshold != 0.462 {
		t.Errorf("read back as %+v", s)
	}
	if err := back.Check(shippedFiles(t)); err != nil {
		t.Errorf("a description with search defaults: %v", err)
	}
	// One of the three alone.
	back.Search = &SearchDefaults{LambdaX: ptr(0.01)}
	raw, _ = json.Marshal(back)
	if !strings.Contains(string(raw), `"search":{"lambda_x":0.01}`) {
		t.Errorf("λx alone is written as %s", raw)
	}
	if err := back.Check(nil); err != nil {
		t.Errorf("λx alone: %v", err)
	}
}

// TestSearchDefaultsRefusals: search defaults out of range, or on a format 1 description, are refused in a
// sentence that says which and why, through a bundle too.
func TestSearchDefaultsRefusals(t *testing.T) {
	cases := []struct {
		name   string
		format int
		s      *SearchDefaults
		want   string
	}{
		{"format 1", 1, &SearchDefaults{Delta: ptr(3)}, "says format 1, but it gives search defaults, which are format 2"},
		{"none given", 2, &SearchDefaults{}, `give none of "delta", "lambda_x", "h_threshold" and "dedup_l1"`},
		{"dedup_l1 0", 2, &SearchDefaults{DedupL1: ptr(0)}, "dedup_l1 = 0: it must be above 0 and at most"},
		{"dedup_l1 too large", 2, &SearchDefaults{DedupL1: ptr(1e9)}, "dedup_l1 = 1e+09: it must be above 0 and at most 786432"},
		{"δ 0", 2, &SearchDefaults{Delta: ptr(0)}, "δ = 0: it must be above 0 and at most 20"},
		{"δ 25", 2, &SearchDefaults{Delta: ptr(25)}, "δ = 25: it must be above 0 and at most 20"},
		{"δ NaN", 2, &SearchDefaults{Delta: ptr(math.NaN())}, "δ = NaN"},
		{"λx negative", 2, &SearchDefaults{LambdaX: ptr(-0.01)}, "λx = -0.01: it must be from 0 to 1000"},
		{"λx infinite", 2, &SearchDefaults{LambdaX: ptr(math.Inf(1))}, "λx = +Inf"},
		{"threshold 0", 2, &SearchDefaults{HThreshold: ptr(0)}, "a threshold of 0 nats: it must be above 0 and at most ln 10 ≈ 2.303 nats"},
		{"threshold above ln C", 2, &SearchDefaults{HThreshold: ptr(2.4)}, "the entropy of an even guess among the 10 classes"},
	}
	files := shippedFiles(t)
	for _, c := range cases {
		d := DigitsDescription()
		d.Format, d.Search = c.format, c.s
		err := d.Check(files)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want it to say %q", c.name, err, c.want)
			continue
		}
		t.Logf("%s: %v", c.name, err)
		if math.IsNaN(ptrValue(c.s.Delta)) || math.IsInf(ptrValue(c.s.LambdaX), 0) {
			continue // JSON holds no NaN or infinity
		}
		raw, _ := json.Marshal(d)
		b := EncodeBundle([]BundleFile{{DescriptionFile, raw}, {BundleVAE, vaeBytes}, {BundleBNN, bnnBytes}, {BundleAnchors, anchorBytes}})
		if _, err := OpenBundleFiles(b, false); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: a bundle carrying it: %v", c.name, err)
		}
	}
	// The threshold's bound is the model's own: ln 10 is allowed for the digits' ten classes, not for two.
	d := DigitsDescription()
	d.Format, d.Search = 2, &SearchDefaults{HThreshold: ptr(math.Log(10))}
	if err := d.Check(nil); err != nil {
		t.Errorf("a threshold of ln 10 for ten classes: %v", err)
	}
	d.Classes = d.Classes[:2]
	if err := d.checkHeader(); err == nil || !strings.Contains(err.Error(), "ln 2 ≈ 0.6931 nats") {
		t.Errorf("a threshold of ln 10 for two classes: %v", err)
	}
	if _, err := ParseDescription([]byte(`{"format": 2, "search": {"delta": 3, "lambda": 0}}`)); err == nil {
		t.Error("an unknown field of the search defaults was read")
	}
}

func ptrValue(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}
