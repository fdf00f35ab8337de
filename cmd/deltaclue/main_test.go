package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/raster"
	"github.com/deltaclue/deltaclue/engine/clue/sharelink"
	"github.com/deltaclue/deltaclue/engine/glam"
	"github.com/deltaclue/deltaclue/mnist"
	"github.com/deltaclue/deltaclue/weights"
)

func TestExplainDigitWritesTheFigures(t *testing.T) {
	out := t.TempDir()
	if err := explain([]string{"-digit", "1735", "-n", "20", "-out", out}); err != nil {
		t.Fatal(err)
	}
	rep := readReport(t, out)
	b, _ := os.ReadFile(filepath.Join(out, "explain.json"))
	if len(rep.Explanations) != 20 || rep.Summary.Restarts != 20 || len(rep.X0) != 784 || rep.Params.N != 20 {
		t.Fatalf("report: %d explanations, summary %+v", len(rep.Explanations), rep.Summary)
	}
	// GLAM-CLUE's amortised answers beside the search: towards each plausible label with a translation from the
	// label read (digit 1735 reads 7: the groups 7→7 and 7→8 exist, and both are plausible).
	var am struct {
		Amortised []glam.Reported `json:"amortised"`
	}
	if err := json.Unmarshal(b, &am); err != nil {
		t.Fatal(err)
	}
	if len(am.Amortised) != 2 || am.Amortised[0].From != rep.Label || am.Amortised[0].To != 7 || am.Amortised[1].To != 8 {
		t.Errorf("amortised answers %+v: want 7→7 and 7→8", am.Amortised)
	}
	for _, a := range am.Amortised {
		if len(a.Image) != 784 || a.K <= 0 || a.Sure != (a.Label == a.To && float64(a.HTotal) < rep.Params.HThreshold) {
			t.Errorf("amortised %d→%d: %d pixels, k %v, sure %v with label %d and H %v", a.From, a.To, len(a.Image), a.K, a.Sure, a.Label, a.HTotal)
		}
	}
	f, err := os.Open(filepath.Join(out, "grid.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if w, h := img.Bounds().Dx(), img.Bounds().Dy(); w != 16+10*gridCellW || h != 90+2*gridCellH+8 {
		t.Errorf("grid is %d×%d, want 10 columns × 2 rows of cells", w, h)
	}
	if _, err := os.Stat(filepath.Join(out, "labels.png")); err != nil {
		t.Error(err)
	}
	if rep.SecondsPerExplanation <= 0 || rep.SecondsPerExplanation > rep.Seconds {
		t.Errorf("seconds per explanation %g of %g s", rep.SecondsPerExplanation, rep.Seconds)
	}

	// The trade-off: well-formed XML with one marker per explanation that did not fail.
	svg, err := os.ReadFile(filepath.Join(out, "tradeoff.svg"))
	if err != nil {
		t.Fatal(err)
	}
	checkXML(t, "tradeoff.svg", svg)
	nonFailed := 0
	for _, e := range rep.Explanations {
		if e.Failed == "" {
			nonFailed++
		}
	}
	if n := strings.Count(string(svg), `class="pt`); n != nonFailed || n == 0 {
		t.Errorf("tradeoff.svg has %d markers, want %d", n, nonFailed)
	}

	// The summary: a picture with room for the header, a row of cards and the sentence.
	f2, err := os.Open(filepath.Join(out, "summary.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f2.Close()
	sum, err := png.Decode(f2)
	if err != nil {
		t.Fatal(err)
	}
	if w, h := sum.Bounds().Dx(), sum.Bounds().Dy(); w < 600 || w > 1400 || h < 300 || h > 2000 {
		t.Errorf("summary.png is %d×%d", w, h)
	}
	// Everything the figure writes has a glyph.
	prob, err := clue.NewProblem(mustModels(t), rep.X0)
	if err != nil {
		t.Fatal(err)
	}
	sentence := clue.Describe(prob.Pred0, rep.Explanations, rep.Summary, rep.Params)
	for _, r := range sentence + rep.Input + "δ-CLUE summary of x0: the model reads change from ink added removed form of restarts p(y)" {
		if !raster.HasGlyph(r) {
			t.Errorf("no glyph for %q (in %q)", r, sentence)
		}
	}
}

func mustModels(t *testing.T) *clue.Models {
	t.Helper()
	m, err := clue.ShippedModels()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// checkXML fails unless b is well-formed XML.
func checkXML(t *testing.T, name string, b []byte) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(b))
	for {
		_, err := d.Token()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatalf("%s is not well-formed XML: %v", name, err)
		}
	}
}

func TestExplainWorkersGiveTheSameExplanations(t *testing.T) {
	read := func(workers string) clue.Report {
		out := t.TempDir()
		if err := explain([]string{"-digit", "1735", "-n", "20", "-max-steps", "30", "-workers", workers, "-out", out}); err != nil {
			t.Fatal(err)
		}
		var rep clue.Report
		b, _ := os.ReadFile(filepath.Join(out, "explain.json"))
		if err := json.Unmarshal(b, &rep); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"tradeoff.svg", "latent.svg", "set.csv", "summary.png", "grid.png"} {
			b, _ := os.ReadFile(filepath.Join(out, name))
			rep.Input += fmt.Sprintf(" %s:%x", name, sha256.Sum256(b))
		}
		return rep
	}
	one, two := read("1"), read("2")
	if !reflect.DeepEqual(one.Explanations, two.Explanations) || !reflect.DeepEqual(one.Summary, two.Summary) {
		t.Error("-workers 2 found other explanations than -workers 1")
	}
	if one.Input != two.Input {
		t.Errorf("the figures differ:\n%s\n%s", one.Input, two.Input)
	}
}

