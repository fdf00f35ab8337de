package anchors

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"testing"

	"github.com/deltaclue/deltaclue/engine"
	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/rng"
	"github.com/deltaclue/deltaclue/internal/idx"
	"github.com/deltaclue/deltaclue/internal/testbundle"
	"github.com/deltaclue/deltaclue/weights"
)

// TestShippedAnchorsAreWhatTheShippedModelsMake regenerates the anchors from the shipped VAE and BNN and the
// training split of `make data`, and checks that the committed weights/anchors.dcw is that file byte for byte.
func TestShippedAnchorsAreWhatTheShippedModelsMake(t *testing.T) {
	if runtime.GOOS == "js" {
		t.Skip("SKIPPED: native only (7,000 digits through the models; the engine's bits are checked in WASM elsewhere)")
	}
	root := filepath.Join("..", "..")
	b, err := weights.OpenBundleFiles(weights.ShippedBundle(), false)
	if err != nil {
		t.Fatal(err)
	}
	vae, bnn := b.VAE, b.BNN
	train, err := ReadTrain(filepath.Join(root, "data"), vae.Manifest.Dataset)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the training split is missing under CI: %v", err)
		}
		t.Skipf("SKIPPED: cannot check the shipped anchors without the training split: %v", err)
	}
	got, err := Make(b, train, vae.Manifest.Dataset, MaxEntropy)
	if err != nil {
		t.Fatal(err)
	}
	shipped, err := os.ReadFile(filepath.Join(root, "weights", weights.BundleAnchors))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, shipped) {
		t.Fatalf("weights/anchors.dcw (%d bytes) is not what the shipped models make (%d bytes): run `make anchors`", len(shipped), len(got))
	}
	f, err := weights.Decode("anchors", got)
	if err != nil {
		t.Fatal(err)
	}
	if f.Manifest.Training["vae_payload_sha256"] != vae.Manifest.PayloadSHA || f.Manifest.Training["bnn_payload_sha256"] != bnn.Manifest.PayloadSHA {
		t.Error("the anchors do not name the shipped models they were made with")
	}
	again, _ := Make(b, train, vae.Manifest.Dataset, MaxEntropy)
	if !bytes.Equal(got, again) {
		t.Error("two runs made different anchors")
	}
}

// randomItems is n seeded random inputs: each value 0 or 1, on with a chance drawn per item (per channel of a
// colour input), so that an untrained model reads them as more than one class (uniform values it reads as one);
// they are labelled 0.
func randomItems(in weights.Input, n int, seed uint64) *idx.Items {
	r := rng.New(seed)
	s := &idx.Items{Input: in, Labels: make([]uint8, n), Values: make([]uint8, n*in.Size())}
	per := in.Height * in.Width
	for i := range n {
		on := make([]float64, in.Channels)
		for c := range on {
			on[c] = r.Float64()
		}
		for j := range in.Size() {
			if q := on[j/per]; r.Float64() < q*q {
				s.Values[i*in.Size()+j] = 255
			}
		}
	}
	return s
}

