package figures

import (
	"encoding/xml"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// node is a parsed SVG element.
type node struct {
	XMLName  xml.Name
	Attrs    []xml.Attr `xml:",any,attr"`
	Text     string     `xml:",chardata"`
	Children []node     `xml:",any"`
}

func (n node) attr(name string) (string, bool) {
	for _, a := range n.Attrs {
		if a.Name.Local == name {
			return a.Value, true
		}
	}
	return "", false
}

func (n node) classes() []string {
	c, _ := n.attr("class")
	return strings.Fields(c)
}

func (n node) hasClass(c string) bool {
	for _, k := range n.classes() {
		if k == c {
			return true
		}
	}
	return false
}

// all returns n and its descendants, depth first.
func (n node) all() []node {
	out := []node{n}
	for _, c := range n.Children {
		out = append(out, c.all()...)
	}
	return out
}

// texts returns the character data of every <text> element under n.
func (n node) texts() []string {
	var out []string
	for _, e := range n.all() {
		if e.XMLName.Local == "text" {
			out = append(out, strings.TrimSpace(e.Text))
		}
	}
	return out
}

func (n node) withClass(c string) []node {
	var out []node
	for _, e := range n.all() {
		if e.hasClass(c) {
			out = append(out, e)
		}
	}
	return out
}

// parse checks that s is well-formed XML with a root <svg> as the charts promise, and returns its tree.
func parse(t *testing.T, s string) node {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(s))
	for {
		_, err := d.Token()
		if err != nil {
			if err.Error() != "EOF" {
				t.Fatalf("not well-formed XML: %v\n%s", err, s)
			}
			break
		}
	}
	var root node
	if err := xml.Unmarshal([]byte(s), &root); err != nil {
		t.Fatalf("unmarshal: %v", err)
	}
	if root.XMLName.Local != "svg" || root.XMLName.Space != "http://www.w3.org/2000/svg" {
		t.Fatalf("root is %v", root.XMLName)
	}
	if v, _ := root.attr("width"); v != "100%" {
		t.Errorf("root width = %q, want 100%%", v)
	}
	// Charts with focusable markers are groups (so screen readers reach the markers); the sweep is an image.
	wantRole := "group"
	if strings.Contains(s, `class="dcfig dcfig-sweep"`) {
		wantRole = "img"
	}
	if v, _ := root.attr("role"); v != wantRole {
		t.Errorf("root role = %q, want %q", v, wantRole)
	}
	if v, _ := root.attr("viewBox"); !strings.HasPrefix(v, "0 0 ") {
		t.Errorf("viewBox %q", v)
	}
	if v, _ := root.attr("font-family"); !strings.Contains(v, "system-ui") {
		t.Errorf("font-family %q", v)
	}
	ids := map[string]bool{}
	var title, desc string
	for _, c := range root.Children {
		id, _ := c.attr("id")
		ids[id] = true
		switch c.XMLName.Local {
		case "title":
			title = c.Text
		case "desc":
			desc = c.Text
		}
	}
	if title == "" || desc == "" {
		t.Errorf("title %q, desc %q: both must be given", title, desc)
	}
	lb, _ := root.attr("aria-labelledby")
	for _, id := range strings.Fields(lb) {
		if !ids[id] {
			t.Errorf("aria-labelledby names %q, which is not a child's id", id)
		}
	}
	if len(root.withClass("bg")) != 1 {
		t.Error("no white background")
	}
	return root
}

// ---- sample data, also written out by TestWriteSamples ----

// samplePoints: an ambiguous 4/9 whose explanations are mostly 9s and 4s, a few 7s, some rejected.
func samplePoints() []TradeoffPoint {
	r := rand.New(rand.NewPCG(1, 2))
	labels := []int{9, 4, 9, 4, 9, 7, 9, 4, 1, 9, 4, 7, 9, 4, 9, 9, 4, 7, 9, 4, 9, 4, 9, 2}
	var pts []TradeoffPoint
	for i, l := range labels {
		d := 18 + 70*r.Float64()
		h := 1.4*math.Exp(-d/22) + 0.08*r.Float64()
		if l == 7 || l == 1 || l == 2 {
			h += 0.35
		}
		pts = append(pts, TradeoffPoint{Restart: i, Label: l, D: d, H: h, Accepted: h < 0.3})
	}
	return pts
}