// sweepArgs is a small sweep: two radii, ten restarts each, twenty steps at most.
var sweepArgs = []string{"-digit", "1735", "-radii", "0.5,2", "-n-per-radius", "10", "-max-steps", "20"}

func TestSweepWritesTheFilesAndMatchesSearch(t *testing.T) {
	run := func(extra ...string) map[string][]byte {
		out := t.TempDir()
		if err := sweep(append(append(append([]string(nil), sweepArgs...), extra...), "-out", out)); err != nil {
			t.Fatal(err)
		}
		files := map[string][]byte{}
		for _, name := range []string{"sweep.svg", "sweep.csv", "sweep.json"} {
			b, err := os.ReadFile(filepath.Join(out, name))
			if err != nil || len(b) < 100 {
				t.Fatalf("%s: %v (%d bytes)", name, err, len(b))
			}
			files[name] = b
		}
		return files
	}
	files := run("-workers", "2")
	checkXML(t, "sweep.svg", files["sweep.svg"])
	if n := strings.Count(string(files["sweep.svg"]), `class="sweep-bar"`); n != 2 {
		t.Errorf("sweep.svg has %d bars, want 2", n)
	}
	rows, err := csv.NewReader(bytes.NewReader(files["sweep.csv"])).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || len(rows[0]) != 7+10+10 || rows[0][0] != "delta" || rows[0][7] != "p0" || rows[0][17] != "count0" {
		t.Fatalf("sweep.csv: %d rows, header %v", len(rows), rows[0])
	}
	var rep sweepReport
	if err := json.Unmarshal(files["sweep.json"], &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Steps) != 2 || rep.Ladder.N != 10 || !reflect.DeepEqual(rep.Ladder.Radii, []float64{0.5, 2}) || len(rep.Z0) == 0 {
		t.Fatalf("sweep.json: ladder %+v, %d steps", rep.Ladder, len(rep.Steps))
	}

	// Each row is what a separate search at that δ finds.
	set, _ := mnist.HeldOut()
	prob, err := clue.NewProblem(mustModels(t), set.Float(1735, nil))
	if err != nil {
		t.Fatal(err)
	}
	for i, delta := range []float64{0.5, 2} {
		p := clue.Defaults()
		p.Delta, p.N, p.MaxSteps = delta, 10, 20
		exps, err := clue.Search(context.Background(), prob, p, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		accepted, labels := 0, map[int]int{}
		for _, e := range exps {
			if e.Accepted {
				accepted++
				labels[e.Label]++
			}
		}
		row := rows[i+1]
		want := []string{strconv.FormatFloat(delta, 'g', -1, 64), "10", strconv.Itoa(accepted), strconv.Itoa(len(labels))}
		if !reflect.DeepEqual(row[:4], want) {
			t.Errorf("δ = %g: row %v, a separate search gives %v", delta, row[:4], want)
		}
		var sumP float64
		for c := 0; c < 10; c++ {
			if n, _ := strconv.Atoi(row[17+c]); n != labels[c] {
				t.Errorf("δ = %g: count%d = %s, want %d", delta, c, row[17+c], labels[c])
			}
			v, _ := strconv.ParseFloat(row[7+c], 64)
			sumP += v
			if v != rep.Steps[i].Summary.LabelDistribution[c] {
				t.Errorf("δ = %g: p%d = %s does not read back as %v", delta, c, row[7+c], rep.Steps[i].Summary.LabelDistribution[c])
			}
		}
		if accepted > 0 && (sumP < 0.999 || sumP > 1.001) {
			t.Errorf("δ = %g: p sums to %g", delta, sumP)
		}
		sum := clue.Summarize(prob.X0, prob.Z0, 10, p, exps) // marks the modes and duplicates, as the sweep did
		if !reflect.DeepEqual(rep.Steps[i].Explanations, exps) || !reflect.DeepEqual(rep.Steps[i].Summary, sum) {
			t.Errorf("δ = %g: sweep.json's explanations or summary differ from a separate search", delta)
		}
	}

	// Deterministic: again, and with one worker, the same bytes.
	for _, extra := range [][]string{{"-workers", "2"}, {"-workers", "1"}} {
		again := run(extra...)
		for name, b := range files {
			if !bytes.Equal(b, again[name]) {
				t.Errorf("%v: %s differs from the first run", extra, name)
			}
		}
	}
}

func TestSweepBadLadders(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-radii", "0.5,-1"}, "(0, 20]"},
		{[]string{"-radii", "0,1"}, "(0, 20]"},
		{[]string{"-radii", "0.5, x"}, "not a number"},
		{[]string{"-radii", ""}, "at least one radius"},
		{[]string{"-radii", "1,2,3,4,5,6,7,8,9,10,11,12,13"}, "at most 12"},
		{[]string{"-radii", "0.5:7:0.5"}, "at most 12"},
		{[]string{"-radii", "2,1"}, "increase"},
		{[]string{"-radii", "1", "-n-per-radius", "0"}, "-n-per-radius 0: must be"},
		{[]string{"-radii", "1", "-delta", "1"}, "-radii"},
		{[]string{"-radii", "1", "-n", "5"}, "-n-per-radius"},
		{[]string{"-radii", "1", "-workers", "0"}, "-workers"},
	} {
		err := sweep(append([]string{"-digit", "1735", "-out", dir}, c.args...))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("sweep %v: %v, want an error mentioning %q", c.args, err, c.want)
		}
	}
	if err := sweep([]string{"-radii", "1", "-out", dir}); err == nil || !strings.Contains(err.Error(), "say what to explain") {
		t.Errorf("sweep without input: %v", err)
	}
}

