package main

import (
	"encoding/csv"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltaclue/deltaclue/app/sharelink"
	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/mnist"
	"github.com/deltaclue/deltaclue/weights"
)

func TestExplainDigitWritesTheFigures(t *testing.T) {
	out := t.TempDir()
	if err := explain([]string{"-digit", "1735", "-n", "20", "-out", out}); err != nil {
		t.Fatal(err)
	}
	var rep clue.Report
	b, err := os.ReadFile(filepath.Join(out, "explain.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Explanations) != 20 || rep.Summary.Restarts != 20 || len(rep.X0) != 784 || rep.Params.N != 20 {
		t.Fatalf("report: %d explanations, summary %+v", len(rep.Explanations), rep.Summary)
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
	if w, h := img.Bounds().Dx(), img.Bounds().Dy(); w != 16+10*64 || h != 90+2*84+8 {
		t.Errorf("grid is %d×%d, want 10 columns × 2 rows of cells", w, h)
	}
	if _, err := os.Stat(filepath.Join(out, "labels.png")); err != nil {
		t.Error(err)
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

func TestExperimentSmallGrid(t *testing.T) {
	out := t.TempDir()
	if err := experiment([]string{"-digits", "2", "-deltas", "1,2", "-n", "10", "-variants", "1,4", "-out", out}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(out, "sets.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
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
