// Package modelsource opens the models a command is told to use (its -models flag): the shipped digits by
// name, a models bundle file (models.bin as the site serves it), or a folder holding model.json, its weights
// files (*.dcw) and, optionally, test items (package idx: test-images.idx and test-labels.idx; a table's test rows as
// test.csv).
package modelsource

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/deltaclue/deltaclue/internal/concrete"
	"github.com/deltaclue/deltaclue/internal/credit"
	"github.com/deltaclue/deltaclue/internal/dataset"
	"github.com/deltaclue/deltaclue/internal/idx"
	"github.com/deltaclue/deltaclue/mnist"
	"github.com/deltaclue/deltaclue/weights"
	concretemodels "github.com/deltaclue/deltaclue/weights/concrete"
	creditmodels "github.com/deltaclue/deltaclue/weights/credit"
	"github.com/deltaclue/deltaclue/weights/fashion"
)

// The names of the shipped models: the digits (the default), Fashion-MNIST's clothes (weights/fashion), the
// credit applicants (weights/credit, a table) and the concrete mixes (weights/concrete, a table and a
// regression). Any other models are given as a file or a folder (a folder called "digits" as ./digits).
const (
	Digits   = "digits"
	Fashion  = "fashion"
	Credit   = "credit"
	Concrete = "concrete"
)

// Help is what a command's -models flag says.
const Help = `the models to explain with: "digits", "fashion", "credit" or "concrete" (the shipped ones), a models bundle file (models.bin), or a folder holding model.json, its *.dcw files and optionally test items (test-images.idx, test-labels.idx)`

// Models are opened models.
type Models struct {
	// Spec is what the command was told: Digits, or the file's or folder's path.
	Spec string
	// Bytes is the bundle as the site serves it (web/models.bin): a folder's model.json and then its .dcw
	// files in name order, so that the same folder gives the same bytes.
	Bytes []byte
	// Bundle is the opened bundle, its description checked against its files.
	Bundle *weights.Bundle
	// Test is the models' test items: the digits' held-out test split for the digits' models, a folder's
	// test items if it has them, else nil.
	Test dataset.Items
	// ShippedDigits says that the models are the shipped digits' (by name and fingerprint, from wherever they
	// were opened): the digits' own data (the test split -digit indexes, `make data`) is theirs.
	ShippedDigits bool
	// Groups is a folder's groups.json (what `deltaclue global` writes: GLAM-CLUE's groups measured on the
	// test items, from which cmd/site makes the page's global view), nil without one.
	Groups []byte
}

// Description is the models' description.
func (m *Models) Description() *weights.Description { return m.Bundle.Description }

// Name is the models' name, as links carry it.
func (m *Models) Name() string { return m.Bundle.Description.Name }

// Open opens the models spec names: "" or Digits (the shipped models), a bundle file, or a folder. Its error
// is one sentence naming the file and what is wrong.
func Open(spec string) (*Models, error) {
	if spec == "" || spec == Digits {
		return open(Digits, weights.ShippedBundle(), "the shipped models", nil)
	}
	if spec == Fashion {
		return openFS(fashion.FS(), "weights/fashion", Fashion)
	}
	if spec == Credit {
		m, err := openFS(creditmodels.FS(), "weights/credit", Credit)
		if err != nil {
			return nil, err
		}
		// A table's test items are not IDX files: the credit models' are internal/credit's committed test split.
		if m.Test, err = CreditTest(); err != nil {
			return nil, err
		}
		return m, nil
	}
	if spec == Concrete {
		m, err := openFS(concretemodels.FS(), "weights/concrete", Concrete)
		if err != nil {
			return nil, err
		}
		// The concrete models' test items are internal/concrete's committed test split, with their strengths.
		if m.Test, err = ConcreteTest(m.Description().Regression); err != nil {
			return nil, err
		}
		return m, nil
	}
	info, err := os.Stat(spec)
	switch {
	case errors.Is(err, fs.ErrNotExist) && weights.ValidName(spec):
		return nil, fmt.Errorf("there are no models called %q: the known models are %q, %q, %q and %q; others are given as a models bundle file or a folder holding model.json", spec, Digits, Fashion, Credit, Concrete)
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%s does not exist: give %q, %q, %q, %q, a models bundle file or a folder holding model.json", spec, Digits, Fashion, Credit, Concrete)
	case err != nil:
		return nil, err
	case info.IsDir():
		return openDir(spec)
	}
	b, err := os.ReadFile(spec)
	if err != nil {
		return nil, err
	}
	return open(spec, b, spec, nil)
}

