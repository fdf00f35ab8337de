package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
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

var tabularExample struct {
	once sync.Once
	dir  string
	err  error
}

// pytorchTabular runs examples/pytorch-tabular/train_export.py once for the package's tests, reduced: on the
// committed credit test split (805 applicants, a fifth of them kept to test), 12 epochs each, into a folder
// kept until the tests end.
func pytorchTabular(t *testing.T) string {
	t.Helper()
	py := testenv.Python(t, "the PyTorch tabular example is not run", "torch", "onnx")
	tabularExample.once.Do(func() {
		dir, err := os.MkdirTemp("", "deltaclue-tabular-")
		if err != nil {
			tabularExample.err = err
			return
		}
		tabularExample.dir = dir
		cmd := exec.Command(py, "examples/pytorch-tabular/train_export.py", dir, "--data", "internal/credit/test.csv", "--test", "",
			"--epochs", "12", "--vae-epochs", "12", "--threads", "1")
		cmd.Dir = filepath.Join("..", "..")
		out, err := cmd.CombinedOutput()
		if err != nil {
			tabularExample.err = fmt.Errorf("%v\n%s", err, out)
		}
	})
	if tabularExample.err != nil {
		t.Fatalf("the PyTorch tabular example: %v", tabularExample.err)
	}
	return tabularExample.dir
}

// tabularArgs are the import's arguments for the example's models, its own VAE when vae.
func tabularArgs(ex, out, ort string, vae bool) []string {
	args := []string{"-schema", filepath.Join(ex, "schema.json"), "-data", filepath.Join(ex, "train.csv"), "-test", filepath.Join(ex, "test.csv"),
		"-label", "Status", "-classifier", filepath.Join(ex, "clf.onnx"), "-dropout", "/fc2/Gemm=0.25,/fc3/Gemm=0.25",
		"-noun", "applicant", "-lock", "Age", "-out", out, "-onnxruntime", ort}
	if vae {
		args = append(args, "-encoder", filepath.Join(ex, "enc.onnx"), "-decoder", filepath.Join(ex, "dec.onnx"))
	} else {
		args = append(args, "-vae-epochs", "30")
	}
	return args
}

