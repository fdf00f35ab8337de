package glam

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/mnist"
	"github.com/deltaclue/deltaclue/weights"
)

func TestGroups(t *testing.T) {
	rs := []Reached{
		{Index: 3, Read: 4, Labels: []int{4, 9}},
		{Index: 5, Read: 4, Labels: []int{9}},
		{Index: 8, Read: 7, Labels: []int{1}},
		{Index: 9, Read: 4, Labels: []int{4, 9}},
		{Index: 11, Read: 7, Labels: nil},
	}
	want := []Group{{From: 4, To: 4, Members: []int{3, 9}}, {From: 4, To: 9, Members: []int{3, 5, 9}}}
	if got := Groups(rs, 2); !reflect.DeepEqual(got, want) {
		t.Errorf("Groups(min 2) = %+v, want %+v", got, want)
	}
	if got := Groups(rs, 4); len(got) != 0 {
		t.Errorf("Groups(min 4) = %+v, want none", got)
	}
}

func TestSpread(t *testing.T) {
	idx := []int{3, 5, 8, 13, 21, 34, 55, 89, 144, 233}
	read := []int{0, 0, 0, 0, 1, 1, 1, 2, 2, 2}
	gotIdx, gotRead := Spread(idx, read, 4)
	if want := []int{3, 8, 34, 89}; !slices.Equal(gotIdx, want) {
		t.Errorf("Spread(…, 4) = %v, want %v", gotIdx, want)
	}
	if want := []int{0, 0, 1, 2}; !slices.Equal(gotRead, want) {
		t.Errorf("Spread(…, 4)'s labels = %v, want %v: every class of a class-by-class list gets its share", gotRead, want)
	}
	for _, n := range []int{0, -1, 10, 11} {
		if i, r := Spread(idx, read, n); !slices.Equal(i, idx) || !slices.Equal(r, read) {
			t.Errorf("Spread(…, %d) = %v %v, want everything", n, i, r)
		}
	}
}

func TestPlausible(t *testing.T) {
	p := []float32{0.01, 0.3, 0, 0, 0.55, 0, 0, 0.1, 0, 0.04}
	if got, want := Plausible(p, 0.05), []int{4, 1, 7}; !reflect.DeepEqual(got, want) {
		t.Errorf("Plausible = %v, want %v", got, want)
	}
}

func TestEncodeDecode(t *testing.T) {
	ts := []Translation{{From: 4, To: 9, T: []float32{1, -2, 3}, Members: 31}, {From: 7, To: 1, T: []float32{0.5, 0, -0.25}, Members: 23}}
	b, err := Encode(ts, 3, weights.Dataset{Source: "test"}, map[string]any{"note": "x"})
	if err != nil {
		t.Fatal(err)
	}
	f, err := weights.Decode("global.dcw", b)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, ts) {
		t.Errorf("round trip: %+v, want %+v", got, ts)
	}
	if _, err := Encode([]Translation{{From: 1, To: 2, T: []float32{1}}}, 3, weights.Dataset{}, nil); err == nil {
		t.Error("a translation of the wrong length was encoded")
	}
	// A weights file that is not translations, or whose tensors are not named or shaped as translations.
	anchors, _ := weights.ShippedAnchors()
	if _, err := Decode(anchors); err == nil {
		t.Error("the anchors were read as translations")
	}
	for _, named := range [][]weights.Named{
		{{Name: "glam/4-x", Shape: []int{3}, Values: []float32{1, 2, 3}}},
		{{Name: "glam/4-9", Shape: []int{2}, Values: []float32{1, 2}}},
		{{Name: "glam/04-9", Shape: []int{3}, Values: []float32{1, 2, 3}}},
	} {
		b, err := weights.Encode(weights.Manifest{Model: Model, Architecture: weights.Architecture{Latent: 3}}, named)
		if err != nil {
			t.Fatal(err)
		}
		f, err := weights.Decode("bad.dcw", b)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Decode(f); err == nil {
			t.Errorf("tensor %q of shape %v was read as a translation", named[0].Name, named[0].Shape)
		}
	}
}

