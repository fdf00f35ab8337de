package main

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/sharelink"
	"github.com/deltaclue/deltaclue/internal/modelsource"
	"github.com/deltaclue/deltaclue/internal/testbundle"
	"github.com/deltaclue/deltaclue/weights"
)

// greyAnchored writes testbundle.Grey as a models folder with 5 test items and anchors of latent size 3 for the
// classes anchored (two codes each, near the origin); the others have none, as a classifier never sure of them
// has it.
func greyAnchored(t *testing.T, anchored ...int) string {
	t.Helper()
	b, err := testbundle.Grey(5)
	if err != nil {
		t.Fatal(err)
	}
	var named []weights.Named
	counts := map[string]any{}
	for c := range b.Description.Classes {
		counts[strconv.Itoa(c)] = 0
		for _, a := range anchored {
			if a == c {
				counts[strconv.Itoa(c)] = 2
				v := float32(c+1) / 4
				named = append(named, weights.Named{Name: weights.AnchorTensor(c), Shape: []int{2, 3}, Values: []float32{v, -v, 0, -v, 0, v}, DType: weights.Int8})
			}
		}
	}
	raw, err := weights.Encode(weights.Manifest{Model: "anchors", Architecture: weights.Architecture{Latent: 3},
		Metrics: map[string]any{weights.AnchorCounts: counts}}, named)
	if err != nil {
		t.Fatal(err)
	}
	files, err := weights.DecodeBundle(b.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bundle := weights.EncodeBundle(append(files, weights.BundleFile{Name: weights.BundleAnchors, Data: raw}))
	if err := modelsource.WriteDir(dir, bundle, b.Items(5, 11)); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestExplainS2WithAnchorlessClasses: on models whose classifier is sure of no training item of some classes,
// explain -scheme S2 spreads its restarts over the others and says on stderr which it leaves out; on models
// without any anchor, -scheme S2 and a link asking for S2 are refused in one sentence that says why, before
// any search; other schemes run.
func TestExplainS2WithAnchorlessClasses(t *testing.T) {
	some := greyAnchored(t, 0, 1)
	out := t.TempDir()
	log, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stderr
	os.Stderr = log
	err = explain([]string{"-models", some, "-index", "0", "-scheme", "S2", "-n", "20", "-max-steps", "10", "-out", out})
	os.Stderr = saved
	if err != nil {
		t.Fatal(err)
	}
	said, _ := os.ReadFile(log.Name())
	const note = "Scheme S2 starts no restart toward cross and dot: the classifier reads no training sketch of those classes with confidence, so they have no anchors."
	if !strings.Contains(string(said), note+"\n") {
		t.Errorf("stderr does not say %q:\n%s", note, said)
	}
	if rep := readReport(t, out); len(rep.Explanations) != 20 {
		t.Errorf("%d explanations, want 20", len(rep.Explanations))
	}

	none := greyAnchored(t)
	const why = "the classifier reads no training image of any class with confidence, so S2 has no anchors to start toward: choose another scheme"
	err = explain([]string{"-models", none, "-index", "0", "-scheme", "S2", "-n", "20", "-out", t.TempDir()})
	if want := `-scheme S2 cannot run on the "grey-test" models: ` + why; err == nil || err.Error() != want {
		t.Errorf("-scheme S2 without anchors: %v, want %q", err, want)
	}
	m, err := modelsource.Open(none)
	if err != nil {
		t.Fatal(err)
	}
	p := clue.Defaults()
	p.Scheme, p.N = clue.S2, 20
	link := "#" + sharelink.Encode(sharelink.State{Models: m.Name(), Model: m.Bundle.Fingerprint(), Height: 12, Width: 12, Channels: 1,
		Image: sharelink.Quantize(m.Test.Float(0, nil)), Params: p, Selected: sharelink.NoSelection})
	for _, cmd := range []func([]string) error{explain, sweep} {
		err = cmd([]string{"-models", none, "-link", link, "-out", t.TempDir()})
		if want := `the link's scheme S2 cannot run on the "grey-test" models: ` + why; err == nil || err.Error() != want {
			t.Errorf("a link asking for S2 without anchors: %v, want %q", err, want)
		}
	}
	if err := explain([]string{"-models", none, "-index", "0", "-scheme", "S1", "-n", "4", "-max-steps", "5", "-out", t.TempDir()}); err != nil {
		t.Errorf("S1 on models without anchors: %v", err)
	}
	err = experiment([]string{"-models", none, "-digits", "2", "-deltas", "1", "-n", "10", "-out", t.TempDir()})
	if want := `reads no training sketch of any class with confidence, so they have no anchors and scheme S2 cannot run`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("the paper's grid without any anchor: %v", err)
	}
}