// paretoFronts computes each accepted label's front: the points not beaten on both d and H.
func paretoFronts(pts []TradeoffPoint) []Front {
	by := map[int][]TradeoffPoint{}
	for _, p := range pts {
		if p.Accepted {
			by[p.Label] = append(by[p.Label], p)
		}
	}
	var fronts []Front
	for _, l := range sortedLabels(map[int]bool{4: len(by[4]) > 0, 9: len(by[9]) > 0, 7: len(by[7]) > 0}) {
		ps := by[l]
		if len(ps) == 0 {
			continue
		}
		sort.Slice(ps, func(i, j int) bool { return ps[i].D < ps[j].D })
		f := Front{Label: l}
		best := math.Inf(1)
		for _, p := range ps {
			if p.H < best {
				best = p.H
				f.D, f.H = append(f.D, p.D), append(f.H, p.H)
			}
		}
		fronts = append(fronts, f)
	}
	return fronts
}

// sampleSelected is the restart selected in the samples.
const sampleSelected = 13

func sampleTradeoff() TradeoffChart {
	pts := samplePoints()
	return TradeoffChart{Points: pts, Fronts: paretoFronts(pts), Threshold: 0.3, Selected: sampleSelected,
		Title: "δ-CLUE explanations of digit #1735 (δ = 3, 24 restarts)"}
}

func sampleSweep() SweepChart {
	dist := func(kv ...float64) []float64 {
		d := make([]float64, 10)
		for i := 0; i < len(kv); i += 2 {
			d[int(kv[i])] = kv[i+1]
		}
		return d
	}
	return SweepChart{Threshold: 0.3, Title: "Sweep over δ, digit #1735 (16 restarts each)", Rows: []SweepRow{
		{Delta: 0.5, Dist: dist(), Distinct: 0, BestH: math.NaN(), Accepted: 0, Restarts: 16, Done: true},
		{Delta: 1, Dist: dist(9, 1), Distinct: 1, BestH: 0.27, Accepted: 3, Restarts: 16, Done: true},
		{Delta: 1.5, Dist: dist(9, 0.8, 4, 0.2), Distinct: 2, BestH: 0.14, Accepted: 7, Restarts: 16, Done: true},
		{Delta: 2, Dist: dist(9, 0.6, 4, 0.35, 7, 0.05), Distinct: 3, BestH: 0.08, Accepted: 11, Restarts: 16, Done: true},
		{Delta: 3, Dist: dist(9, 0.45, 4, 0.4, 7, 0.15), Distinct: 3, BestH: 0.05, Accepted: 14, Restarts: 16, Done: true},
		{Delta: 4, Dist: dist(9, 0.4, 4, 0.3, 7, 0.2, 1, 0.1), Distinct: 4, BestH: 0.03, Accepted: 16, Restarts: 16, Done: true},
		{Delta: 6, Dist: dist(9, 0.3, 4, 0.3, 7, 0.2, 1, 0.1, 2, 0.1), Distinct: 5, BestH: 0.02, Accepted: 16, Restarts: 16, Done: true},
		{Delta: 8, Dist: dist(9, 0.5), Distinct: 1, BestH: 0.4, Accepted: 2, Restarts: 16, Done: false},
	}}
}

