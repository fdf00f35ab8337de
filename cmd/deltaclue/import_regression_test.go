package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/deltaclue/deltaclue/engine"
	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/internal/dataset"
	"github.com/deltaclue/deltaclue/internal/modelsource"
	"github.com/deltaclue/deltaclue/internal/onnximport"
	"github.com/deltaclue/deltaclue/internal/testenv"
	"github.com/deltaclue/deltaclue/weights"
)

// TestImportRegressionChoices: what a regression's import chooses from the data when it is not told: the
// ranges' edges are the targets' quintiles rounded to 2 significant digits between their smallest (rounded
// down) and largest (rounded up); τ's rounding; the target column read out of the CSV file.
func TestImportRegressionChoices(t *testing.T) {
	var targets []float64
	for i := 1; i <= 100; i++ {
		targets = append(targets, float64(i)+0.37)
	}
	if got, want := quintileEdges(targets), []float64{1.3, 20, 40, 60, 80, 110}; !slices.Equal(got, want) {
		t.Errorf("quintileEdges(1.37 … 100.37) = %v, want %v", got, want)
	}
	if got := quintileEdges([]float64{5, 5, 5, 5, 5, 6}); !slices.Equal(got, []float64{5, 6}) {
		t.Errorf("quintileEdges of nearly equal targets = %v: rounded edges are kept once", got)
	}
	for _, c := range []struct {
		v, want float64
		round   func(float64) float64
	}{{3.32, 3.3, math.Floor}, {82.6, 83, math.Ceil}, {0.04567, 0.046, math.Round}, {1234, 1200, math.Round}, {-3.32, -3.4, math.Floor}, {3.06, 3.1, math.Round}} {
		if got := roundSig(c.v, 2, c.round); got != c.want {
			t.Errorf("roundSig(%g, 2) = %g, want %g", c.v, got, c.want)
		}
	}
	cols := weights.Columns{{Name: "a", Kind: weights.ColumnNumber, Range: [2]float64{-1e15, 1e15}, Std: 1, Change: weights.ChangeFree},
		{Name: "b", Kind: weights.ColumnNumber, Range: [2]float64{-1e15, 1e15}, Std: 1, Change: weights.ChangeFree}}
	rows, ys, err := splitTargetColumn([]byte("a,y,b\n1,10.5,2\n3,11,4\n"), cols, "y")
	if err != nil || !slices.Equal(ys, []float64{10.5, 11}) || len(rows) != 2 || !slices.Equal(rows[1], []float64{3, 4}) {
		t.Errorf("splitTargetColumn: %v %v %v", rows, ys, err)
	}
	for _, c := range []struct{ csv, want string }{
		{"a,b\n1,2\n", `it has no target column "y" (-target-column): its columns are a, b`},
		{"a,y,b\n1,NaN,2\n", `line 2: the target column "y" holds "NaN", not a finite number`},
		{"a,y,b\n1,lots,2\n", `line 2: the target column "y" holds "lots", not a finite number`},
	} {
		if _, _, err := splitTargetColumn([]byte(c.csv), cols, "y"); err == nil || err.Error() != c.want {
			t.Errorf("%q: %v, want %q", c.csv, err, c.want)
		}
	}
}

var regressionExample struct {
	once sync.Once
	dir  string
	err  error
}

// pytorchRegression runs examples/pytorch-regression/train_export.py once for the package's tests, reduced: on
// the committed concrete test split (199 mixes, a fifth of them kept to test), 150 epochs, and exports beside
// it the two bad networks the refusals need (bad.py): one of a single output, and one whose σ is NaN.
func pytorchRegression(t *testing.T) string {
	t.Helper()
	py := testenv.Python(t, "the PyTorch regression example is not run", "torch", "onnx")
	regressionExample.once.Do(func() {
		dir, err := os.MkdirTemp("", "deltaclue-regression-")
		if err != nil {
			regressionExample.err = err
			return
		}
		regressionExample.dir = dir
		cmd := exec.Command(py, "examples/pytorch-regression/train_export.py", dir, "--data", "internal/concrete/test.csv", "--test", "",
			"--epochs", "150", "--threads", "1")
		cmd.Dir = filepath.Join("..", "..")
		out, err := cmd.CombinedOutput()
		if err == nil {
			out, err = exec.Command(py, "-c", badRegressors, dir).CombinedOutput()
		}
		if err != nil {
			regressionExample.err = fmt.Errorf("%v\n%s", err, out)
		}
	})
	if regressionExample.err != nil {
		t.Fatalf("the PyTorch regression example: %v", regressionExample.err)
	}
	return regressionExample.dir
}

