package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/sharelink"
	"github.com/deltaclue/deltaclue/internal/modelsource"
	"github.com/deltaclue/deltaclue/internal/testbundle"
	"github.com/deltaclue/deltaclue/weights"
)

// greyWithDefaults writes testbundle.Grey(5) as a models folder with n test items, its description giving the
// search defaults δ 3.5, λx 0.004 and a threshold of 0.5 nats.
func greyWithDefaults(t *testing.T, n int) string {
	t.Helper()
	b, err := testbundle.Grey(5)
	if err != nil {
		t.Fatal(err)
	}
	d := *b.Description
	delta, lambda, h := 3.5, 0.004, 0.5
	d.Format, d.Search = 2, &weights.SearchDefaults{Delta: &delta, LambdaX: &lambda, HThreshold: &h}
	desc, err := json.Marshal(&d)
	if err != nil {
		t.Fatal(err)
	}
	files, err := weights.DecodeBundle(b.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	for i := range files {
		if files[i].Name == weights.DescriptionFile {
			files[i].Data = desc
		}
	}
	dir := t.TempDir()
	if err := modelsource.WriteDir(dir, weights.EncodeBundle(files), b.Items(n, 11)); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestCommandsUseTheModelsDefaults: explain, sweep, experiment and audit on models whose description gives
// search defaults start from them; a flag given on the command line still wins, -loss distance restores the
// models' λx, and a share link keeps its own parameters. The digits' defaults are Defaults().
func TestCommandsUseTheModelsDefaults(t *testing.T) {
	dir := greyWithDefaults(t, 6)
	out := t.TempDir()
	if err := explain([]string{"-models", dir, "-index", "0", "-n", "6", "-max-steps", "20", "-out", out}); err != nil {
		t.Fatal(err)
	}
	rep := readReport(t, out)
	if p := rep.Params; p.Delta != 3.5 || p.LambdaX != 0.004 || p.HThreshold != 0.5 || p.N != 6 || p.MaxSteps != 20 {
		t.Errorf("explain on models with defaults δ 3.5, λx 0.004, 0.5 nats: %+v", p)
	}
	for _, e := range rep.Explanations {
		if e.Rho > 3.5*(1+1e-4) || e.Accepted != (e.HTotal < 0.5 && e.Rho <= 3.5*(1+1e-4)) {
			t.Errorf("restart %d: ρ %g, H %g, accepted %v: not searched at the models' δ and threshold", e.Restart, e.Rho, e.HTotal, e.Accepted)
		}
	}
	// Flags given win over the models' defaults; -loss distance restores their λx.
	given := t.TempDir()
	if err := explain([]string{"-models", dir, "-index", "0", "-n", "6", "-max-steps", "20", "-delta", "1.5", "-h-threshold", "0.3", "-loss", "uncertainty", "-out", given}); err != nil {
		t.Fatal(err)
	}
	if p := readReport(t, given).Params; p.Delta != 1.5 || p.LambdaX != 0 || p.HThreshold != 0.3 {
		t.Errorf("explain with -delta 1.5 -h-threshold 0.3 -loss uncertainty: %+v", p)
	}
	distance := t.TempDir()
	if err := explain([]string{"-models", dir, "-index", "0", "-n", "6", "-max-steps", "20", "-lambda-x", "0", "-loss", "distance", "-out", distance}); err != nil {
		t.Fatal(err)
	}
	if p := readReport(t, distance).Params; p.LambdaX != 0.03 || p.Delta != 3.5 {
		t.Errorf("-lambda-x 0 -loss distance: λx %g, δ %g", p.LambdaX, p.Delta)
	}
	// A link carries every parameter: those it holds, not the models' defaults.
	m, err := modelsource.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	lp := clue.Defaults()
	lp.N, lp.MaxSteps = 6, 20
	s := sharelink.State{Models: m.Name(), Model: m.Bundle.Fingerprint(), Height: 12, Width: 12, Channels: 1,
		Image: sharelink.Quantize(m.Test.Float(0, nil)), Params: lp, Selected: sharelink.NoSelection}
	fromLink := t.TempDir()
	if err := explain([]string{"-models", dir, "-link", "#" + sharelink.Encode(s), "-out", fromLink}); err != nil {
		t.Fatal(err)
	}
	if p := readReport(t, fromLink).Params; p != lp {
		t.Errorf("explain -link: %+v, want the link's %+v", p, lp)
	}

	// sweep: the models' λx and threshold (its radii are the ladder's).
	sw := t.TempDir()
	if err := sweep([]string{"-models", dir, "-index", "1", "-radii", "1,3", "-n-per-radius", "4", "-max-steps", "10", "-out", sw}); err != nil {
		t.Fatal(err)
	}
	var srep sweepReport
	b, _ := os.ReadFile(filepath.Join(sw, "sweep.json"))
	if err := json.Unmarshal(b, &srep); err != nil || srep.Params.LambdaX != 0.004 || srep.Params.HThreshold != 0.5 {
		t.Errorf("sweep on models with defaults: %+v, %v", srep.Params, err)
	}
	// experiment counts acceptance at the models' threshold.
	ex := t.TempDir()
	if err := experiment([]string{"-models", dir, "-digits", "2", "-deltas", "1", "-n", "4", "-max-steps", "10", "-variants", "1", "-out", ex}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(ex, "sets.csv")); err != nil || !strings.Contains(string(b), ",accepted_h_below_0.5,") {
		t.Errorf("sets.csv does not count at the models' threshold: %v\n%.300s", err, b)
	}
	// audit: the models' defaults reach its records.
	au := t.TempDir()
	if err := auditCmd([]string{"-models", dir, "-data", "test", "-top", "1", "-n", "4", "-max-steps", "10", "-out", au}); err != nil {
		t.Fatal(err)
	}
	headers, _ := filepath.Glob(filepath.Join(au, "shards", "*", "audit.json"))
	if len(headers) == 0 {
		headers, _ = filepath.Glob(filepath.Join(au, "*", "audit.json"))
	}
	var header struct{ Params clue.Params }
	if len(headers) == 0 {
		t.Errorf("audit wrote no audit.json under %s", au)
	} else if b, err := os.ReadFile(headers[0]); err != nil || json.Unmarshal(b, &header) != nil ||
		header.Params.Delta != 3.5 || header.Params.LambdaX != 0.004 || header.Params.HThreshold != 0.5 {
		t.Errorf("audit's parameters are not the models' defaults: %+v, %v", header.Params, err)
	}

	// The digits: Defaults().
	digits := t.TempDir()
	if err := explain([]string{"-digit", "3", "-n", "4", "-max-steps", "10", "-out", digits}); err != nil {
		t.Fatal(err)
	}
	want := clue.Defaults()
	want.N, want.MaxSteps = 4, 10
	if p := readReport(t, digits).Params; p != want {
		t.Errorf("explain on the digits: %+v", p)
	}
}