func sampleLatentMap() LatentMapChart {
	r := rand.New(rand.NewPCG(3, 4))
	pts := samplePoints()
	var mp []MapPoint
	var path [][2]float64
	const radius = 3
	for _, p := range pts {
		a := r.Float64() * 2 * math.Pi
		s := [2]float64{1.5 * r.NormFloat64() * 0.6, 1.5 * r.NormFloat64() * 0.6}
		rad := radius * (0.85 + 0.15*r.Float64())
		if p.Restart == 11 {
			rad = radius * 1.25 // outside the ball, as a filter constraint can allow
		}
		e := [2]float64{rad * math.Cos(a), rad * math.Sin(a)}
		mp = append(mp, MapPoint{Restart: p.Restart, Label: p.Label, Start: s, End: e, Accepted: p.Accepted})
		if p.Restart == sampleSelected {
			for k := 0; k <= 12; k++ {
				f := float64(k) / 12
				bend := 0.6 * math.Sin(math.Pi*f)
				path = append(path, [2]float64{s[0] + (e[0]-s[0])*f - bend*(e[1]-s[1])/4, s[1] + (e[1]-s[1])*f + bend*(e[0]-s[0])/4})
			}
		}
	}
	return LatentMapChart{Radius: radius, Points: mp, Path: path, Selected: sampleSelected, Axes: [2]string{"PC1 (54 %)", "PC2 (21 %)"},
		Title: "Latent map of the δ-ball, digit #1735"}
}