// badRegressors exports two networks of the example's shape that a regression's import refuses: one.onnx ends
// in one output; nan.onnx's second layer overflows to +∞ in float32, and its last layer subtracts one ∞ from
// another, so its mean and σ are NaN for every row.
const badRegressors = `
import os, sys, torch
from torch import nn
class Net(nn.Module):
    def __init__(self, outputs):
        super().__init__()
        self.fc1, self.fc2, self.fc3 = nn.Linear(8, 4), nn.Linear(4, 4), nn.Linear(4, outputs)
    def forward(self, x):
        return self.fc3(torch.relu(self.fc2(torch.relu(self.fc1(x)))))
kw = dict(opset_version=17, input_names=["x"], output_names=["y"], dynamic_axes={"x": {0: "n"}, "y": {0: "n"}})
torch.manual_seed(1)
torch.onnx.export(Net(1).eval(), torch.zeros(1, 8), os.path.join(sys.argv[1], "one.onnx"), **kw)
n = Net(2).eval()
with torch.no_grad():
    n.fc1.weight.zero_(); n.fc1.bias.fill_(1)
    n.fc2.weight.fill_(3e38); n.fc2.bias.zero_()
    n.fc3.weight.copy_(torch.tensor([[1.0, -1, 0, 0], [1, -1, 0, 0]])); n.fc3.bias.zero_()
torch.onnx.export(n, torch.zeros(1, 8), os.path.join(sys.argv[1], "nan.onnx"), **kw)
`

// regressionArgs are the import's arguments for the example's regressor, a VAE trained on its rows.
func regressionArgs(ex, out, ort string) []string {
	return []string{"-schema", filepath.Join(ex, "schema.json"), "-data", filepath.Join(ex, "train.csv"), "-test", filepath.Join(ex, "test.csv"),
		"-classifier", filepath.Join(ex, "reg.onnx"), "-dropout", "/fc2/Gemm=0.1,/fc3/Gemm=0.1", "-target", "Strength", "-unit", "MPa",
		"-noun", "mix", "-vae-epochs", "30", "-out", out, "-onnxruntime", ort}
}

