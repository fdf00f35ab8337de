//go:build !js

package app

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"flag"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/glam"
	"github.com/deltaclue/deltaclue/mnist"
)

var updateGlobal = flag.Bool("update-global", false, "rewrite web/global.json from docs/global/groups.json and the shipped models")

// measuredGroups is the part of docs/global/groups.json (deltaclue global) the page shows.
type measuredGroups struct {
	Uncertain int `json:"uncertain"`
	Params    struct {
		Delta float64 `json:"delta"`
	} `json:"params"`
	Groups []struct {
		From               int     `json:"from"`
		To                 int     `json:"to"`
		Train              int     `json:"train_members"`
		Members            int     `json:"members"`
		Coverage           float64 `json:"coverage"`
		MeanDistance       float64 `json:"mean_distance"`
		MeanSearchDistance float64 `json:"mean_search_distance"`
		MeanShift          float64 `json:"mean_shift"`
	} `json:"groups"`
	Totals struct {
		Cases              int     `json:"cases"`
		Coverage           float64 `json:"coverage"`
		MeanDistance       float64 `json:"mean_distance"`
		MeanSearchDistance float64 `json:"mean_search_distance"`
		AnswerMs           float64 `json:"answer_ms"`
		SearchMs           float64 `json:"search_ms"`
	} `json:"totals"`
	Cases []struct {
		Digit    int     `json:"digit"`
		From     int     `json:"from"`
		To       int     `json:"to"`
		Member   bool    `json:"member"`
		Sure     bool    `json:"sure"`
		K        float32 `json:"k"`
		Distance float32 `json:"distance"`
	} `json:"cases"`
}

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
	g := GlobalData{Uncertain: mg.Uncertain, Cases: mg.Totals.Cases, Coverage: mg.Totals.Coverage, MeanDistance: mg.Totals.MeanDistance,
		MeanSearchDistance: mg.Totals.MeanSearchDistance, AnswerMs: mg.Totals.AnswerMs, SearchMs: mg.Totals.SearchMs,
		Delta: mg.Params.Delta, Ks: []float32{0.5, 1, 1.5, 2}}
	members := map[int]bool{}
	hThreshold := clue.Defaults().HThreshold
	for _, mgr := range mg.Groups {
		gr := GlobalGroup{From: mgr.From, To: mgr.To, Train: mgr.Train, Members: mgr.Members, Coverage: mgr.Coverage,
			MeanDistance: mgr.MeanDistance, MeanSearchDistance: mgr.MeanSearchDistance, MeanShift: mgr.MeanShift}
		for _, c := range mg.Cases {
			if c.Member && c.From == gr.From && c.To == gr.To {
				gr.Cases = append(gr.Cases, GlobalCase{Digit: c.Digit, Sure: c.Sure, K: c.K, Distance: c.Distance})
				members[c.Digit] = true
			}
		}
		sort.Slice(gr.Cases, func(i, j int) bool { return gr.Cases[i].Digit < gr.Cases[j].Digit })
		if len(gr.Cases) != gr.Members || len(gr.Cases) == 0 {
			t.Fatalf("group %d→%d: %d member cases, %d members", gr.From, gr.To, len(gr.Cases), gr.Members)
		}
		gr.Strip.Digit = gr.Cases[0].Digit
		for _, c := range gr.Cases {
			if c.Sure {
				gr.Strip.Digit = c.Digit
				break
			}
		}
		var tr glam.Translation
		for _, x := range ts {
			if x.From == gr.From && x.To == gr.To {
				tr = x
			}
		}
		for _, c := range gr.Cases { // the measured answers are the models' answers today
			x0 := set.Float(c.Digit, nil)
			as := glam.Explain(m, ts, x0, m.VAE.Encode(x0), gr.From, []int{gr.To}, hThreshold)
			if len(as) != 1 || as[0].Sure != c.Sure || as[0].K != c.K || as[0].Distance != c.Distance {
				t.Fatalf("group %d→%d, digit %d: the models answer %+v, docs/global/groups.json measured %+v: after new models or translations, "+
					"go run ./cmd/deltaclue global -out docs/global, then go test ./app -run GlobalData -update-global", gr.From, gr.To, c.Digit, as, c)
			}
		}
		x0 := set.Float(gr.Strip.Digit, nil)
		for _, r := range glam.Rungs(m, tr, x0, m.VAE.Encode(x0), g.Ks) {
			gr.Strip.Frames = append(gr.Strip.Frames, thumb(r.Image))
			gr.Strip.Labels = append(gr.Strip.Labels, r.Label)
			gr.Strip.H = append(gr.Strip.H, r.HTotal)
		}
		g.Groups = append(g.Groups, gr)
	}
	var idx []int
	for i := range members {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	for _, i := range idx {
		x := set.Float(i, nil)
		u := m.BNN.Classify(x)[0]
		g.Digits = append(g.Digits, GlobalDigit{Index: i, Label: int(set.Labels[i]), Read: u.Label(), H: u.Total,
			Pixels: base64.StdEncoding.EncodeToString(set.Image(i)), Thumb: thumb(x)})
	}
	js, _ := json.Marshal(g)
	js = append(js, '\n')
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
