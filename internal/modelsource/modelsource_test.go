package modelsource_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deltaclue/deltaclue/internal/dataset"
	"github.com/deltaclue/deltaclue/internal/idx"
	. "github.com/deltaclue/deltaclue/internal/modelsource"
	"github.com/deltaclue/deltaclue/internal/testbundle"
	"github.com/deltaclue/deltaclue/weights"
)

func TestOpenDigits(t *testing.T) {
	for _, spec := range []string{"", "digits"} {
		m, err := Open(spec)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(m.Bytes, weights.ShippedBundle()) || !m.ShippedDigits || m.Name() != "digits" || m.Test == nil || m.Test.Len() != 2000 {
			t.Errorf("Open(%q): %d bytes, digits %v, name %q", spec, len(m.Bytes), m.ShippedDigits, m.Name())
		}
	}
	// The digits' models written as a folder without test items are still the digits, with their test split.
	dir := t.TempDir()
	if err := WriteDir(dir, weights.ShippedBundle(), nil); err != nil {
		t.Fatal(err)
	}
	m, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !m.ShippedDigits || m.Test == nil || m.Test.Len() != 2000 {
		t.Errorf("the digits as a folder: digits %v", m.ShippedDigits)
	}
}

// greyDir writes testbundle.Grey(seed) as a models folder with n test items.
func greyDir(t *testing.T, n int) (string, *testbundle.Bundle) {
	t.Helper()
	b, err := testbundle.Grey(5)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var items *idx.Items
	if n > 0 {
		items = b.Items(n, 11)
	}
	if items == nil {
		err = WriteDir(dir, b.Bytes, nil)
	} else {
		err = WriteDir(dir, b.Bytes, items)
	}
	if err != nil {
		t.Fatal(err)
	}
	return dir, b
}

func TestOpenDirAndFile(t *testing.T) {
	dir, b := greyDir(t, 4)
	m, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := weights.OpenBundleFiles(b.Bytes, false)
	if m.ShippedDigits || m.Name() != "grey-test" || m.Bundle.Fingerprint() != want.Fingerprint() || m.Test == nil || m.Test.Len() != 4 {
		t.Fatalf("the grey folder: name %q, fingerprint %08x (want %08x), digits %v", m.Name(), m.Bundle.Fingerprint(), want.Fingerprint(), m.ShippedDigits)
	}
	items := b.Items(4, 11)
	for i := range 4 {
		if got, w := m.Test.Float(i, nil), items.Float(i, nil); !slices.Equal(got, w) || m.Test.Label(i) != items.Label(i) {
			t.Errorf("test item %d differs from the one written", i)
		}
	}
	// The same folder gives the same bytes: model.json, then the weights files in name order.
	again, err := Open(dir)
	if err != nil || !bytes.Equal(again.Bytes, m.Bytes) {
		t.Fatalf("opened again: %v, the same bytes %v", err, bytes.Equal(again.Bytes, m.Bytes))
	}
	files, _ := weights.DecodeBundle(m.Bytes)
	var names []string
	for _, f := range files {
		names = append(names, f.Name)
	}
	if strings.Join(names, " ") != "model.json bnn.dcw vae.dcw" {
		t.Errorf("the folder's bundle holds %v", names)
	}
	// A bundle file opens as the models it holds, without test items.
	path := filepath.Join(t.TempDir(), "models.bin")
	os.WriteFile(path, m.Bytes, 0o644)
	f, err := Open(path)
	if err != nil || f.Bundle.Fingerprint() != m.Bundle.Fingerprint() || f.Test != nil || !bytes.Equal(f.Bytes, m.Bytes) {
		t.Errorf("the bundle file: %v", err)
	}
	// Without test items a folder has none.
	bare, _ := greyDir(t, 0)
	if m, err := Open(bare); err != nil || m.Test != nil {
		t.Errorf("a folder without test items: %v", err)
	}
}