// FuzzDecode feeds arbitrary bytes through the weights decoder and then this one: an error, never a panic, and
// whatever is read has one value per latent dimension.
func FuzzDecode(f *testing.F) {
	b, _ := Encode([]Translation{{From: 4, To: 9, T: []float32{1, -2}, Members: 3}}, 2, weights.Dataset{}, nil)
	f.Add(b)
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := weights.Decode("fuzz.dcw", data)
		if err != nil {
			return
		}
		ts, err := Decode(w)
		if err != nil {
			return
		}
		for _, tr := range ts {
			if len(tr.T) != w.Manifest.Architecture.Latent {
				t.Fatalf("translation %d→%d has %d values, latent %d", tr.From, tr.To, len(tr.T), w.Manifest.Architecture.Latent)
			}
		}
	})
}

// TestShippedTranslations reads weights/global.dcw and runs the amortised answers on the first 40 uncertain test
// digits towards each label the BNN finds plausible (p̄ ≥ 0.05): how many make the model sure is checked
// against what was measured, and every answer's bits against a golden hash (natively and in WASM).
func TestShippedTranslations(t *testing.T) {
	ts, err := Shipped()
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) < 20 || len(ts[0].T) != 16 {
		t.Fatalf("%d translations of dimension %d: want at least 20, of 16", len(ts), len(ts[0].T))
	}
	m, err := clue.ShippedModels()
	if err != nil {
		t.Fatal(err)
	}
	set, err := mnist.HeldOut()
	if err != nil {
		t.Fatal(err)
	}
	p := clue.Defaults()
	h := sha256.New()
	answers, sure, digits := 0, 0, 0
	x0 := make([]float32, 784)
	for i := 0; i < set.Len() && digits < 40; i++ {
		set.Float(i, x0)
		u := m.BNN.Classify(x0)[0]
		if float64(u.Total) <= p.HThreshold {
			continue
		}
		digits++
		z0 := m.VAE.Encode(x0)
		for _, a := range Explain(m, ts, x0, z0, u.Label(), Plausible(u.Probs, 0.05), p.HThreshold) {
			answers++
			if a.Sure {
				sure++
			}
			if a.K > Ladder[len(Ladder)-1] {
				t.Errorf("digit %d, %d→%d: k = %v beyond the ladder's cap", i, a.From, a.To, a.K)
			}
			for _, v := range append(append(append([]float32{a.K, a.Shift, a.HTotal, a.Distance}, a.Z...), a.Image...), a.Probs...) {
				binary.Write(h, binary.LittleEndian, math.Float32bits(v))
			}
			binary.Write(h, binary.LittleEndian, int32(a.Label))
		}
	}
	got := hex.EncodeToString(h.Sum(nil))[:16]
	t.Logf("%d digits, %d answers, %d sure; hash %s", digits, answers, sure, got)
	if answers < 40 || sure*10 < answers*9 { // measured: 70 answers, 68 sure
		t.Errorf("%d answers of which %d sure: want at least 40, 90 %% sure", answers, sure)
	}
	if want := "db41063c43f28735"; got != want {
		t.Errorf("answers hash %s, want %s", got, want)
	}
}