// TestWriteSamples writes the sample charts as .svg files into $FIGURES_OUT when it is set, to look at.
func TestWriteSamples(t *testing.T) {
	dir := os.Getenv("FIGURES_OUT")
	if dir == "" {
		t.Skip("FIGURES_OUT not set")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	empty := TradeoffChart{Selected: -1}
	files := map[string]string{
		"tradeoff.svg":        Tradeoff(sampleTradeoff()),
		"tradeoff_empty.svg":  Tradeoff(empty),
		"sweep.svg":           Sweep(sampleSweep()),
		"latentmap.svg":       LatentMap(sampleLatentMap()),
		"sweep_many.svg":      Sweep(SweepChart{Threshold: 0.3, Rows: manyRows(40)}),
		"latentmap_empty.svg": LatentMap(LatentMapChart{Radius: 2, Selected: -1}),
		"sweep_empty.svg":     Sweep(SweepChart{}),
	}
	for name, s := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// ---- tests ----

func TestTradeoff(t *testing.T) {
	nan := math.NaN()
	sample := sampleTradeoff()
	unselected := sampleTradeoff()
	unselected.Selected = -1
	tests := []struct {
		name                    string
		chart                   TradeoffChart
		points, accepted        int // pt groups expected, and of them accepted
		fronts                  int
		threshold, selected     bool
		empty                   bool
		exactAcceptedClassCount bool // nothing selected, so class="pt" appears exactly once per accepted point
	}{
		{name: "sample", chart: sample, points: 24, accepted: countAccepted(sample.Points), fronts: len(sample.Fronts), threshold: true, selected: true},
		{name: "unselected", chart: unselected, points: 24, accepted: countAccepted(sample.Points), fronts: len(sample.Fronts), threshold: true, exactAcceptedClassCount: true},
		{name: "empty", chart: TradeoffChart{Selected: -1}, empty: true},
		{name: "one point", chart: TradeoffChart{Points: []TradeoffPoint{{Restart: 3, Label: 8, D: 40, H: 0.1, Accepted: true}}, Threshold: 0.3, Selected: 3},
			points: 1, accepted: 1, threshold: true, selected: true},
		{name: "all rejected", chart: TradeoffChart{Points: []TradeoffPoint{{Restart: 0, Label: 1, D: 10, H: 1}, {Restart: 1, Label: 5, D: 10, H: 1}}, Selected: -1},
			points: 2, accepted: 0, exactAcceptedClassCount: true},
		{name: "NaN", chart: TradeoffChart{
			Points:    []TradeoffPoint{{Restart: 0, Label: 2, D: nan, H: 0.1, Accepted: true}, {Restart: 1, Label: 2, D: 30, H: math.Inf(1)}, {Restart: 2, Label: 2, D: 30, H: 0.2, Accepted: true}},
			Fronts:    []Front{{Label: 2, D: []float64{nan, 30}, H: []float64{0.1, 0.2}}, {Label: 5, D: []float64{1}, H: nil}},
			Threshold: nan, Selected: -1}, points: 1, accepted: 1, fronts: 1, exactAcceptedClassCount: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := Tradeoff(tc.chart)
			if s != Tradeoff(tc.chart) {
				t.Fatal("not deterministic")
			}
			root := parse(t, s)
			pts := root.withClass("pt")
			if len(pts) != tc.points {
				t.Errorf("%d pt groups, want %d", len(pts), tc.points)
			}
			accepted, restarts := 0, map[int]bool{}
			for _, p := range pts {
				if p.XMLName.Local != "g" {
					t.Errorf("pt is a <%s>", p.XMLName.Local)
				}
				if !p.hasClass("rejected") {
					accepted++
				}
				r, err := strconv.Atoi(attrOf(p, "data-restart"))
				if err != nil {
					t.Errorf("data-restart: %v", err)
				}
				restarts[r] = true
				if !strings.HasPrefix(attrOf(p, "aria-label"), "restart ") {
					t.Errorf("point unlabelled: %v", p.Attrs)
				}
				// Never colour alone: the group writes its label's digit.
				if l := attrOf(p, "data-label"); !contains(p.texts(), l) {
					t.Errorf("restart %d: digit %s not written (texts %q)", r, l, p.texts())
				}
			}
			oneTabStop(t, pts, tc.chart.Selected)
			if accepted != tc.accepted {
				t.Errorf("%d accepted pt groups, want %d", accepted, tc.accepted)
			}
			if tc.exactAcceptedClassCount {
				if n := strings.Count(s, `class="pt"`); n != tc.accepted {
					t.Errorf(`%d class="pt", want %d`, n, tc.accepted)
				}
				if n := strings.Count(s, `class="pt rejected"`); n != tc.points-tc.accepted {
					t.Errorf(`%d class="pt rejected", want %d`, n, tc.points-tc.accepted)
				}
			}
			for _, p := range tc.chart.Points {
				if finite(p.D, p.H) && !restarts[p.Restart] {
					t.Errorf("restart %d missing", p.Restart)
				}
			}
			if n := len(root.withClass("front")); n != tc.fronts {
				t.Errorf("%d fronts, want %d", n, tc.fronts)
			}
			if got := len(root.withClass("threshold")) == 1; got != tc.threshold {
				t.Errorf("threshold drawn: %v, want %v", got, tc.threshold)
			}
			if tc.threshold && !contains(root.texts(), "H threshold "+FormatTick(tc.chart.Threshold)) {
				t.Error("threshold not labelled")
			}
			sel := root.withClass("selected")
			if got := len(sel) == 1; got != tc.selected {
				t.Errorf("%d selected, want selected %v", len(sel), tc.selected)
			}
			if tc.selected {
				if attrOf(sel[0], "data-restart") != strconv.Itoa(tc.chart.Selected) || len(sel[0].withClass("ring")) != 1 {
					t.Errorf("selected group %v", sel[0].Attrs)
				}
				// Drawn last, on top.
				if last := pts[len(pts)-1]; attrOf(last, "data-restart") != strconv.Itoa(tc.chart.Selected) {
					t.Error("selected point not drawn last")
				}
			}
			if got := contains(root.texts(), "no explanations yet"); got != tc.empty {
				t.Errorf("empty message: %v, want %v", got, tc.empty)
			}
			for _, want := range []string{"distance d (L1, pixels)", "uncertainty H (nats)"} {
				if !contains(root.texts(), want) {
					t.Errorf("axis title %q missing", want)
				}
			}
		})
	}
}

func TestTradeoffDrawOrder(t *testing.T) {
	c := TradeoffChart{Selected: 2, Points: []TradeoffPoint{
		{Restart: 0, Label: 1, D: 1, H: 1, Accepted: true},
		{Restart: 1, Label: 1, D: 2, H: 2},
		{Restart: 2, Label: 1, D: 3, H: 0.5},
		{Restart: 3, Label: 1, D: 4, H: 0.1, Accepted: true},
	}}
	var order []string
	for _, p := range parse(t, Tradeoff(c)).withClass("pt") {
		order = append(order, attrOf(p, "data-restart"))
	}
	if want := []string{"1", "0", "3", "2"}; !reflect.DeepEqual(order, want) {
		t.Errorf("draw order %v, want %v (rejected, accepted, selected)", order, want)
	}
}

func TestSweep(t *testing.T) {
	nan := math.NaN()
	sample := sampleSweep()
	tests := []struct {
		name        string
		chart       SweepChart
		bars        int
		none, dots  int // bars labelled none; bars labelled …
		distinct    int // markers in panel (b)
		besth       int // markers in panel (c)
		threshold   bool
		emptyNotice bool
	}{
		{name: "sample", chart: sample, bars: 8, none: 1, dots: 1, distinct: 7, besth: 6, threshold: true},
		{name: "empty", chart: SweepChart{}, emptyNotice: true},
		{name: "NaN and short", chart: SweepChart{Threshold: nan, Rows: []SweepRow{
			{Delta: 1, Dist: []float64{nan, 0.5, 0.5}, Distinct: 2, BestH: nan, Done: true},
			{Delta: nan, Dist: nil, BestH: 0.2, Done: true},
		}}, bars: 2, none: 1, distinct: 2, besth: 1},
		{name: "many deltas", chart: SweepChart{Threshold: 0.3, Rows: manyRows(40)}, bars: 40, distinct: 40, besth: 40, threshold: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := Sweep(tc.chart)
			if s != Sweep(tc.chart) {
				t.Fatal("not deterministic")
			}
			root := parse(t, s)
			bars := root.withClass("sweep-bar")
			if len(bars) != tc.bars {
				t.Fatalf("%d bars, want %d", len(bars), tc.bars)
			}
			none, dots := 0, 0
			for i, b := range bars {
				r := tc.chart.Rows[i]
				if d, err := strconv.ParseFloat(attrOf(b, "data-delta"), 64); err != nil || (d != r.Delta && !(math.IsNaN(d) && math.IsNaN(r.Delta))) {
					t.Errorf("bar %d: data-delta %q, want %v", i, attrOf(b, "data-delta"), r.Delta)
				}
				texts := b.texts()
				if contains(texts, "none") {
					none++
				}
				if contains(texts, "…") {
					dots++
				}
				// Every segment tall enough carries its digit; at least the largest label of a bar does here.
				for _, seg := range b.withClass("seg") {
					h, w := attrFloat(seg, "height"), attrFloat(seg, "width")
					if h >= 14 && w >= 6 && !contains(texts, attrOf(seg, "data-label")) {
						t.Errorf("bar %d: segment of label %s (%.0f px) without its digit", i, attrOf(seg, "data-label"), h)
					}
				}
			}
			if none != tc.none || dots != tc.dots {
				t.Errorf("none %d, … %d; want %d, %d", none, dots, tc.none, tc.dots)
			}
			if n := len(root.withClass("distinct")); n != tc.distinct {
				t.Errorf("%d distinct markers, want %d", n, tc.distinct)
			}
			if n := len(root.withClass("besth")); n != tc.besth {
				t.Errorf("%d best-H markers, want %d", n, tc.besth)
			}
			if got := len(root.withClass("threshold")) == 1; got != tc.threshold {
				t.Errorf("threshold drawn %v, want %v", got, tc.threshold)
			}
			if got := contains(root.texts(), "no δ values yet"); got != tc.emptyNotice {
				t.Errorf("empty notice %v, want %v", got, tc.emptyNotice)
			}
			if len(tc.chart.Rows) > 0 && !contains(root.texts(), "δ (latent radius)") {
				t.Error("x-axis title missing")
			}
		})
	}
}