// TestOpenRefuses: every fault is one sentence that names the file or the name.
func TestOpenRefuses(t *testing.T) {
	dir, b := greyDir(t, 3)
	mangle := func(t *testing.T, f func(dir string)) string {
		d := t.TempDir()
		if err := WriteDir(d, b.Bytes, b.Items(3, 1)); err != nil {
			t.Fatal(err)
		}
		f(d)
		return d
	}
	var desc map[string]any
	raw, _ := os.ReadFile(filepath.Join(dir, "model.json"))
	json.Unmarshal(raw, &desc)
	desc["classes"] = []string{"ring", "bar", "cross"}
	fewer, _ := json.Marshal(desc)
	garbage := filepath.Join(t.TempDir(), "models.bin")
	os.WriteFile(garbage, []byte("not a bundle at all"), 0o644)
	for _, c := range []struct {
		name, spec string
		want       []string
	}{
		{"unknown name", "mnist", []string{`no models called "mnist"`, `"digits"`}},
		{"no such path", filepath.Join(dir, "nope", "models.bin"), []string{"nope/models.bin does not exist"}},
		{"no model.json", mangle(t, func(d string) { os.Remove(filepath.Join(d, "model.json")) }), []string{"has no model.json"}},
		{"model.json not JSON", mangle(t, func(d string) { os.WriteFile(filepath.Join(d, "model.json"), []byte("{"), 0o644) }), []string{"model.json: "}},
		{"model.json fails its check", mangle(t, func(d string) { os.WriteFile(filepath.Join(d, "model.json"), fewer, 0o644) }), []string{"model.json: the classifier"}},
		{"no weights file", mangle(t, func(d string) { os.Remove(filepath.Join(d, "bnn.dcw")) }), []string{"model.json: ", "bnn.dcw"}},
		{"a corrupt weights file", mangle(t, func(d string) {
			p := filepath.Join(d, "vae.dcw")
			w, _ := os.ReadFile(p)
			w[len(w)-1] ^= 1
			os.WriteFile(p, w, 0o644)
		}), []string{"vae.dcw: ", "corrupt"}},
		{"a cut IDX", mangle(t, func(d string) {
			p := filepath.Join(d, idx.ImagesFile)
			w, _ := os.ReadFile(p)
			os.WriteFile(p, w[:len(w)-5], 0o644)
		}), []string{"test-images.idx: ", "cut short"}},
		{"labels alone", mangle(t, func(d string) { os.Remove(filepath.Join(d, idx.ImagesFile)) }), []string{"no test-images.idx"}},
		{"not a bundle", garbage, []string{"models.bin: ", "not one"}},
	} {
		_, err := Open(c.spec)
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		msg := err.Error()
		t.Logf("%s: %s", c.name, msg)
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: %q lacks %q", c.name, msg, w)
			}
		}
		if strings.Contains(msg, "\n") || (c.spec != "mnist" && !strings.Contains(msg, c.spec)) {
			t.Errorf("%s: %q is not one sentence naming %s", c.name, msg, c.spec)
		}
	}
}

