// Package glam is GLAM-CLUE (Ley, Bhatt & Weller, "Diverse, Global and Amortised Counterfactual Explanations
// for Uncertainty Estimates", AAAI 2022) on the engine: mappings learned once for groups of uncertain inputs that
// take a member, in one function call, to an input the model is sure about.
//
// A group a→b is the uncertain training inputs the BNN reads as a whose δ-CLUEs reach a confident b (Groups). Its
// mapping is one translation t ∈ ℝ^latent of the VAE's latent space, learned with gomlx (training.TrainTranslation)
// to minimise the group's mean δ-CLUE loss towards b. At use, an input's amortised answer towards b is
// z0 + k·t for the smallest k on a short ladder (Ladder, k ≤ 2) that makes the BNN sure of b (the scale per input
// is GLOBE-CE's, Ley, Mishra & Magazzeni, ICML 2023).
//
// Everything here is the engine's arithmetic in a fixed order: the same inputs give the same bits natively and in
// WASM.
package glam

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/weights"
)

// Ladder is the scales k tried for an answer, smallest first: the first that makes the model sure of the
// target is the answer. It stops at 2, the cap that keeps an answer near: on the digits' uncertain test digits
// (docs/global.md) a cap at ‖k·t‖ ≤ δ (the ball δ-CLUE searches) made only 53 % of them sure of the target, k ≤ 2
// makes 97 % sure, and k up to 3 (CurveLadder) adds 1.6 points.
var Ladder = []float32{0.25, 0.5, 0.75, 1, 1.25, 1.5, 2}

// CurveLadder is Ladder continued beyond its cap, for the cost–coverage curves.
var CurveLadder = append(append([]float32(nil), Ladder...), 2.5, 3)

// Translation is the learned mapping of one group a→b.
type Translation struct {
	From    int       `json:"from"`    // a: the label the BNN reads on the members
	To      int       `json:"to"`      // b: the label their δ-CLUEs reach
	T       []float32 `json:"t"`       // the translation, one value per latent dimension
	Members int       `json:"members"` // how many training inputs it was learned on
}

// Norm is ‖t‖₂.
func (t Translation) Norm() float64 {
	s := 0.0
	for _, v := range t.T {
		s += float64(v) * float64(v)
	}
	return math.Sqrt(s)
}

// Answer is one amortised explanation: z0 + K·t of a translation From→To.
type Answer struct {
	From, To int
	K        float32   // the ladder's scale taken (its last when none made the model sure)
	Shift    float32   // ‖K·t‖₂, the latent distance from z0
	Z        []float32 // z0 + K·t
	Image    []float32 // μθ(Z), an image of the models' input
	Label    int       // the BNN's most probable class on Image
	Probs    []float32 // its p̄
	HTotal   float32
	Distance float32 // L1 distance of Image from x0 (summed over pixels, as δ-CLUE's d)
	Sure     bool    // Label == To and HTotal < the threshold
}

// Rung is the model's view of z0 + K·t for one scale K of the ladder.
type Rung struct {
	K, Shift float32 // the scale and ‖K·t‖₂
	Z        []float32
	Image    []float32
	Label    int
	Probs    []float32
	HTotal   float32
	Distance float32 // L1 distance of Image from x0
}

// Sure says whether the rung makes the model sure of label b (its label, with H_total under hThreshold).
func (r Rung) Sure(b int, hThreshold float64) bool {
	return r.Label == b && float64(r.HTotal) < hThreshold
}

// Rungs decodes and classifies z0 + k·t for each k of ks in one batch.
func Rungs(m *clue.Models, t Translation, x0, z0 []float32, ks []float32) []Rung {
	return rungs(m, []*Translation{&t}, x0, z0, ks)[0]
}

// rungs is Rungs for several translations at once, all in one batch (the BNN's twenty weight sets are read once
// for the batch, which costs more than its rows): rungs(…)[i][r] is z0 + ks[r]·ts[i]. A row's bits do not depend
// on the batch it is in.
func rungs(m *clue.Models, ts []*Translation, x0, z0 []float32, ks []float32) [][]Rung {
	latent := m.VAE.Latent
	z := make([]float32, len(ts)*len(ks)*latent)
	for i, t := range ts {
		for r, k := range ks {
			row := z[(i*len(ks)+r)*latent:]
			for j := 0; j < latent; j++ {
				row[j] = z0[j] + k*t.T[j]
			}
		}
	}
	images := m.VAE.DecodeImages(z)
	norms := make([]float64, len(ts))
	for i, t := range ts {
		norms[i] = t.Norm()
	}
	out := make([][]Rung, len(ts))
	for n, u := range m.BNN.Classify(images) {
		i, r := n/len(ks), n%len(ks)
		if out[i] == nil {
			out[i] = make([]Rung, len(ks))
		}
		size := m.VAE.Image.Size()
		img := images[n*size : (n+1)*size]
		out[i][r] = Rung{K: ks[r], Shift: float32(float64(ks[r]) * norms[i]), Z: z[n*latent : (n+1)*latent], Image: img,
			Label: u.Label(), Probs: u.Probs, HTotal: u.Total, Distance: l1(img, x0)}
	}
	return out
}