func manyRows(n int) []SweepRow {
	var rows []SweepRow
	for i := 0; i < n; i++ {
		d := make([]float64, 10)
		d[i%10], d[(i+3)%10] = 0.5, 0.5
		rows = append(rows, SweepRow{Delta: 0.25 * float64(i+1), Dist: d, Distinct: 2, BestH: 0.5 / float64(i+1), Accepted: 8, Restarts: 8, Done: true})
	}
	return rows
}

func TestLatentMap(t *testing.T) {
	nan := math.NaN()
	sample := sampleLatentMap()
	tests := []struct {
		name       string
		chart      LatentMapChart
		ends       int
		accepted   int
		path, ball bool
		selected   bool
	}{
		{name: "sample", chart: sample, ends: 24, accepted: countAcceptedMap(sample.Points), path: true, ball: true, selected: true},
		{name: "empty", chart: LatentMapChart{Selected: -1}},
		{name: "ball only", chart: LatentMapChart{Radius: 2, Selected: -1}, ball: true},
		{name: "NaN", chart: LatentMapChart{Radius: nan, Selected: 0, Points: []MapPoint{
			{Restart: 0, Label: 3, Start: [2]float64{nan, 0}, End: [2]float64{1, 1}, Accepted: true},
			{Restart: 1, Label: 3, End: [2]float64{nan, 1}},
		}, Path: [][2]float64{{0, 0}, {nan, 1}, {1, 1}}}, ends: 1, accepted: 1, path: true, selected: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := LatentMap(tc.chart)
			if s != LatentMap(tc.chart) {
				t.Fatal("not deterministic")
			}
			root := parse(t, s)
			ends := root.withClass("end")
			if len(ends) != tc.ends {
				t.Errorf("%d ends, want %d", len(ends), tc.ends)
			}
			accepted := 0
			for _, e := range ends {
				if !e.hasClass("rejected") {
					accepted++
				}
				if l := attrOf(e, "data-label"); !contains(e.texts(), l) {
					t.Errorf("end %s: digit %s not written", attrOf(e, "data-restart"), l)
				}
				if attrOf(e, "aria-label") == "" {
					t.Errorf("end unlabelled: %v", e.Attrs)
				}
			}
			oneTabStop(t, ends, tc.chart.Selected)
			if accepted != tc.accepted {
				t.Errorf("%d accepted ends, want %d", accepted, tc.accepted)
			}
			if n := len(root.withClass("start")); tc.name == "sample" && n != tc.ends {
				t.Errorf("%d starts, want %d", n, tc.ends)
			}
			if got := len(root.withClass("path")) == 1; got != tc.path {
				t.Errorf("path drawn %v, want %v", got, tc.path)
			}
			if tc.path && len(root.withClass("arrow")) != 1 {
				t.Error("no arrowhead")
			}
			if got := len(root.withClass("ball")) == 1; got != tc.ball {
				t.Errorf("ball drawn %v, want %v", got, tc.ball)
			}
			if !contains(root.texts(), "z0") {
				t.Error("z0 not marked")
			}
			sel := root.withClass("selected")
			if got := len(sel) == 1; got != tc.selected {
				t.Errorf("%d selected", len(sel))
			} else if tc.selected && len(sel[0].withClass("ring")) != 1 {
				t.Error("selected end not ringed")
			}
		})
	}
	// Equal aspect ratio and the point outside the ball still inside the plot.
	root := parse(t, LatentMap(sample))
	ball := root.withClass("ball")[0]
	cx, cy, r := attrFloat(ball, "cx"), attrFloat(ball, "cy"), attrFloat(ball, "r")
	for _, e := range root.withClass("end") {
		c := e.Children[1] // <title>, then the marker's circle
		x, y := attrFloat(c, "cx"), attrFloat(c, "cy")
		if attrOf(e, "data-restart") == "11" && math.Hypot(x-cx, y-cy) <= r {
			t.Error("the end outside the ball is drawn inside it")
		}
		if x < 60 || x > 460 || y < 40 || y > 520 {
			t.Errorf("end %s at (%v, %v) is outside the plot", attrOf(e, "data-restart"), x, y)
		}
	}
}

