package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/sharelink"
	"github.com/deltaclue/deltaclue/engine/glam"
	"github.com/deltaclue/deltaclue/engine/rng"
	"github.com/deltaclue/deltaclue/internal/idx"
	"github.com/deltaclue/deltaclue/internal/modelsource"
	"github.com/deltaclue/deltaclue/internal/testbundle"
	"github.com/deltaclue/deltaclue/weights"
)

// greyModels writes testbundle.Grey as a models folder with n seeded test items (none when n is 0).
func greyModels(t *testing.T, n int) string {
	t.Helper()
	b, err := testbundle.Grey(5)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if n == 0 {
		err = modelsource.WriteDir(dir, b.Bytes, nil)
	} else {
		err = modelsource.WriteDir(dir, b.Bytes, b.Items(n, 11))
	}
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// readReport reads explain.json from out.
func readReport(t *testing.T, out string) clue.Report {
	t.Helper()
	var rep clue.Report
	b, err := os.ReadFile(filepath.Join(out, "explain.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestExplainAnotherModel: explain runs on a models folder's test item, writes every file with the model's
// shape and names, and the item's share link (v3, named for the models) gives the same set.
func TestExplainAnotherModel(t *testing.T) {
	dir := greyModels(t, 5)
	out := t.TempDir()
	if err := explain([]string{"-models", dir, "-index", "0", "-n", "24", "-delta", "4", "-max-steps", "60", "-out", out}); err != nil {
		t.Fatal(err)
	}
	rep := readReport(t, out)
	accepted := 0
	for _, e := range rep.Explanations {
		if len(e.Image) != 144 {
			t.Fatalf("restart %d: an image of %d values, want 12×12", e.Restart, len(e.Image))
		}
		if e.Accepted {
			accepted++
		}
	}
	if len(rep.X0) != 144 || len(rep.Explanations) != 24 || rep.Summary.Restarts != 24 || len(rep.Prediction.Probs) != 4 || accepted == 0 {
		t.Fatalf("report: %d values, %d explanations (%d accepted), %d classes", len(rep.X0), len(rep.Explanations), accepted, len(rep.Prediction.Probs))
	}
	if !strings.HasPrefix(rep.Input, "test sketch 0 (true label ") {
		t.Errorf("input %q", rep.Input)
	}
	for _, name := range []string{"grid.png", "labels.png", "summary.png", "tradeoff.svg", "latent.svg", "set.csv"} {
		if b, err := os.ReadFile(filepath.Join(out, name)); err != nil || len(b) < 100 {
			t.Errorf("%s: %v", name, err)
		}
	}
	f, _ := os.Open(filepath.Join(out, "grid.png"))
	defer f.Close()
	grid, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	// 12×12 at 4× in cells of the digits' width, 3 rows of 10.
	if w, h := grid.Bounds().Dx(), grid.Bounds().Dy(); w != 16+10*gridCellW || h != 90+3*(10+48+2+8+20)+8 {
		t.Errorf("grid is %d×%d", w, h)
	}

	// The item's link, as the page makes it, round-trips and gives the same explanations.
	m, err := modelsource.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := sharelink.State{Models: m.Name(), Model: m.Bundle.Fingerprint(), Height: 12, Width: 12, Channels: 1,
		Image: sharelink.Quantize(m.Test.Float(0, nil)), Params: rep.Params, Selected: sharelink.NoSelection}
	link := "#" + sharelink.Encode(s)
	back, err := sharelink.Decode(link)
	if err != nil || !back.Same(s) || back.Version != 3 {
		t.Fatalf("the link does not round-trip: %v, version %d", err, back.Version)
	}
	fromLink := t.TempDir()
	if err := explain([]string{"-models", dir, "-link", link, "-out", fromLink}); err != nil {
		t.Fatal(err)
	}
	again := readReport(t, fromLink)
	if !reflect.DeepEqual(again.Explanations, rep.Explanations) || !reflect.DeepEqual(again.X0, rep.X0) {
		t.Error("the link's set differs from -index 0's")
	}
	for _, name := range []string{"grid.png", "labels.png", "tradeoff.svg", "set.csv"} {
		a, _ := os.ReadFile(filepath.Join(out, name))
		b, _ := os.ReadFile(filepath.Join(fromLink, name))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between -index 0 and its link", name)
		}
	}
	// The link is refused where other models run, by name.
	if err := explain([]string{"-link", link, "-out", t.TempDir()}); err == nil || !strings.Contains(err.Error(), `made for the "grey-test" models`) {
		t.Errorf("the grey link with the digits: %v", err)
	}

	// A picture of any size is made into the model's 12×12 input.
	img := image.NewGray(image.Rect(0, 0, 60, 40))
	for y := 10; y < 30; y++ {
		for x := 20; x < 35; x++ {
			img.SetGray(x, y, color.Gray{255})
		}
	}
	path := filepath.Join(t.TempDir(), "sketch.png")
	pf, _ := os.Create(path)
	png.Encode(pf, img)
	pf.Close()
	pngOut := t.TempDir()
	if err := explain([]string{"-models", dir, "-png", path, "-n", "4", "-out", pngOut}); err != nil {
		t.Fatal(err)
	}
	if rep := readReport(t, pngOut); len(rep.X0) != 144 {
		t.Errorf("-png gave %d values", len(rep.X0))
	}
}

// TestSweepExperimentAnotherModel: sweep and experiment run on a models folder's test items; the experiment's
// default grid needs S2's anchors, which the folder has not, and says so.
func TestSweepExperimentAnotherModel(t *testing.T) {
	dir := greyModels(t, 5)
	out := t.TempDir()
	if err := sweep([]string{"-models", dir, "-index", "2", "-radii", "1,3", "-n-per-radius", "6", "-max-steps", "20", "-out", out}); err != nil {
		t.Fatal(err)
	}
	var rep sweepReport
	b, _ := os.ReadFile(filepath.Join(out, "sweep.json"))
	if err := json.Unmarshal(b, &rep); err != nil || len(rep.Steps) != 2 || len(rep.X0) != 144 {
		t.Fatalf("sweep.json: %v, %d steps", err, len(rep.Steps))
	}
	err := experiment([]string{"-models", dir, "-digits", "2", "-deltas", "1", "-n", "6", "-out", t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "no anchors (anchors.dcw), so scheme S2 cannot run") {
		t.Errorf("the paper's grid without anchors: %v", err)
	}
	if err := experiment([]string{"-models", dir, "-digits", "2", "-deltas", "1", "-n", "6", "-max-steps", "20", "-variants", "1,3", "-out", out}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(out, "sets.csv")); err != nil || strings.Count(string(b), "\n") != 1+2*2 {
		t.Errorf("sets.csv: %v\n%s", err, b)
	}
}

// TestModelsDigitsIsTheDefault: -models digits gives the same files as no -models, byte for byte (the
// timings in explain.json aside).
func TestModelsDigitsIsTheDefault(t *testing.T) {
	run := func(extra ...string) map[string][]byte {
		out := t.TempDir()
		if err := explain(append([]string{"-digit", "1735", "-n", "12", "-max-steps", "30", "-carla-data", "", "-out", out}, extra...)); err != nil {
			t.Fatal(err)
		}
		files := map[string][]byte{}
		for _, name := range []string{"grid.png", "labels.png", "summary.png", "tradeoff.svg", "latent.svg", "set.csv", "explain.json"} {
			b, err := os.ReadFile(filepath.Join(out, name))
			if err != nil {
				t.Fatal(err)
			}
			files[name] = b
		}
		var rep map[string]any
		json.Unmarshal(files["explain.json"], &rep)
		delete(rep, "seconds")
		delete(rep, "seconds_per_explanation")
		for _, a := range rep["amortised"].([]any) {
			delete(a.(map[string]any), "ms")
		}
		files["explain.json"], _ = json.Marshal(rep)
		return files
	}
	plain, named := run(), run("-models", "digits")
	for name, b := range plain {
		if !bytes.Equal(b, named[name]) {
			t.Errorf("%s differs with -models digits", name)
		}
	}
	// -index N is -digit N for the digits.
	out := t.TempDir()
	if err := explain([]string{"-index", "1735", "-n", "12", "-max-steps", "30", "-carla-data", "", "-out", out}); err != nil {
		t.Fatal(err)
	}
	if rep := readReport(t, out); rep.Input != "test digit 1735 (true label 8)" {
		t.Errorf("-index 1735 is %q", rep.Input)
	}
}

// TestModelsRefusals: what cannot be done with the models given is one sentence that says why.
func TestModelsRefusals(t *testing.T) {
	dir := greyModels(t, 3)
	bare := greyModels(t, 0)
	noDesc := greyModels(t, 3)
	os.Remove(filepath.Join(noDesc, "model.json"))
	cut := greyModels(t, 3)
	p := filepath.Join(cut, idx.ImagesFile)
	b, _ := os.ReadFile(p)
	os.WriteFile(p, b[:len(b)-7], 0o644)
	out := t.TempDir()
	for _, c := range []struct {
		name string
		run  func() error
		want string
	}{
		{"no model.json", func() error { return explain([]string{"-models", noDesc, "-index", "0", "-out", out}) }, noDesc + " has no model.json"},
		{"a cut IDX file", func() error { return explain([]string{"-models", cut, "-index", "0", "-out", out}) },
			p + ": not a valid IDX file of unsigned bytes: the file is cut short"},
		{"-index out of range", func() error { return explain([]string{"-models", dir, "-index", "3", "-out", out}) },
			`-index 3: the "grey-test" models' test items are 0..2`},
		{"-index without test items", func() error { return sweep([]string{"-models", bare, "-index", "0", "-out", out}) },
			`-index 0: the "grey-test" models have no test items`},
		{"-digit with other models", func() error { return explain([]string{"-models", dir, "-digit", "1", "-out", out}) },
			`-digit 1: -digit is a test digit of the shipped digits, and these are the "grey-test" models: give -index 1 for their test item`},
		{"nothing to explain", func() error { return explain([]string{"-models", dir, "-out", out}) }, "say what to explain: -index N (a test sketch)"},
		{"an unknown name", func() error { return explain([]string{"-models", "cars", "-index", "0", "-out", out}) }, `no models called "cars": the known models are "digits", "fashion", "credit" and "concrete"`},
		{"-carla-data with other models", func() error {
			return explain([]string{"-models", dir, "-index", "0", "-carla-data", "data", "-out", out})
		},
			"`make data` holds the digits"},
		{"global without translations", func() error { return global([]string{"-models", dir, "-out", out}) }, "have no GLAM-CLUE translations (global.dcw)"},
		{"experiment without test items", func() error { return experiment([]string{"-models", bare, "-variants", "1", "-out", out}) },
			`the experiment: the "grey-test" models have no test items`},
		{"two inputs", func() error { return explain([]string{"-models", dir, "-index", "0", "-png", "x.png", "-out", out}) }, "give one of"},
	} {
		err := c.run()
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, c.want) || strings.Contains(msg, "\n") || goPrefix.MatchString(msg) {
			t.Errorf("%s: %q, want one sentence saying %q", c.name, msg, c.want)
		}
	}
}

// folderWithTranslations writes a models folder of b with the translations ts added to its bundle, and items as
// its test items.
func folderWithTranslations(t *testing.T, b *testbundle.Bundle, ts []glam.Translation, items *idx.Items) string {
	t.Helper()
	encoded, err := glam.Encode(ts, 3, weights.Dataset{Source: "seeded random translations"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	files, _ := weights.DecodeBundle(b.Bytes)
	files = append(files, weights.BundleFile{Name: weights.BundleGlobal, Data: encoded})
	dir := t.TempDir()
	if err := modelsource.WriteDir(dir, weights.EncodeBundle(files), items); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestTranslationsOfAnotherModel: with GLAM-CLUE translations in its folder, another model's explain gives
// amortised answers in its class names, the schemes' grid runs S6 on its test items, and global runs over them.
func TestTranslationsOfAnotherModel(t *testing.T) {
	b, err := testbundle.Grey(5)
	if err != nil {
		t.Fatal(err)
	}
	r := rng.New(9)
	var ts []glam.Translation
	for a := range 4 {
		for c := range 4 {
			ts = append(ts, glam.Translation{From: a, To: c, T: []float32{float32(r.Norm()), float32(r.Norm()), float32(r.Norm())}, Members: 5})
		}
	}
	dir := folderWithTranslations(t, b, ts, b.Items(12, 4))
	out := t.TempDir()
	if err := explain([]string{"-models", dir, "-index", "1", "-n", "8", "-max-steps", "20", "-out", out}); err != nil {
		t.Fatal(err)
	}
	var am struct {
		Amortised []glam.Reported `json:"amortised"`
	}
	raw, _ := os.ReadFile(filepath.Join(out, "explain.json"))
	if err := json.Unmarshal(raw, &am); err != nil || len(am.Amortised) == 0 || len(am.Amortised[0].Image) != 144 {
		t.Fatalf("amortised answers: %v, %+v", err, am.Amortised)
	}
	if err := experiment([]string{"-models", dir, "-grid", "schemes", "-variants", "6", "-digits", "2", "-deltas", "1", "-n", "6", "-max-steps", "20", "-out", out}); err != nil {
		t.Fatal(err)
	}
	if err := global([]string{"-models", dir, "-out", out}); err != nil {
		t.Fatal(err)
	}
	var rep globalReport
	raw, _ = os.ReadFile(filepath.Join(out, "groups.json"))
	if err := json.Unmarshal(raw, &rep); err != nil || rep.Uncertain == 0 || rep.Uncertain > 12 {
		t.Fatalf("groups.json: %v, %d uncertain of 12 test items", err, rep.Uncertain)
	}
	for _, c := range rep.Cases {
		if c.From < 0 || c.From > 3 || c.To < 0 || c.To > 3 {
			t.Errorf("a case %d→%d outside the model's 4 classes", c.From, c.To)
		}
	}
}

// TestSchemesGridWithoutSomeTranslations: an input read as a label the models have no translation from is left
// out of S6's searches (and only S6's), and the grid goes on.
func TestSchemesGridWithoutSomeTranslations(t *testing.T) {
	b, err := testbundle.Grey(5)
	if err != nil {
		t.Fatal(err)
	}
	// Two items the classifier reads as different labels: translations from the first one's label only.
	items := b.Items(40, 4)
	plain := t.TempDir()
	if err := modelsource.WriteDir(plain, b.Bytes, items); err != nil {
		t.Fatal(err)
	}
	src, err := modelsource.Open(plain)
	if err != nil {
		t.Fatal(err)
	}
	m, err := clue.LoadBundle(src.Bundle)
	if err != nil {
		t.Fatal(err)
	}
	first, second, from, other := 0, -1, -1, -1
	for i := range items.Len() {
		l := m.BNN.Classify(items.Float(i, nil))[0].Label()
		if i == 0 {
			from = l
		} else if l != from {
			second, other = i, l
			break
		}
	}
	if second < 0 {
		t.Fatalf("the test's premise: the classifier reads all 40 items as %d", from)
	}
	r := rng.New(9)
	var ts []glam.Translation
	for c := range 4 {
		ts = append(ts, glam.Translation{From: from, To: c, T: []float32{float32(r.Norm()), float32(r.Norm()), float32(r.Norm())}, Members: 5})
	}
	dir := folderWithTranslations(t, b, ts, items)
	out := t.TempDir()
	indices := fmt.Sprintf("%d,%d", first, second)
	if err := experiment([]string{"-models", dir, "-grid", "schemes", "-variants", "1,6", "-indices", indices, "-deltas", "1", "-n", "6", "-max-steps", "20", "-out", out}); err != nil {
		t.Fatal(err)
	}
	rows := readCSVFile(t, filepath.Join(out, "sets.csv"))
	col := map[string]int{}
	for i, name := range rows[0] {
		col[name] = i
	}
	ran := map[string][]string{} // variant → the items it ran on
	for _, row := range rows[1:] {
		ran[row[col["variant"]]] = append(ran[row[col["variant"]]], row[col["digit"]]+" read as "+row[col["bnn_label"]])
	}
	want1 := []string{fmt.Sprintf("%d read as %d", first, from), fmt.Sprintf("%d read as %d", second, other)}
	if got := ran["S1 random radius"]; !slices.Equal(got, want1) {
		t.Errorf("S1 ran on %v, want %v", got, want1)
	}
	if got, want := ran["S6 amortised starts"], want1[:1]; !slices.Equal(got, want) {
		t.Errorf("S6 ran on %v, want only %v: the models translate from %d only", got, want, from)
	}
}