// TestImportTabularExample: the PyTorch MLP and mixed VAE become a models folder of rows, checked in both
// runtimes, that opens, loads for the search and explains its test applicant 0; the float32 import's eval-mode
// probabilities are PyTorch's own within 1e-4; without the user's VAE one is trained; nothing is overwritten.
func TestImportTabularExample(t *testing.T) {
	ex := pytorchTabular(t)
	ort := ortDir(t)
	for _, vae := range []bool{true, false} {
		out := filepath.Join(t.TempDir(), "credit-pytorch")
		said, err := captured(t, func() error { return importCmd(tabularArgs(ex, out, ort, vae)) })
		if err != nil {
			t.Fatalf("vae %v: %v\n%s", vae, err, said)
		}
		roles := []string{"the classifier"}
		if vae {
			roles = append(roles, "the encoder", "the decoder")
		}
		for _, role := range roles {
			for _, rt := range []string{"onnx-gomlx", "onnxruntime-web"} {
				if !strings.Contains(said, role) || !strings.Contains(said, "agrees with "+rt) {
					t.Errorf("vae %v: %s is not said to agree with %s:\n%s", vae, role, rt, said)
				}
			}
		}
		m, err := modelsource.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		d := m.Description()
		test, ok := m.Test.(*dataset.Table)
		if !d.Input.IsTable() || d.Input.Columns.Width() != 26 || d.Classes[0] != "bad" || !ok || test.Len() != 161 {
			t.Fatalf("the folder: input %+v, classes %v, test rows %v", d.Input.Kind, d.Classes, m.Test)
		}
		if age := d.Input.Columns[d.Input.Columns.Index("Age")]; age.Change != weights.ChangeNever || age.Std <= 0 {
			t.Errorf("-lock Age: the column is %+v", age)
		}
		if d.VAE.Likelihood != weights.LikelihoodMixed || (d.VAE.LogVariance != nil) == vae {
			t.Errorf("vae %v: the VAE is %q, log-variance %v", vae, d.VAE.Likelihood, d.VAE.LogVariance != nil)
		}
		if _, err := clue.LoadBundle(m.Bundle); err != nil || m.Bundle.Anchors == nil {
			t.Fatalf("clue.LoadBundle: %v (anchors %v)", err, m.Bundle.Anchors != nil)
		}
		dir := t.TempDir()
		if _, err := captured(t, func() error {
			return explain([]string{"-models", out, "-index", "0", "-n", "20", "-out", dir})
		}); err != nil {
			t.Fatalf("explain -index 0: %v", err)
		}
		if rep := readRowReport(t, dir); len(rep.Row) != 13 || rep.Row["Home"] == nil {
			t.Errorf("explain.json's row: %v", rep.Row)
		}
		if err := importCmd(tabularArgs(ex, out, ort, vae)); err == nil || !strings.Contains(err.Error(), "already holds models") {
			t.Errorf("a second import into %s: %v", out, err)
		}
		if !vae {
			continue
		}
		// PyTorch's eval-mode probabilities of the probe row, from the float32 folder.
		var probe struct {
			Row   string    `json:"row"`
			Probs []float64 `json:"probs"`
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
		got := bnn.Classify(x)[0].Probs
		for k, p := range probe.Probs {
			if math.Abs(p-float64(got[k])) > 1e-4 {
				t.Errorf("the float32 import's eval-mode probabilities of %s: %v; PyTorch's %v", probe.Row, got, probe.Probs)
			}
		}
	}
}

// TestImportTableRefusals: each bad table input is refused in one sentence saying what is wrong, and nothing is
// written.
func TestImportTableRefusals(t *testing.T) {
	ex := pytorchTabular(t)
	ort := ortDir(t)
	dir := t.TempDir()
	train, err := os.ReadFile(filepath.Join(ex, "train.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(train), "\n"), "\n")
	header := strings.Split(lines[0], ",")
	first := strings.Split(lines[1], ",")
	at := func(name string) int {
		for i, h := range header {
			if h == name {
				return i
			}
		}
		t.Fatalf("no column %s in %v", name, header)
		return -1
	}
	// withFirst is the training CSV with its first row's column name set to value.
	withFirst := func(name, value string) string {
		row := append([]string(nil), first...)
		row[at(name)] = value
		return strings.Join(append([]string{lines[0], strings.Join(row, ",")}, lines[2:]...), "\n") + "\n"
	}
	// without is the training CSV without a column.
	without := func(name string) string {
		k := at(name)
		var out []string
		for _, l := range lines {
			f := strings.Split(l, ",")
			out = append(out, strings.Join(append(f[:k:k], f[k+1:]...), ","))
		}
		return strings.Join(out, "\n") + "\n"
	}
	extra := strings.Replace(string(train), lines[0], lines[0]+",Pets", 1)
	extra = strings.ReplaceAll(extra, "\n", ",2\n")
	extra = strings.Replace(extra, "Pets,2", "Pets", 1)
	schema, err := os.ReadFile(filepath.Join(ex, "schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cols []map[string]any
	if err := json.Unmarshal(schema, &cols); err != nil {
		t.Fatal(err)
	}
	for _, c := range cols {
		if c["name"] == "Home" {
			c["levels"] = append(c["levels"].([]any), "castle") // 27 values
		}
	}
	wide, _ := json.Marshal(cols)
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, c := range []struct {
		flag, value, want string
	}{
		{"-data", write("missing.csv", without("Income")), `has no column "Income"`},
		{"-data", write("extra.csv", extra), `has a column "Pets" the model does not read`},
		{"-data", write("level.csv", withFirst("Home", "castle")), `column "Home": "castle" is not one of its levels, ignore, other, owner, parents, priv, rent`},
		{"-data", write("range.csv", withFirst("Age", "200")), `column "Age": 200 is outside its range 18 to 68 years`},
		{"-data", write("nan.csv", withFirst("Income", "lots")), `column "Income": "lots" is not a number`},
		{"-schema", write("wide.json", string(wide)), "the schema's 13 columns flatten to 27 values (one per number, one per category level) and the classifier reads 26 values"},
		{"-schema", write("bad.json", `[{"name":"Age","kind":"integer","change":"sideways"}]`), `column "Age": its change rule "sideways" must be`},
		{"-lock", "Age,Pets", `-lock names a column "Pets" the schema does not have`},
	} {
		out := filepath.Join(dir, "out")
		args := tabularArgs(ex, out, ort, true)
		for i := range args {
			if args[i] == c.flag {
				args[i+1] = c.value
			}
		}
		err := importCmd(args)
		checkRefusal(t, "import", []string{c.flag, c.value}, err, c.want, out)
	}
}