func TestEscapedText(t *testing.T) {
	evil := `<script>alert("x")</script> & 'q'`
	charts := map[string]string{
		"tradeoff":  Tradeoff(TradeoffChart{Title: evil, Selected: -1, Points: []TradeoffPoint{{Label: 1, D: 1, H: 1, Accepted: true}}}),
		"sweep":     Sweep(SweepChart{Title: evil, Rows: []SweepRow{{Delta: 1, Done: true}}}),
		"latentmap": LatentMap(LatentMapChart{Title: evil, Axes: [2]string{evil, "b"}, Selected: -1}),
	}
	for name, s := range charts {
		root := parse(t, s)
		for _, e := range root.all() {
			if e.XMLName.Local == "script" {
				t.Errorf("%s: a <script> element got through", name)
			}
		}
		found := false
		for _, c := range root.Children {
			if c.XMLName.Local == "title" && c.Text == evil {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: the title does not read back as the text given", name)
		}
	}
	if got := Escape("a<b>&\"c'\x01"); got != "a&lt;b&gt;&amp;&#34;c&#39;\uFFFD" {
		t.Errorf("Escape = %q", got)
	}
}

func TestLabelColours(t *testing.T) {
	seen := map[string]bool{}
	for l := 0; l < 10; l++ {
		c := LabelColour(l)
		if len(c) != 7 || c[0] != '#' || seen[c] {
			t.Errorf("label %d: colour %q (repeated or malformed)", l, c)
		}
		seen[c] = true
	}
	for l, want := range map[int]string{3: "#000000", 4: "#FFFFFF", 7: "#FFFFFF", 0: "#000000", 9: "#FFFFFF"} {
		if got := LabelTextColour(l); got != want {
			t.Errorf("text on label %d: %s, want %s", l, got, want)
		}
	}
	if LabelColour(-1) != otherColour || LabelColour(10) != otherColour {
		t.Error("labels outside 0–9 should get the fallback colour")
	}
}

// The cases come from cmd/deltaclue's niceTicks and formatTick before they moved here.
func TestTicks(t *testing.T) {
	tests := []struct {
		lo, hi float64
		want   []float64
	}{
		{0, 1, []float64{0, 0.2, 0.4, 0.6000000000000001, 0.8, 1}},
		{0, 10, []float64{0, 2, 4, 6, 8, 10}},
		{0, 2.3, []float64{0, 0.5, 1, 1.5, 2}},
		{3, 3, []float64{3, 3.2, 3.4000000000000004, 3.6000000000000005, 3.8000000000000007, 4.000000000000001}},
		{-1, 1, []float64{-1, -0.5, 0, 0.5, 1}},
		{12.5, 87, []float64{0, 20, 40, 60, 80}},
		{0, 0.07, []float64{0, 0.02, 0.04, 0.06}},
		{0.1, 0.7, []float64{0, 0.2, 0.4, 0.6000000000000001}},
		{math.NaN(), 1, nil},
		{0, math.Inf(1), nil},
	}
	for _, tc := range tests {
		if got := Ticks(tc.lo, tc.hi); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Ticks(%v, %v) = %v, want %v", tc.lo, tc.hi, got, tc.want)
		}
	}
	if got := Ticks(1e17, 1e17+16); len(got) == 0 || len(got) > 1001 {
		t.Errorf("Ticks at the edge of float precision: %d ticks", len(got))
	}
	for v, want := range map[float64]string{0: "0", 1e-13: "0", 0.1 + 0.2: "0.3", 0.6000000000000001: "0.6", 1234.5: "1.23e+03",
		0.000123: "0.000123", -2.5: "-2.5", 1e6: "1e+06", 100: "100"} {
		if got := FormatTick(v); got != want {
			t.Errorf("FormatTick(%v) = %q, want %q", v, got, want)
		}
	}
}