// TestSchemeS6 runs scheme S6 with the shipped translations on the test digit the BNN is least sure of: its
// first starts are the amortised answers towards every label with a translation from the label read (projected
// into the ball), and the search's bits match a golden hash natively and in WASM.
func TestSchemeS6(t *testing.T) {
	m, err := ShippedModels()
	if err != nil {
		t.Fatal(err)
	}
	ts, _ := Shipped()
	set, err := mnist.HeldOut()
	if err != nil {
		t.Fatal(err)
	}
	prob, err := clue.NewProblem(m, set.Float(1735, nil))
	if err != nil {
		t.Fatal(err)
	}
	p := clue.Defaults()
	p.Scheme, p.N, p.MaxSteps = clue.S6, 20, 25
	starts, err := clue.Starts(prob, p)
	if err != nil {
		t.Fatal(err)
	}
	from := prob.Pred0.Label()
	var targets []int
	for _, tr := range ts {
		if tr.From == from {
			targets = append(targets, tr.To)
		}
	}
	answers := Explain(m, ts, prob.X0, prob.Z0, from, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, p.HThreshold)
	if len(answers) != len(targets) || len(answers) < 2 {
		t.Fatalf("%d answers from label %d, %d translations: want one per translation, at least 2", len(answers), from, len(targets))
	}
	for i, a := range answers {
		var off, toStart float64
		for k := range a.Z {
			off += math.Pow(float64(a.Z[k]-prob.Z0[k]), 2)
		}
		scale := math.Min(1, p.Delta/math.Sqrt(off)) // the projection onto the ball
		for k := range a.Z {
			want := float64(prob.Z0[k]) + scale*float64(a.Z[k]-prob.Z0[k])
			toStart = math.Max(toStart, math.Abs(starts[i][k]-want))
		}
		if toStart > 1e-6 {
			t.Errorf("restart %d starts %v from the amortised answer %d→%d (projected)", i, toStart, from, a.To)
		}
	}
	exps, err := clue.Search(context.Background(), prob, p, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	labels := map[int]bool{}
	for _, e := range exps {
		for _, v := range [][]float32{e.Z, e.Image, e.Probs, {e.HTotal, e.Distance, e.Rho, e.Cost}} {
			binary.Write(h, binary.LittleEndian, v)
		}
		binary.Write(h, binary.LittleEndian, int64(e.Steps))
		if e.Accepted {
			labels[e.Label] = true
		}
	}
	got := hex.EncodeToString(h.Sum(nil))[:16]
	t.Logf("label read %d, %d targets, accepted labels %v, hash %s", from, len(targets), labels, got)
	if want := "9d643a874e7761da"; got != want {
		t.Errorf("S6 search hash %s, want %s", got, want)
	}
}

// BenchmarkExplain is the instant answer's cost: the amortised answers for test digit 1735 (read as 7, unsure of
// 7 and 8) towards every plausible label, as a worker makes them after each stroke.
func BenchmarkExplain(b *testing.B) {
	m, err := clue.ShippedModels()
	if err != nil {
		b.Fatal(err)
	}
	ts, err := Shipped()
	if err != nil {
		b.Fatal(err)
	}
	set, err := mnist.HeldOut()
	if err != nil {
		b.Fatal(err)
	}
	x0 := set.Float(1735, nil)
	u := m.BNN.Classify(x0)[0]
	z0 := m.VAE.Encode(x0)
	targets := Plausible(u.Probs, PlausibleMin)
	b.ReportMetric(float64(len(targets)), "labels")
	for b.Loop() {
		Explain(m, ts, x0, z0, u.Label(), targets, clue.Defaults().HThreshold)
	}
}

// TestLoadBundle: the shipped bundle loads into the models and translations the shipped files give, bit for bit
// (the CLI's -models digits runs on what it always ran on), and a bundle without translations loads without S6.
func TestLoadBundle(t *testing.T) {
	b, err := weights.OpenBundleFiles(weights.ShippedBundle(), false)
	if err != nil {
		t.Fatal(err)
	}
	m, ts, err := LoadBundle(b)
	if err != nil {
		t.Fatal(err)
	}
	want, err := ShippedModels()
	if err != nil {
		t.Fatal(err)
	}
	shipped, _ := Shipped()
	if !reflect.DeepEqual(ts, shipped) || m.Amortised == nil || !reflect.DeepEqual(m.Anchors, want.Anchors) {
		t.Fatal("the bundle's translations or anchors differ from the shipped ones")
	}
	set, _ := mnist.HeldOut()
	for _, i := range []int{0, 42, 1735} {
		x := set.Float(i, nil)
		z := m.VAE.Encode(x)
		if !reflect.DeepEqual(z, want.VAE.Encode(x)) || !reflect.DeepEqual(m.BNN.Classify(x), want.BNN.Classify(x)) {
			t.Errorf("digit %d: the bundle's models encode or classify it otherwise", i)
		}
		from := m.BNN.Classify(x)[0].Label()
		if !reflect.DeepEqual(m.Amortised(x, z, from), want.Amortised(x, z, from)) {
			t.Errorf("digit %d: other amortised points", i)
		}
	}
	files, _ := weights.DecodeBundle(weights.ShippedBundle())
	var kept []weights.BundleFile
	for _, f := range files {
		if f.Name != weights.BundleGlobal {
			kept = append(kept, f)
		}
	}
	b, err = weights.OpenBundleFiles(weights.EncodeBundle(kept), false)
	if err != nil {
		t.Fatal(err)
	}
	if m, ts, err = LoadBundle(b); err != nil || ts != nil || m.Amortised != nil {
		t.Errorf("a bundle without translations: %v, %d translations", err, len(ts))
	}
}