func TestSweepShareLinkLadder(t *testing.T) {
	fingerprint, _ := weights.ShippedFingerprint()
	set, _ := mnist.HeldOut()
	p := clue.Defaults()
	p.MaxSteps, p.Seed = 15, 9
	link := "#" + sharelink.Encode(sharelink.State{Image: sharelink.Quantize(set.Float(42, nil)), Params: p, Model: fingerprint,
		Sweep: clue.Ladder{Radii: []float64{1, 3}, N: 6}, Selected: sharelink.NoSelection})
	read := func(args ...string) sweepReport {
		out := t.TempDir()
		if err := sweep(append(args, "-link", link, "-out", out)); err != nil {
			t.Fatal(err)
		}
		var rep sweepReport
		b, _ := os.ReadFile(filepath.Join(out, "sweep.json"))
		if err := json.Unmarshal(b, &rep); err != nil {
			t.Fatal(err)
		}
		return rep
	}
	rep := read()
	shared := p
	shared.Delta, shared.N = 0, 0 // taken from the ladder
	if !reflect.DeepEqual(rep.Ladder, clue.Ladder{Radii: []float64{1, 3}, N: 6}) || rep.Params != shared || len(rep.Steps) != 2 {
		t.Errorf("the link's ladder and parameters were not used: %+v, %+v", rep.Ladder, rep.Params)
	}
	if rep = read("-radii", "0.5"); !reflect.DeepEqual(rep.Ladder, clue.Ladder{Radii: []float64{0.5}, N: 6}) {
		t.Errorf("-radii did not replace the link's radii: %+v", rep.Ladder)
	}
}