func countAccepted(pts []TradeoffPoint) int {
	n := 0
	for _, p := range pts {
		if p.Accepted {
			n++
		}
	}
	return n
}

func countAcceptedMap(pts []MapPoint) int {
	n := 0
	for _, p := range pts {
		if p.Accepted {
			n++
		}
	}
	return n
}

func attrOf(n node, name string) string { v, _ := n.attr(name); return v }

func attrFloat(n node, name string) float64 {
	v, _ := strconv.ParseFloat(attrOf(n, name), 64)
	return v
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// TestEscapeIsXMLs: Escape writes what encoding/xml.EscapeText writes, for text full of what XML must escape.
func TestEscapeIsXMLs(t *testing.T) {
	for _, s := range []string{"", "plain", `<a href="x">&'</a>`, "tab\tnew\nline\rret", "ctl\x01\x1f\x7f", "bad\xff\xfeutf8",
		"é ü δ ρ ≤ 😀", "\uFFFE\uFFFF\U0010FFFF", "\ud7ff\ue000"} {
		var want strings.Builder
		xml.EscapeText(&want, []byte(s))
		if got := Escape(s); got != want.String() {
			t.Errorf("Escape(%q) = %q, xml says %q", s, got, want.String())
		}
	}
}

// oneTabStop checks a chart's markers make one Tab stop (a roving tabindex): the selected marker, or else the
// leftmost, has tabindex 0 and every other -1; data-nx ranks them left to right and data-ny bottom to top, each
// a permutation of 0..n−1, so that the arrow keys reach every marker.
func oneTabStop(t *testing.T, markers []node, selected int) {
	t.Helper()
	if len(markers) == 0 {
		return
	}
	type at struct{ x, y float64 }
	stops, nx, ny := 0, make([]*at, len(markers)), make([]*at, len(markers))
	entry := -1
	for _, m := range markers {
		r, _ := strconv.Atoi(attrOf(m, "data-restart"))
		switch attrOf(m, "tabindex") {
		case "0":
			stops++
			entry = r
		case "-1":
		default:
			t.Errorf("restart %d: tabindex %q", r, attrOf(m, "tabindex"))
		}
		var c node
		for _, e := range m.all() {
			if e.hasClass("m") {
				c = e
				break
			}
		}
		p := &at{attrFloat(c, "cx"), attrFloat(c, "cy")}
		for _, rank := range []struct {
			name string
			into []*at
		}{{"data-nx", nx}, {"data-ny", ny}} {
			k, err := strconv.Atoi(attrOf(m, rank.name))
			if err != nil || k < 0 || k >= len(markers) || rank.into[k] != nil {
				t.Fatalf("restart %d: %s %q is not a free rank of %d", r, rank.name, attrOf(m, rank.name), len(markers))
			}
			rank.into[k] = p
		}
	}
	if stops != 1 {
		t.Errorf("%d Tab stops among %d markers, want 1", stops, len(markers))
	}
	for k := 1; k < len(markers); k++ {
		if nx[k].x < nx[k-1].x {
			t.Errorf("data-nx %d is left of data-nx %d", k, k-1)
		}
		if ny[k].y > ny[k-1].y {
			t.Errorf("data-ny %d is below data-ny %d", k, k-1)
		}
	}
	want := -1
	for _, m := range markers {
		if attrOf(m, "data-nx") == "0" {
			want, _ = strconv.Atoi(attrOf(m, "data-restart"))
		}
	}
	for _, m := range markers {
		if r, _ := strconv.Atoi(attrOf(m, "data-restart")); r == selected && selected >= 0 {
			want = selected
		}
	}
	if entry != want {
		t.Errorf("the Tab stop is restart %d, want %d (selected %d)", entry, want, selected)
	}
}