// TestOpenFashion: "fashion" names the shipped Fashion-MNIST models (weights/fashion, embedded): their
// description, their 2,000 held-out test items, their anchors and translations; the same bytes as the folder in
// the repository; and a name the project does not know is refused naming both that it does.
func TestOpenFashion(t *testing.T) {
	m, err := Open("fashion")
	if err != nil {
		t.Fatal(err)
	}
	d := m.Description()
	if m.Name() != "fashion" || m.ShippedDigits || m.Test == nil || m.Test.Len() != 2000 || len(d.Classes) != 10 ||
		d.Classes[9] != "Ankle boot" || m.Bundle.Anchors == nil || m.Bundle.Global == nil || m.Groups == nil {
		t.Errorf("Open(fashion): %q, digits %v, test items %v, classes %v, anchors %v, translations %v, groups %d bytes",
			m.Name(), m.ShippedDigits, m.Test, d.Classes, m.Bundle.Anchors != nil, m.Bundle.Global != nil, len(m.Groups))
	}
	dir, err := Open(filepath.Join("..", "..", "weights", "fashion"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(dir.Bytes, m.Bytes) {
		t.Error("the embedded Fashion models differ from weights/fashion")
	}
	if _, err := Open("cars"); err == nil || !strings.Contains(err.Error(), `the known models are "digits", "fashion", "credit" and "concrete"`) {
		t.Errorf("Open(cars): %v", err)
	}
}

// TestOpenCredit: "credit" names the shipped credit models (weights/credit, embedded), a table whose description
// checks against its files, with internal/credit's committed test split as its test items, flattened as the
// networks read them; the folder opened by path gives the same bundle.
func TestOpenCredit(t *testing.T) {
	m, err := Open(Credit)
	if err != nil {
		t.Fatal(err)
	}
	d := m.Description()
	if m.Name() != "credit" || m.ShippedDigits || !d.Input.IsTable() || d.VAE.Likelihood != weights.LikelihoodMixed ||
		d.Title != "Credit scoring" || d.Input.Noun != "applicant" || len(d.Classes) != 2 || d.Classes[0] != "bad" {
		t.Errorf("Open(credit): %q, digits %v, input %q, likelihood %q, title %q, noun %q, classes %v",
			m.Name(), m.ShippedDigits, d.Input.Kind, d.VAE.Likelihood, d.Title, d.Input.Noun, d.Classes)
	}
	if m.Test == nil || m.Test.Len() != 805 || m.Test.Size() != 26 || d.InputShape().Size() != 26 {
		t.Fatalf("Open(credit)'s test items: %v", m.Test)
	}
	if err := d.Check(m.Bundle.Files); err != nil {
		t.Error(err)
	}
	dir, err := Open(filepath.Join("..", "..", "weights", "credit"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(dir.Bytes, m.Bytes) || dir.Bundle.Fingerprint() != m.Bundle.Fingerprint() {
		t.Error("the embedded credit models differ from weights/credit")
	}
}

// TestOpenConcrete: "concrete" names the shipped concrete models (weights/concrete, embedded), a table and a
// regression (format 4) whose description checks against its files, with internal/concrete's committed test
// split as its test items: flattened as the networks read them, each carrying its strength and labelled with the
// range it falls in; the folder opened by path gives the same bundle.
func TestOpenConcrete(t *testing.T) {
	m, err := Open(Concrete)
	if err != nil {
		t.Fatal(err)
	}
	d := m.Description()
	if m.Name() != "concrete" || !d.Input.IsTable() || !d.IsRegression() || d.Format != weights.FormatRegression ||
		d.Title != "Concrete strength" || d.Input.Noun != "mix" || d.Regression.Target != "Strength" || d.Regression.Unit != "MPa" {
		t.Errorf("Open(concrete): %q, input %q, format %d, title %q, noun %q, regression %+v",
			m.Name(), d.Input.Kind, d.Format, d.Title, d.Input.Noun, d.Regression)
	}
	rows, ok := m.Test.(*dataset.Table)
	if !ok || rows.Len() != 199 || rows.Size() != 8 || len(rows.Targets) != 199 {
		t.Fatalf("Open(concrete)'s test items: %v", m.Test)
	}
	for i, y := range rows.Targets {
		if rows.Labels[i] != d.Regression.Range(y) {
			t.Fatalf("test mix %d of %g MPa is labelled %q", i, y, d.Classes[rows.Labels[i]])
		}
	}
	if err := d.Check(m.Bundle.Files); err != nil {
		t.Error(err)
	}
	dir, err := Open(filepath.Join("..", "..", "weights", "concrete"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(dir.Bytes, m.Bytes) || dir.Bundle.Fingerprint() != m.Bundle.Fingerprint() {
		t.Error("the embedded concrete models differ from weights/concrete")
	}
}
