//go:build !js

package app

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/glam"
	"github.com/deltaclue/deltaclue/internal/dataset"
	"github.com/deltaclue/deltaclue/mnist"
	"github.com/deltaclue/deltaclue/weights"
)

var updateGlobal = flag.Bool("update-global", false, "rewrite web/global.json from docs/global/groups.json and the shipped models")

// TestGlobalData makes the global view's data from what `deltaclue global` measured and the shipped models,
// and checks the committed web/global.json is exactly that: every member's answer again (same k and d as
// measured), and each group's strip decoded and classified.
func TestGlobalData(t *testing.T) {
	raw, err := os.ReadFile("../docs/global/groups.json")
	if err != nil {
		t.Fatal(err)
	}
	var mg measuredGroups
	if err := json.Unmarshal(raw, &mg); err != nil {
		t.Fatal(err)
	}
	m, ts, set := shippedGlobal(t)
	js, err := MakeGlobalData(raw, m, ts, set, weights.DigitsDescription().Input)
	if err != nil {
		t.Fatalf("%v: after new models or translations, go run ./cmd/deltaclue global -out docs/global, then go test ./app -run GlobalData -update-global", err)
	}
	if *updateGlobal {
		if err := os.WriteFile("../web/global.json", js, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	committed, err := os.ReadFile("../web/global.json")
	if err != nil || !bytes.Equal(js, committed) {
		t.Fatalf("web/global.json is stale (%v): go test ./app -run GlobalData -update-global", err)
	}
	parsed, err := ParseGlobal(committed)
	if err != nil {
		t.Fatal(err)
	}
	if len(parsed.Groups) != 56 || len(parsed.Digits) != mg.Uncertain {
		t.Errorf("%d groups and %d digits, want 56 and %d", len(parsed.Groups), len(parsed.Digits), mg.Uncertain)
	}
	t.Logf("web/global.json: %d bytes, %d groups, %d digits", len(committed), len(parsed.Groups), len(parsed.Digits))
}

// shippedGlobal is what the digits' global view is made of: the shipped models, their translations and the
// held-out test digits.
func shippedGlobal(t *testing.T) (*clue.Models, []glam.Translation, dataset.Items) {
	t.Helper()
	m, err := clue.ShippedModels()
	if err != nil {
		t.Fatal(err)
	}
	ts, err := glam.Shipped()
	if err != nil {
		t.Fatal(err)
	}
	set, err := mnist.HeldOut()
	if err != nil {
		t.Fatal(err)
	}
	return m, ts, set
}

// TestGlobalDataLeavesOutEmptyGroups: a group learned on training items none of the test items join (an imported
// model's, often) is left out of the global view; a group whose members and cases disagree is refused.
func TestGlobalDataLeavesOutEmptyGroups(t *testing.T) {
	raw, err := os.ReadFile("../docs/global/groups.json")
	if err != nil {
		t.Fatal(err)
	}
	m, ts, set := shippedGlobal(t)
	with := func(members int) []byte {
		var doc map[string]any
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		groups := doc["groups"].([]any)
		extra := map[string]any{}
		for k, v := range groups[0].(map[string]any) {
			extra[k] = v
		}
		taken := map[[2]float64]bool{}
		for _, c := range doc["cases"].([]any) {
			c := c.(map[string]any)
			taken[[2]float64{c["from"].(float64), c["to"].(float64)}] = true
		}
		free := [2]float64{-1, -1}
		for a := 0.0; a < 10 && free[0] < 0; a++ {
			for b := 0.0; b < 10; b++ {
				if !taken[[2]float64{a, b}] {
					free = [2]float64{a, b}
					break
				}
			}
		}
		extra["from"], extra["to"], extra["members"] = free[0], free[1], members // a pair no case has
		doc["groups"] = append(groups, extra)
		b, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	want, err := MakeGlobalData(raw, m, ts, set, weights.DigitsDescription().Input)
	if err != nil {
		t.Fatal(err)
	}
	got, err := MakeGlobalData(with(0), m, ts, set, weights.DigitsDescription().Input)
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("a group with no test members: %v (the same data: %v)", err, bytes.Equal(got, want))
	}
	if _, err := MakeGlobalData(with(4), m, ts, set, weights.DigitsDescription().Input); err == nil || !strings.Contains(err.Error(), "4 members") {
		t.Errorf("a group of 4 members without their cases: %v", err)
	}
}

// TestGlobalGroupStats: a group the step makes none sure has no distance (its mean_distance is 0 for want of
// answers, as for group 1 → 9 in web/global.json): its line, its button's aria-label and its strip say none
// was made sure, never "d 0.0"; a group with no search distance says so too.
func TestGlobalGroupStats(t *testing.T) {
	strip := GlobalStrip{Digit: 7, Frames: []string{"a", "b"}, Labels: []int{4, 4}, H: []float32{0.68, 0.61}}
	g := &GlobalData{Ks: []float32{0.5, 1}, Digits: []GlobalDigit{{Index: 7, Label: 1, Read: 1, H: 0.9}}, Groups: []GlobalGroup{
		{From: 1, To: 9, Members: 2, MeanSearchDistance: 26.978, Strip: strip},
		{From: 2, To: 3, Members: 0, Strip: strip},
		{From: 0, To: 6, Members: 4, Coverage: 0.75, MeanDistance: 41.25, MeanSearchDistance: 30.04, Strip: strip},
	}}
	for _, c := range []struct {
		group int
		want  string
	}{
		{0, "2 test digits · none made sure (search d 27.0)"},
		{1, "0 test digits · none made sure (no search)"},
		{2, "4 test digits · 75 % sure · d 41.2 (search 30.0)"},
	} {
		if got := groupStats(g.Groups[c.group]); got != c.want {
			t.Errorf("group %d → %d: %q, want %q", g.Groups[c.group].From, g.Groups[c.group].To, got, c.want)
		}
	}
	for _, from := range []int{-1, 1} {
		html := globalHTML(g, from, -1, clue.Defaults().HThreshold)
		if strings.Contains(html, "d 0.0") || strings.Contains(html, "0 % sure") || strings.Contains(html, "search 0.0") {
			t.Errorf("from %d: a group with nothing sure shows a distance of nothing:\n%s", from, html)
		}
		if !strings.Contains(html, `aria-label="group 1 → 9: 2 test digits · none made sure (search d 27.0); `) ||
			!strings.Contains(html, `<span class="group-stats">2 test digits · none made sure (search d 27.0)</span>`) {
			t.Errorf("from %d: group 1 → 9's line or aria-label does not say none was made sure:\n%s", from, html)
		}
		if strings.Contains(html, "✓") || strings.Contains(html, `class="sure"`) {
			t.Errorf("from %d: a strip read as 4 is marked sure of 9:\n%s", from, html)
		}
	}
}

// TestGlobalSummarySaysWhatWasSearched: when the import's budget searched only some of the uncertain test items,
// the global view's sentence says over how many its figures are, and otherwise it names them all.
func TestGlobalSummarySaysWhatWasSearched(t *testing.T) {
	g := &GlobalData{Uncertain: 120, Cases: 30, Coverage: 0.5, Groups: make([]GlobalGroup, 3)}
	if s := globalSummary(g, "images"); !strings.HasPrefix(s, "3 groups. On the 120 uncertain test images, ") {
		t.Errorf("all searched: %s", s)
	}
	g.Searched = 40
	if s := globalSummary(g, "images"); !strings.Contains(s, "On 40 of the 120 uncertain test images (the import's time budget searched no more), ") {
		t.Errorf("40 of 120 searched: %s", s)
	}
	g.Groups, g.Searched = g.Groups[:1], 120
	if s := globalSummary(g, "images"); !strings.HasPrefix(s, "1 group. On the 120 uncertain") {
		t.Errorf("one group, all searched: %s", s)
	}
	var mg measuredGroups
	if err := json.Unmarshal([]byte(`{"uncertain": 9, "searched": 4}`), &mg); err != nil || mg.Searched != 4 {
		t.Errorf("groups.json's searched: %v %+v", err, mg)
	}
}