// firstRound is how many of Ladder's rungs Explain tries before the rest: k ≤ 1 made 362 of the 425 sure answers
// on the digits' uncertain test digits sure (docs/global.md).
const firstRound = 4

// Explain returns the amortised answers for x0 (an image of the models' input) with code z0, towards each label of targets for
// which a translation from the label read on x0 (from) exists, in the order of targets: the first rung of Ladder
// that makes the BNN sure of the target (H_total < hThreshold) is the answer; if none does, the last rung, marked
// not sure. The ladder is tried in two rounds, each one batch for every target: its first rungs (k ≤ 1), then the
// rest for the targets none of those made sure. A rung's bits do not depend on its batch, so the answers are
// those of trying every rung, at about half the work.
func Explain(m *clue.Models, ts []Translation, x0, z0 []float32, from int, targets []int, hThreshold float64) []Answer {
	type answer struct {
		to   int
		t    *Translation
		rung Rung
		sure bool
	}
	var as []answer
	for _, b := range targets {
		if t := find(ts, from, b); t != nil && len(t.T) == m.VAE.Latent {
			as = append(as, answer{to: b, t: t})
		}
	}
	for _, ks := range [][]float32{Ladder[:firstRound], Ladder[firstRound:]} {
		var open []int // the answers no rung has made sure yet
		var openT []*Translation
		for i := range as {
			if !as[i].sure {
				open, openT = append(open, i), append(openT, as[i].t)
			}
		}
		if len(open) == 0 {
			break
		}
		for n, rs := range rungs(m, openT, x0, z0, ks) {
			a := &as[open[n]]
			a.rung = rs[len(rs)-1] // the last rung tried, until one is sure
			for _, r := range rs {
				if r.Sure(a.to, hThreshold) {
					a.rung, a.sure = r, true
					break
				}
			}
		}
	}
	out := make([]Answer, 0, len(as))
	for _, a := range as {
		r := a.rung
		out = append(out, Answer{From: from, To: a.to, K: r.K, Shift: r.Shift, Z: r.Z, Image: r.Image, Label: r.Label,
			Probs: r.Probs, HTotal: r.HTotal, Distance: r.Distance, Sure: a.sure})
	}
	return out
}

// PlausibleMin is the predictive probability from which a label gets an amortised answer (Plausible's min in
// the worker's inspections and in `deltaclue explain`).
const PlausibleMin = 0.05

// Plausible is the labels worth an amortised answer for a prediction p̄: those with p̄ ≥ min, most probable
// first.
func Plausible(probs []float32, min float32) []int {
	var ls []int
	for k, p := range probs {
		if p >= min {
			ls = append(ls, k)
		}
	}
	sort.SliceStable(ls, func(i, j int) bool { return probs[ls[i]] > probs[ls[j]] })
	return ls
}

func find(ts []Translation, from, to int) *Translation {
	for i := range ts {
		if ts[i].From == from && ts[i].To == to {
			return &ts[i]
		}
	}
	return nil
}

func l1(a, b []float32) float32 {
	var s float32
	for i := range a {
		s += float32(math.Abs(float64(a[i] - b[i])))
	}
	return s
}

// Model is the weights-file model name of a file of translations.
const Model = "glam"

// TensorName is the name of translation a→b in its file.
func TensorName(from, to int) string { return fmt.Sprintf("glam/%d-%d", from, to) }