// TestMakeOnAnotherBundle makes the anchors of the grey test bundle (1×12×12, four classes, MC dropout, a
// convolutional VAE) from seeded random items, some labelled as the classifier reads them and some not: the
// anchors are the codes of exactly the items read correctly below the threshold, per class, within int8's
// rounding, the same bytes twice, and the manifest speaks of the bundle's noun and files. Its untrained models
// are unsure of most items, so the threshold is theirs (0.95 nats of log 4 = 1.39), not the digits' 0.05; at the
// digits' threshold, or with classes no item is labelled, those classes have no anchors (Missing names them),
// the manifest counts 0 of them, and the others keep theirs.
func TestMakeOnAnotherBundle(t *testing.T) {
	tb, err := testbundle.Grey(3)
	if err != nil {
		t.Fatal(err)
	}
	b, err := weights.OpenBundleFiles(tb.Bytes, false)
	if err != nil {
		t.Fatal(err)
	}
	vae, bnn, err := engine.Load(b.Description, b.Files)
	if err != nil {
		t.Fatal(err)
	}
	train := randomItems(b.Description.Input, 300, 3)
	x := make([]float32, train.Len()*train.Size())
	for i := range train.Len() {
		train.Float(i, x[i*train.Size():(i+1)*train.Size()])
	}
	preds, codes := bnn.Classify(x), vae.Encode(x)
	const maxEntropy = 0.95
	want := make([][][]float32, bnn.Classes)
	for i, p := range preds {
		train.Labels[i] = uint8(p.Label())
		if i%5 == 1 { // wrong: never an anchor, however sure
			train.Labels[i] = uint8((p.Label() + 1) % bnn.Classes)
			continue
		}
		if p.Total < maxEntropy {
			want[p.Label()] = append(want[p.Label()], codes[i*vae.Latent:(i+1)*vae.Latent])
		}
	}
	split := weights.Dataset{Source: "seeded random sketches", Train: train.Len()}
	got, err := Make(b, train, split, maxEntropy)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := Make(b, train, split, maxEntropy); !bytes.Equal(got, again) {
		t.Error("two runs made different anchors")
	}
	f, err := weights.Decode("anchors", got)
	if err != nil {
		t.Fatal(err)
	}
	anchors, err := f.Anchors(bnn.Classes)
	if err != nil {
		t.Fatal(err)
	}
	for c, rows := range want {
		if len(rows) == 0 {
			t.Fatalf("class %d has no item below %v: pick other items", c, maxEntropy)
		}
		if len(anchors[c]) != len(rows)*vae.Latent {
			t.Errorf("class %d: %d anchors, want %d", c, len(anchors[c])/vae.Latent, len(rows))
			continue
		}
		for k, row := range rows {
			var scale float64
			for _, v := range row {
				scale = max(scale, math.Abs(float64(v)))
			}
			for j, v := range row {
				if d := math.Abs(float64(anchors[c][k*vae.Latent+j]) - float64(v)); d > scale/254*1.001+1e-7 {
					t.Errorf("class %d, anchor %d, coordinate %d: %v, want %v (int8 of a code of largest %v)", c, k, j, anchors[c][k*vae.Latent+j], v, scale)
				}
			}
		}
	}
	tr := f.Manifest.Training
	if tr["what"] != "encoder means of correctly classified training sketches" || tr["max_entropy"] != maxEntropy {
		t.Errorf("the manifest says %q below %v", tr["what"], tr["max_entropy"])
	}
	if tr["vae_payload_sha256"] != b.VAE.Manifest.PayloadSHA || tr["bnn_payload_sha256"] != b.BNN.Manifest.PayloadSHA {
		t.Error("the anchors do not name the bundle's files they were made with")
	}
	if f.Manifest.Dataset != split {
		t.Errorf("the manifest's dataset is %+v, want %+v", f.Manifest.Dataset, split)
	}
	// At most 2 of each class: the first 2 by index, the same codes.
	capped, err := MakeAtMost(b, train, split, maxEntropy, 2)
	if err != nil {
		t.Fatal(err)
	}
	cf, err := weights.Decode("anchors", capped)
	if err != nil {
		t.Fatal(err)
	}
	few, err := cf.Anchors(bnn.Classes)
	if err != nil {
		t.Fatal(err)
	}
	for c := range want {
		n := min(2, len(want[c])) * vae.Latent
		if len(few[c]) != n || !slices.Equal(few[c], anchors[c][:n]) {
			t.Errorf("class %d capped at 2: %d values, want the first %d of all", c, len(few[c]), n)
		}
	}
	if cf.Manifest.Training["max_per_class"] != 2.0 {
		t.Errorf("the capped anchors' manifest says %v", cf.Manifest.Training["max_per_class"])
	}

	// A class no item qualifies for has no anchors, and the file says so: Make does not refuse the models.
	atDigits := make([]bool, bnn.Classes) // the classes with an item read right below the digits' threshold
	for i, p := range preds {
		if i%5 != 1 && p.Total < MaxEntropy {
			atDigits[p.Label()] = true
		}
	}
	for _, c := range []struct {
		name       string
		label      func(i int) uint8
		maxEntropy float64
		empty      func(c int) bool
	}{
		{"the digits' threshold", nil, MaxEntropy, func(c int) bool { return !atDigits[c] }},
		{"no item labelled cross or dot", func(i int) uint8 { return min(train.Labels[i], 1) }, maxEntropy, func(c int) bool { return c >= 2 }},
	} {
		relabelled := &idx.Items{Input: train.Input, Values: train.Values, Labels: slices.Clone(train.Labels)}
		if c.label != nil {
			for i := range relabelled.Labels {
				relabelled.Labels[i] = c.label(i)
			}
		}
		made, err := Make(b, relabelled, split, c.maxEntropy)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		f, err := weights.Decode("anchors", made)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got, err := f.Anchors(bnn.Classes)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		missing, err := Missing(f, bnn.Classes)
		if err != nil {
			t.Fatal(err)
		}
		var wantMissing []int
		for k := range bnn.Classes {
			if c.empty(k) {
				wantMissing = append(wantMissing, k)
			}
			if c.empty(k) != (len(got[k]) == 0) {
				t.Errorf("%s: class %d has %d anchors", c.name, k, len(got[k])/vae.Latent)
			}
			if n := f.Manifest.Metrics[weights.AnchorCounts].(map[string]any)[strconv.Itoa(k)]; n != float64(len(got[k])/vae.Latent) {
				t.Errorf("%s: the manifest counts %v anchors of class %d, and it has %d", c.name, n, k, len(got[k])/vae.Latent)
			}
			if c.label != nil && !c.empty(k) && !slices.Equal(got[k], anchors[k]) {
				t.Errorf("%s: class %d's anchors changed", c.name, k)
			}
		}
		if len(wantMissing) == 0 || !slices.Equal(missing, wantMissing) {
			t.Errorf("%s: the classes without anchors are %v, want %v (and at least one)", c.name, missing, wantMissing)
		}
		if c.label != nil {
			s2OverAnchored(t, tb.Bytes, made, x[:train.Size()], missing)
		}
	}
	wrongSize := &idx.Items{Input: weights.Input{Height: 28, Width: 28, Channels: 1}, Values: make([]uint8, 28*28), Labels: []uint8{0}}
	if _, err := Make(b, wrongSize, split, maxEntropy); err == nil || err.Error() != "the training sketches have 784 values each, and the models read 144" {
		t.Errorf("items of another size: got %v", err)
	}
}

