//go:build !js

package app

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"sort"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/glam"
	"github.com/deltaclue/deltaclue/internal/dataset"
	"github.com/deltaclue/deltaclue/weights"
)

// Making the global view's data (global.json) from what `deltaclue global` measured (its groups.json) and the
// models: natively only (cmd/site for a models folder, and the test that checks the digits' committed
// web/global.json), never in app.wasm.

// measuredGroups is the part of groups.json (deltaclue global) the page shows.
type measuredGroups struct {
	Uncertain int `json:"uncertain"`
	Searched  int `json:"searched"` // when fewer than Uncertain were searched (the import's budget, -digits)
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

// MakeGlobalData makes the global view's data from groups.json (what `deltaclue global` measured on the test
// items), the models and their translations: each member's amortised answer computed again (it must be the
// measured one: else the models or translations changed since), each group's strip (one member moved along k·t,
// decoded and classified) and the members' values and thumbnails. A group with no member among the test items
// is left out: it has no case to show nor a member to move.
func MakeGlobalData(groupsJSON []byte, m *clue.Models, ts []glam.Translation, items dataset.Items, in weights.Input) ([]byte, error) {
	var mg measuredGroups
	if err := json.Unmarshal(groupsJSON, &mg); err != nil {
		return nil, fmt.Errorf("groups.json: %v", err)
	}
	g := GlobalData{Uncertain: mg.Uncertain, Searched: mg.Searched, Cases: mg.Totals.Cases, Coverage: mg.Totals.Coverage, MeanDistance: mg.Totals.MeanDistance,
		MeanSearchDistance: mg.Totals.MeanSearchDistance, AnswerMs: mg.Totals.AnswerMs, SearchMs: mg.Totals.SearchMs,
		Delta: mg.Params.Delta, Ks: []float32{0.5, 1, 1.5, 2}}
	members := map[int]bool{}
	hThreshold := m.Defaults().HThreshold // the models' own, as the worker's amortised answers use
	item := func(i int) ([]float32, error) {
		if i < 0 || i >= items.Len() {
			return nil, fmt.Errorf("groups.json names test item %d of %d", i, items.Len())
		}
		return items.Float(i, nil), nil
	}
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
		if len(gr.Cases) != gr.Members {
			return nil, fmt.Errorf("group %d→%d: %d member cases, %d members", gr.From, gr.To, len(gr.Cases), gr.Members)
		}
		if gr.Members == 0 { // learned on training items, none of which the test items resemble: nothing to show
			continue
		}
		gr.Strip.Digit = gr.Cases[0].Digit
		for _, c := range gr.Cases {
			if c.Sure {
				gr.Strip.Digit = c.Digit
				break
			}
		}
		var tr glam.Translation
		found := false
		for _, x := range ts {
			if x.From == gr.From && x.To == gr.To {
				tr, found = x, true
			}
		}
		if !found {
			return nil, fmt.Errorf("group %d→%d has no translation among the models'", gr.From, gr.To)
		}
		for _, c := range gr.Cases { // the measured answers are the models' answers today
			x0, err := item(c.Digit)
			if err != nil {
				return nil, err
			}
			as := glam.Explain(m, ts, x0, m.VAE.Encode(x0), gr.From, []int{gr.To}, hThreshold)
			if len(as) != 1 || as[0].Sure != c.Sure || as[0].K != c.K || as[0].Distance != c.Distance {
				return nil, fmt.Errorf("group %d→%d, item %d: the models answer %+v, groups.json measured %+v: after new models or "+
					"translations, run deltaclue global again", gr.From, gr.To, c.Digit, as, c)
			}
		}
		x0, err := item(gr.Strip.Digit)
		if err != nil {
			return nil, err
		}
		for _, r := range glam.Rungs(m, tr, x0, m.VAE.Encode(x0), g.Ks) {
			gr.Strip.Frames = append(gr.Strip.Frames, Thumbnail(r.Image, in))
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
		x, err := item(i)
		if err != nil {
			return nil, err
		}
		u := m.BNN.Classify(x)[0]
		q := make([]byte, len(x))
		for j, v := range x {
			q[j] = byte(v*255 + 0.5)
		}
		g.Digits = append(g.Digits, GlobalDigit{Index: i, Label: items.Label(i), Read: u.Label(), H: u.Total,
			Pixels: base64.StdEncoding.EncodeToString(q), Thumb: Thumbnail(x, in)})
	}
	js, err := json.Marshal(g)
	return append(js, '\n'), err
}

// Thumbnail is an input as a PNG data URL at its own size: ink dark on white (grey), colour as it is.
func Thumbnail(x []float32, in weights.Input) string {
	w, h := in.Width, in.Height
	var img image.Image
	if in.Channels == 1 {
		g := image.NewGray(image.Rect(0, 0, w, h))
		for i, v := range x {
			g.SetGray(i%w, i/w, color.Gray{uint8(255 - 255*v)})
		}
		img = g
	} else {
		c := image.NewRGBA(image.Rect(0, 0, w, h))
		plane := w * h
		byte := func(v float32) uint8 { return uint8(255*min(max(v, 0), 1) + 0.5) }
		for i := 0; i < plane; i++ {
			c.SetRGBA(i%w, i/w, color.RGBA{byte(x[i]), byte(x[plane+i]), byte(x[2*plane+i]), 255})
		}
		img = c
	}
	var b bytes.Buffer
	png.Encode(&b, img)
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(b.Bytes())
}