// TestImportRegressionExample: the PyTorch heteroscedastic MC-dropout MLP becomes a format-4 regression of rows,
// checked in both runtimes, its τ and ranges chosen from the training rows and said; the folder opens, loads for
// the search with its anchors, and `deltaclue explain -index 0` says what the model predicts; the float32
// import's eval-mode mean and σ are PyTorch's own within 1e-4 of σ; nothing is overwritten.
func TestImportRegressionExample(t *testing.T) {
	ex := pytorchRegression(t)
	ort := ortDir(t)
	out := filepath.Join(t.TempDir(), "concrete-pytorch")
	said, err := captured(t, func() error { return importCmd(regressionArgs(ex, out, ort)) })
	if err != nil {
		t.Fatalf("%v\n%s", err, said)
	}
	for _, want := range []string{"the classifier             agrees with onnx-gomlx", "the classifier             agrees with onnxruntime-web",
		"the training targets' quintiles rounded to 2 significant digits", "τ: sure is σ ≤ ", "percentile of the model's predictive σ over the 160 training rows",
		"the threshold is τ", "anchors: below "} {
		if !strings.Contains(said, want) {
			t.Errorf("the import does not say %q:\n%s", want, said)
		}
	}
	m, err := modelsource.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	d := m.Description()
	r := d.Regression
	if d.Format != weights.FormatRegression || r == nil || r.Target != "Strength" || r.Unit != "MPa" || r.Sigma != weights.SigmaSoftplus {
		t.Fatalf("the folder's description: format %d, regression %+v", d.Format, r)
	}
	if !slices.Equal(d.Classes, r.RangeNames()) || len(r.Ranges) != 6 || !(r.Sure > 0) || !strings.Contains(said, fmt.Sprintf("τ: sure is σ ≤ %g MPa", r.Sure)) {
		t.Errorf("the regression: classes %v, ranges %v, τ %g", d.Classes, r.Ranges, r.Sure)
	}
	if d.Search == nil || d.Search.HThreshold != nil || d.Search.Delta == nil {
		t.Errorf("a regression's search defaults: %+v (no entropy threshold: τ is its threshold)", d.Search)
	}
	if test, ok := m.Test.(*dataset.Table); !ok || test.Len() != 39 {
		t.Fatalf("the folder's test rows: %v", m.Test)
	}
	if _, err := clue.LoadBundle(m.Bundle); err != nil || m.Bundle.Anchors == nil {
		t.Fatalf("clue.LoadBundle: %v (anchors %v)", err, m.Bundle.Anchors != nil)
	}
	// The folder keeps its test rows' targets: `deltaclue quality` measures it afterwards, as the import did.
	if test := m.Test.(*dataset.Table); len(test.Targets) != test.Len() {
		t.Errorf("the folder's test rows carry %d targets", len(test.Targets))
	}
	measured, err := captured(t, func() error { return quality([]string{"-models", out}) })
	if err != nil {
		t.Fatalf("quality -models %s: %v\n%s", out, err, measured)
	}
	var q RegressionQuality
	if err := json.Unmarshal([]byte(measured[strings.Index(measured, "{"):]), &q); err != nil {
		t.Fatalf("quality's JSON: %v\n%s", err, measured)
	}
	imported, _ := m.Bundle.Files[weights.BundleBNN].Manifest.Metrics["test"].(map[string]any)["regression"].(map[string]any)
	if rmse, _ := imported["rmse"].(float64); q.TestItems != 39 || q.Target != "Strength" || math.Abs(q.RMSE-rmse) > 1e-3*rmse {
		t.Errorf("quality on the imported folder: %d rows, rmse %g; the import measured rmse %v", q.TestItems, q.RMSE, imported["rmse"])
	}
	dir := t.TempDir()
	told, err := captured(t, func() error { return explain([]string{"-models", out, "-index", "0", "-n", "20", "-out", dir}) })
	if err != nil {
		t.Fatalf("explain -index 0: %v", err)
	}
	if !strings.Contains("\n"+told, "\nThe model predicts ") || !strings.Contains(told, " MPa ± ") {
		t.Errorf("explain -index 0 does not say what the model predicts:\n%s", told)
	}
	if err := importCmd(regressionArgs(ex, out, ort)); err == nil || !strings.Contains(err.Error(), "already holds models") {
		t.Errorf("a second import into %s: %v", out, err)
	}

	// PyTorch's eval-mode mean and σ of the probe row, from the float32 folder.
	var probe struct {
		Row         string
		Mean, Sigma float64
	}
	b, err := os.ReadFile(filepath.Join(ex, "probe.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		t.Fatal(err)
	}
	f32, err := modelsource.Open(filepath.Join(out, "float32"))
	if err != nil {
		t.Fatal(err)
	}
	cols := f32.Description().Input.Columns
	row, err := cols.ParseRow(probe.Row)
	if err != nil {
		t.Fatal(err)
	}
	x, err := cols.Standardise(row)
	if err != nil {
		t.Fatal(err)
	}
	_, bnn, err := engine.Load(onnximport.EvalMode(f32.Description()), f32.Bundle.Files)
	if err != nil {
		t.Fatal(err)
	}
	got := bnn.Classify(x)[0]
	if tol := 1e-4 * r.Std; math.Abs(float64(*got.Mean)-probe.Mean) > tol || math.Abs(float64(got.Total)-probe.Sigma) > tol {
		t.Errorf("the float32 import's eval-mode prediction of %s: %g ± %g; PyTorch's %g ± %g", probe.Row, *got.Mean, got.Total, probe.Mean, probe.Sigma)
	}
}

// TestImportRegressionRefusals: each bad regression input is refused in one sentence saying what is wrong, and
// nothing is written.
func TestImportRegressionRefusals(t *testing.T) {
	ex := pytorchRegression(t)
	ort := ortDir(t)
	dir := t.TempDir()
	train, err := os.ReadFile(filepath.Join(ex, "train.csv"))
	if err != nil {
		t.Fatal(err)
	}
	renamed := filepath.Join(dir, "renamed.csv")
	if err := os.WriteFile(renamed, []byte(strings.Replace(string(train), "Strength", "MPa", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		set  map[string]string
		want string
	}{
		{map[string]string{"-classifier": filepath.Join(ex, "one.onnx"), "-dropout": "/fc2/Gemm=0.1"},
			"the classifier ends in 1 output, and a regression of Strength declared with -target ends in 2 outputs: the standardised mean and the σ head"},
		{map[string]string{"-sure": "0"}, "-sure 0: the threshold of sure is a standard deviation in the target's unit, above 0"},
		{map[string]string{"-sure": "-2"}, "-sure -2: the threshold of sure is a standard deviation in the target's unit, above 0"},
		{map[string]string{"-data": renamed}, `renamed.csv: it has no target column "Strength" (-target-column): its columns are cement,`},
		{map[string]string{"-target-mean": "35"}, "-target-mean and -target-std are the network's standardisation of the target: give both"},
		{map[string]string{"-sigma": "exp"}, `-sigma "exp": "softplus"`},
		{map[string]string{"-classifier": filepath.Join(ex, "nan.onnx"), "-dropout": "/fc2/Gemm=0.1"},
			"the classifier gives input 0, in onnx-gomlx, a mean of NaN and a σ of NaN (softplus of its second output, NaN): a regression's σ must be a positive number, so nothing is written"},
	} {
		out := filepath.Join(dir, "out")
		args := regressionArgs(ex, out, ort)
		for flag, value := range c.set {
			if i := slices.Index(args, flag); i >= 0 {
				args[i+1] = value
			} else {
				args = append(args, flag, value)
			}
		}
		err := importCmd(args)
		checkRefusal(t, "import", args, err, c.want, out)
	}
}