// s2OverAnchored opens the bundle with the anchors made (some classes without any) as the page's worker and the
// command line do (clue.LoadBundle), and checks that S2 spreads its 20 restarts over the anchored classes only,
// as many to each (perClass), each run of starts heading for a code of its class.
func s2OverAnchored(t *testing.T, bundle, made []byte, x0 []float32, missing []int) {
	t.Helper()
	files, err := weights.DecodeBundle(bundle)
	if err != nil {
		t.Fatal(err)
	}
	b, err := weights.OpenBundleFiles(weights.EncodeBundle(append(files, weights.BundleFile{Name: weights.BundleAnchors, Data: made})), false)
	if err != nil {
		t.Fatal(err)
	}
	m, err := clue.LoadBundle(b)
	if err != nil {
		t.Fatal(err)
	}
	anchored := m.AnchoredClasses()
	if !slices.Equal(m.UnanchoredClasses(), missing) || len(anchored)+len(missing) != m.BNN.Classes {
		t.Fatalf("the models read %v as anchored and %v as not, want all but %v", anchored, m.UnanchoredClasses(), missing)
	}
	prob, err := clue.NewProblem(m, x0)
	if err != nil {
		t.Fatal(err)
	}
	p := clue.Defaults()
	p.Scheme, p.N = clue.S2, 20
	starts, err := clue.Starts(prob, p)
	if err != nil {
		t.Fatal(err)
	}
	each := len(starts) / len(anchored)
	if len(starts) != 20 || each*len(anchored) != 20 {
		t.Fatalf("%d starts over %d anchored classes", len(starts), len(anchored))
	}
	d := m.VAE.Latent
	for i, y := range anchored {
		// The last start of the class's run lies at radius δ on the segment toward its nearest anchor, which is
		// one of the class's codes: the direction to one of them.
		last := starts[(i+1)*each-1]
		found := false
		for k := 0; k+d <= len(m.Anchors[y]); k += d {
			var dot, n1, n2 float64
			for j := range d {
				a, b := last[j]-float64(prob.Z0[j]), float64(m.Anchors[y][k+j])-float64(prob.Z0[j])
				dot, n1, n2 = dot+a*b, n1+a*a, n2+b*b
			}
			if math.Abs(dot/math.Sqrt(n1*n2)-1) < 1e-9 {
				found = true
			}
		}
		if !found {
			t.Errorf("S2's starts %d to %d head for no code of class %d", i*each, (i+1)*each-1, y)
		}
	}
}