// openDir reads a folder's model.json and weights files, checks them, bundles them and reads its test items.
func openDir(dir string) (*Models, error) { return openFS(os.DirFS(dir), dir, dir) }

// openFS is openDir on the root of fsys, which errors call dir and Models.Spec calls spec.
func openFS(fsys fs.FS, dir, spec string) (*Models, error) {
	descPath := filepath.Join(dir, weights.DescriptionFile)
	raw, err := fs.ReadFile(fsys, weights.DescriptionFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s has no %s: a models folder holds %s (the models' description), its weights files (*.dcw) and optionally test items",
			dir, weights.DescriptionFile, weights.DescriptionFile)
	}
	if err != nil {
		return nil, err
	}
	desc, err := weights.ParseDescription(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", descPath, err)
	}
	names, err := fs.Glob(fsys, "*"+weightsExt)
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	if len(names)+1 > weights.MaxBundleFiles {
		return nil, fmt.Errorf("%s holds %d weights files: a bundle holds at most %d besides %s", dir, len(names), weights.MaxBundleFiles-1, weights.DescriptionFile)
	}
	members := []weights.BundleFile{{Name: weights.DescriptionFile, Data: raw}}
	files := map[string]*weights.File{}
	for _, name := range names {
		path := filepath.Join(dir, name)
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		if files[name], err = weights.Decode(path, b); err != nil {
			return nil, err // Decode's error names the file
		}
		members = append(members, weights.BundleFile{Name: name, Data: b})
	}
	if err := desc.Check(files); err != nil {
		return nil, fmt.Errorf("%s: %w", descPath, err)
	}
	var items *idx.Items
	var rows *dataset.Table
	if desc.Input.IsTable() {
		if rows, err = readTestRows(fsys, dir, desc); err != nil {
			return nil, err
		}
	} else {
		items, err = idx.ReadItemsFS(fsys, dir, desc.Input, len(desc.Classes))
		switch {
		case errors.Is(err, idx.ErrNoItems):
			items = nil
		case err != nil:
			return nil, err
		}
	}
	m, err := open(spec, weights.EncodeBundle(members), dir, items)
	if err != nil {
		return nil, err
	}
	if rows != nil {
		m.Test = rows
	}
	if m.Groups, err = fs.ReadFile(fsys, GroupsFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return m, nil
}

// CreditTest is the credit models' test applicants, internal/credit's committed test split (805 rows), as the
// networks read them: numbers standardised, categories one-hot (weights.Columns.Standardise).
func CreditTest() (*dataset.Table, error) {
	apps, err := credit.Test()
	if err != nil {
		return nil, err
	}
	rows, labels := make([][]float64, len(apps)), make([]int, len(apps))
	for i, a := range apps {
		rows[i], labels[i] = a.Row, a.Status
	}
	return dataset.NewTable(credit.Columns(), rows, labels)
}

// ConcreteTest is the concrete models' test mixes, internal/concrete's committed test split (199 rows), as the
// networks read them (numbers standardised), each with its strength as its target and labelled with the range of
// r it falls in.
func ConcreteTest(r *weights.Regression) (*dataset.Table, error) {
	mixes, err := concrete.Test()
	if err != nil {
		return nil, err
	}
	return concrete.Table(concrete.Columns(), mixes, r)
}

// GroupsFile is the name of a models folder's GLAM-CLUE groups, as `deltaclue global` writes them.
const GroupsFile = "groups.json"

// weightsExt is how a weights file's name ends.
const weightsExt = ".dcw"

// open opens bundle as the models spec names (where names them in an error), with their test items: items
// when not nil, else the held-out test split for the shipped digits.
func open(spec string, bundle []byte, where string, items *idx.Items) (*Models, error) {
	b, err := weights.OpenBundleFiles(bundle, false)
	if err != nil {
		return nil, fmt.Errorf("%s: %s", where, err)
	}
	shipped, err := weights.ShippedFingerprint()
	if err != nil {
		return nil, err
	}
	m := &Models{Spec: spec, Bytes: bundle, Bundle: b, ShippedDigits: b.Description.Name == Digits && b.Fingerprint() == shipped}
	switch {
	case items != nil:
		m.Test = items
	case m.ShippedDigits:
		if m.Test, err = mnist.HeldOut(); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// WriteDir writes a models folder that Open reads back: the bundle's files (its model.json, which it must
// have, and its weights files) and, when items is not nil, the test items (idx.WriteItems: each value rounded
// to k/255). dir is created if need be.
func WriteDir(dir string, bundle []byte, items dataset.Items) error {
	b, err := weights.OpenBundleFiles(bundle, false)
	if err != nil {
		return err
	}
	files, err := weights.DecodeBundle(bundle)
	if err != nil {
		return err
	}
	for _, f := range files {
		if f.Name != weights.DescriptionFile && (!strings.HasSuffix(f.Name, weightsExt) || strings.ContainsAny(f.Name, `/\`)) {
			return fmt.Errorf("the bundle's file %q is not a weights file (*%s) a folder can hold", f.Name, weightsExt)
		}
	}
	if !slices.ContainsFunc(files, func(f weights.BundleFile) bool { return f.Name == weights.DescriptionFile }) {
		return fmt.Errorf("the bundle has no %s (it was made before descriptions): a models folder needs one", weights.DescriptionFile)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644); err != nil {
			return err
		}
	}
	if items == nil {
		return nil
	}
	if t, ok := items.(*dataset.Table); ok && b.Description.Input.IsTable() {
		return writeTestRows(dir, b.Description, t)
	}
	return idx.WriteItems(dir, b.Description.Input, items)
}

// TestRowsFile is a table's test rows in a models folder: a CSV file with a header, the columns then
// TestRowsLabel, the class by name (weights.Columns.ReadCSV reads it), and a regression's target by its name
// (weights.Regression.Target), which `deltaclue quality` measures the models against.
const (
	TestRowsFile  = "test.csv"
	TestRowsLabel = "class"
)

// readTestRows reads a table's test rows from its folder's TestRowsFile, nil when it has none.
func readTestRows(fsys fs.FS, dir string, d *weights.Description) (*dataset.Table, error) {
	b, err := fs.ReadFile(fsys, TestRowsFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	cols := d.Input.Columns
	var targets []float64
	if d.IsRegression() { // its rows' targets, in the target's column, when the folder has them
		rest, t, err := weights.SplitTargetColumn(b, d.Regression.Target)
		var none *weights.NoTargetColumnError
		switch {
		case err == nil:
			b, targets = rest, t
		case !errors.As(err, &none):
			return nil, fmt.Errorf("%s: %v", filepath.Join(dir, TestRowsFile), err)
		}
	}
	rows, labels, err := cols.ReadCSV(bytes.NewReader(b), TestRowsLabel, d.Classes)
	if err == nil && len(labels) != len(rows) {
		err = fmt.Errorf("it has no %s column", TestRowsLabel)
	}
	if err == nil && len(rows) == 0 {
		err = errors.New("it has no rows")
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Join(dir, TestRowsFile), err)
	}
	t, err := dataset.NewTable(cols, rows, labels)
	if err == nil && targets != nil {
		t.Targets = targets
	}
	return t, err
}

// writeTestRows writes a table's test rows as its folder's TestRowsFile.
func writeTestRows(dir string, d *weights.Description, t *dataset.Table) error {
	if d.Input.Columns.Index(TestRowsLabel) >= 0 {
		return fmt.Errorf("the table has a column named %q, the name a models folder's %s gives the class: rename it", TestRowsLabel, TestRowsFile)
	}
	header := append(d.Input.Columns.Names(), TestRowsLabel)
	targets := d.IsRegression() && len(t.Targets) == len(t.Rows)
	if targets {
		if name := d.Regression.Target; d.Input.Columns.Index(name) >= 0 || name == TestRowsLabel {
			return fmt.Errorf("the table has a column named %q, the regression's target: rename one", name)
		}
		header = append(header, d.Regression.Target)
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	if err := w.Write(header); err != nil {
		return err
	}
	for i, r := range t.Rows {
		rec := d.Input.Columns.CSVRecord(r, d.Classes[t.Labels[i]])
		if targets {
			rec = append(rec, strconv.FormatFloat(t.Targets[i], 'g', -1, 64))
		}
		if err := w.Write(rec); err != nil {
			return err
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, TestRowsFile), buf.Bytes(), 0o644)
}