// Encode writes translations as a weights file (float32 tensors "glam/a-b" of shape [latent], each group's size in
// the manifest's training record, with extra, which may be nil).
func Encode(ts []Translation, latent int, dataset weights.Dataset, extra map[string]any) ([]byte, error) {
	var named []weights.Named
	members := map[string]any{}
	for _, t := range ts {
		if len(t.T) != latent {
			return nil, fmt.Errorf("translation %d→%d has %d values, the latent space %d", t.From, t.To, len(t.T), latent)
		}
		named = append(named, weights.Named{Name: TensorName(t.From, t.To), Shape: []int{latent}, Values: t.T})
		members[TensorName(t.From, t.To)] = t.Members
	}
	training := map[string]any{"members": members}
	for k, v := range extra {
		training[k] = v
	}
	return weights.Encode(weights.Manifest{Model: Model, Architecture: weights.Architecture{Latent: latent}, Dataset: dataset,
		Training: training}, named)
}

// parseName reads a TensorName back (strconv, not fmt's scanner: the search worker does not link it).
func parseName(name string) (from, to int, ok bool) {
	rest, found := strings.CutPrefix(name, "glam/")
	as, bs, dash := strings.Cut(rest, "-")
	a, err1 := strconv.Atoi(as)
	b, err2 := strconv.Atoi(bs)
	if !found || !dash || err1 != nil || err2 != nil || a < 0 || b < 0 || TensorName(a, b) != name {
		return 0, 0, false
	}
	return a, b, true
}

// Shipped returns the shipped translations (weights/global.dcw).
func Shipped() ([]Translation, error) {
	f, err := weights.ShippedGlobal()
	if err != nil {
		return nil, err
	}
	return Decode(f)
}

// Decode reads the translations of a weights file made by Encode, checking each tensor's name and shape.
func Decode(f *weights.File) ([]Translation, error) {
	if f.Manifest.Model != Model {
		return nil, fmt.Errorf("%s: a %q file, not translations (%q)", f.Name, f.Manifest.Model, Model)
	}
	latent := f.Manifest.Architecture.Latent
	members, _ := f.Manifest.Training["members"].(map[string]any)
	var ts []Translation
	for _, t := range f.Manifest.Tensors {
		a, b, ok := parseName(t.Name)
		if !ok {
			return nil, fmt.Errorf("%s: tensor %q is not a translation glam/a-b", f.Name, t.Name)
		}
		if len(t.Shape) != 1 || t.Shape[0] != latent {
			return nil, fmt.Errorf("%s: translation %s has shape %v, want [%d]", f.Name, t.Name, t.Shape, latent)
		}
		v, err := f.Tensor(t.Name, latent)
		if err != nil {
			return nil, err
		}
		n, _ := members[t.Name].(float64)
		ts = append(ts, Translation{From: a, To: b, T: v, Members: int(n)})
	}
	return ts, nil
}

// Attach gives the models GLAM-CLUE's amortised points (clue.Models.Amortised), which scheme S6 starts from:
// for an input read as a, its answer (Explain, at the models' default threshold, clue.Models.Defaults, so the
// points are the amortised answers the page shows) towards every label b with a translation a→b, in the order
// of b.
func Attach(m *clue.Models, ts []Translation) {
	if len(ts) == 0 {
		m.Amortised = nil
		return
	}
	ts = append([]Translation(nil), ts...)
	m.Amortised = func(x0, z0 []float32, from int) [][]float32 {
		targets := make([]int, m.BNN.Classes)
		for b := range targets {
			targets[b] = b
		}
		var points [][]float32
		for _, a := range Explain(m, ts, x0, z0, from, targets, m.Defaults().HThreshold) {
			points = append(points, a.Z)
		}
		return points
	}
}

// LoadBundle builds the search's models of an opened bundle (clue.LoadBundle) with its translations, if it has
// them (weights.BundleGlobal), decoded and attached (scheme S6 available); without them, ts is nil and S6
// unavailable.
func LoadBundle(b *weights.Bundle) (m *clue.Models, ts []Translation, err error) {
	if m, err = clue.LoadBundle(b); err != nil {
		return nil, nil, err
	}
	if b.Global == nil {
		return m, nil, nil
	}
	if latent := b.Global.Manifest.Architecture.Latent; latent != m.VAE.Latent {
		return nil, nil, fmt.Errorf("%s: translations of dimension %d for a latent space of %d", b.Global.Name, latent, m.VAE.Latent)
	}
	if ts, err = Decode(b.Global); err != nil {
		return nil, nil, err
	}
	Attach(m, ts)
	return m, ts, nil
}

// ShippedModels is clue.ShippedModels with the shipped translations attached (scheme S6 available).
func ShippedModels() (*clue.Models, error) {
	m, err := clue.ShippedModels()
	if err != nil {
		return nil, err
	}
	ts, err := Shipped()
	if err != nil {
		return nil, err
	}
	Attach(m, ts)
	return m, nil
}