func TestExplainPNGAndBadInput(t *testing.T) {
	dir := t.TempDir()
	set, _ := mnist.HeldOut()
	x := set.Float(7, nil)
	// Black ink on white paper at 5×: the command must invert and shrink it.
	img := image.NewGray(image.Rect(0, 0, 140, 140))
	for y := 0; y < 140; y++ {
		for u := 0; u < 140; u++ {
			img.SetGray(u, y, color.Gray{uint8(255 - 255*x[(y/5)*28+u/5])})
		}
	}
	path := filepath.Join(dir, "digit.png")
	f, _ := os.Create(path)
	png.Encode(f, img)
	f.Close()
	if err := explain([]string{"-png", path, "-n", "10", "-out", filepath.Join(dir, "out")}); err != nil {
		t.Fatal(err)
	}
	blank := filepath.Join(dir, "blank.png")
	f, _ = os.Create(blank)
	png.Encode(f, image.NewGray(image.Rect(0, 0, 50, 50)))
	f.Close()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-png", blank}, "empty"},
		{[]string{"-png", filepath.Join(dir, "missing.png")}, "no such file"},
		{[]string{"-digit", "5000"}, "0..1999"},
		{[]string{}, "say what to explain"},
		{[]string{"-digit", "1", "-delta", "-2"}, "delta"},
		{[]string{"-digit", "1", "-scheme", "S7"}, "scheme"},
		{[]string{"-digit", "1", "-loss", "both"}, "-loss"},
	} {
		err := explain(append(c.args, "-out", filepath.Join(dir, "bad")))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("explain %v: %v, want an error mentioning %q", c.args, err, c.want)
		}
	}
}

// readCSVFile reads a CSV file the commands wrote, failing the test when it cannot.
func readCSVFile(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func TestExperimentSmallGrid(t *testing.T) {
	out := t.TempDir()
	if err := experiment([]string{"-digits", "2", "-deltas", "1,2", "-n", "10", "-variants", "1,4", "-out", out}); err != nil {
		t.Fatal(err)
	}
	rows := readCSVFile(t, filepath.Join(out, "sets.csv"))
	if len(rows) != 1+2*2*2 {
		t.Fatalf("%d CSV rows, want a header and 2 digits × 2 radii × 2 variants", len(rows))
	}
	for _, name := range []string{"h_best.svg", "h_mean.svg", "d_best.svg", "d_mean.svg", "labels.svg", "rho.svg", "shell.svg", "label_entropy.svg", "curves.csv"} {
		b, err := os.ReadFile(filepath.Join(out, name))
		if err != nil || len(b) < 200 {
			t.Errorf("%s: %v (%d bytes)", name, err, len(b))
		}
	}
}

func TestExplainShareLink(t *testing.T) {
	fingerprint, _ := weights.ShippedFingerprint()
	set, _ := mnist.HeldOut()
	p := clue.Defaults()
	p.N, p.Delta, p.Seed = 12, 1.5, 77
	link := "http://127.0.0.1:8080/#" + sharelink.Encode(sharelink.State{Image: sharelink.Quantize(set.Float(42, nil)), Params: p,
		Model: fingerprint})
	out := t.TempDir()
	if err := explain([]string{"-link", link, "-out", out}); err != nil {
		t.Fatal(err)
	}
	var rep clue.Report
	b, _ := os.ReadFile(filepath.Join(out, "explain.json"))
	json.Unmarshal(b, &rep)
	if rep.Params != p || len(rep.Explanations) != 12 {
		t.Errorf("the link's parameters were not used: %+v", rep.Params)
	}
	other := "#" + sharelink.Encode(sharelink.State{Image: sharelink.Quantize(set.Float(42, nil)), Params: p, Model: 1})
	if err := explain([]string{"-link", other, "-out", out}); err == nil || !strings.Contains(err.Error(), "other models") {
		t.Errorf("a link from other models: %v", err)
	}
	if err := explain([]string{"-link", "#v1.garbage", "-out", out}); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Errorf("a damaged link: %v", err)
	}
}
