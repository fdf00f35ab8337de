package credit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/deltaclue/deltaclue/weights"
)

// The committed files' SHA-256: `make data DATASET=credit` rebuilds them from the R export and checks them.
const (
	testCSVSHA256    = "b737efd678217d93b83685673e4a0e4fffb8aa7611eb8ed251d3d053f644578d"
	schemaJSONSHA256 = "8c1bcc0b094fed782a3498bd31ae9ff9e0ce42ede15084c43abc4e7a645e918e"
)

// TestCommitted: the committed test split and schema are the recorded bytes; the schema is a valid table of the
// 13 columns flattened to 26 values; every committed test applicant parses, is inside every range, and survives
// standardising and back exactly (they are all whole numbers); the split keeps the classes' shares.
func TestCommitted(t *testing.T) {
	for name, c := range map[string]struct {
		b    []byte
		want string
	}{"test.csv": {testCSV, testCSVSHA256}, "schema.json": {schemaJSON, schemaJSONSHA256}} {
		if sum := sha256.Sum256(c.b); hex.EncodeToString(sum[:]) != c.want {
			t.Errorf("%s has SHA-256 %x, want %s (rebuilt by make data DATASET=credit -write-heldout?)", name, sum, c.want)
		}
	}
	schema := Columns()
	if err := schema.Check(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(schema.Names(), columns.Names()) || schema.Width() != 26 {
		t.Errorf("the schema's columns %v, width %d; want credit_data's 13, 26 values", schema.Names(), schema.Width())
	}
	for i, c := range schema {
		if s, e := schema.Slice(i); e-s != max(len(c.Levels), 1) {
			t.Errorf("column %s's slice [%d, %d)", c.Name, s, e)
		}
		if c.Change != columns[i].Change || c.Unit != columns[i].Unit || !slices.Equal(c.Levels, columns[i].Levels) {
			t.Errorf("column %s in schema.json differs from the package's: %+v", c.Name, c)
		}
	}
	if a := schema[schema.Index("Age")]; a.Change != weights.ChangeUp || a.Range != [2]float64{18, 68} {
		t.Errorf("Age: %+v", a)
	}
	apps, err := Test()
	if err != nil {
		t.Fatal(err)
	}
	counts := make([]int, len(Classes))
	for k, a := range apps {
		counts[a.Status]++
		if err := schema.CheckRow(a.Row); err != nil {
			t.Fatalf("test applicant %d: %v", k, err)
		}
		x, err := schema.Standardise(a.Row)
		if err != nil {
			t.Fatal(err)
		}
		back, err := schema.Unstandardise(x)
		if err != nil || !slices.Equal(back, a.Row) {
			t.Fatalf("test applicant %d: %v standardised and back is %v (%v)", k, a.Row, back, err)
		}
		if again, err := schema.ParseRow(schema.FormatRow(a.Row)); err != nil || !slices.Equal(again, a.Row) {
			t.Fatalf("test applicant %d as %q: %v", k, schema.FormatRow(a.Row), err)
		}
	}
	if len(apps) != 805 || counts[0] != 204 || counts[1] != 601 {
		t.Errorf("%d test applicants, %v by class; want 805, [204 601]", len(apps), counts)
	}
	// Written again, the applicants are the committed bytes.
	if b, err := WriteCSV(schema, apps); err != nil || !bytes.Equal(b, testCSV) {
		t.Errorf("the test applicants written again differ from test.csv (%v)", err)
	}
}

// TestPrepare: with R and r-cran-modeldata (or the data folder's export), the export is the recorded one, 415
// applicants have a missing value and are dropped, and the split, the schema and the committed files are what
// it gives, the same every time.
func TestPrepare(t *testing.T) {
	export, err := os.ReadFile("../../data/credit/" + ExportFile)
	if err != nil {
		if _, lerr := exec.LookPath("Rscript"); lerr != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("no Rscript and no export (%v), and CI=true: .ci/run installs r-cran-modeldata", err)
			}
			t.Skipf("SKIPPING: no Rscript and no data/credit/%s; apt-get install r-cran-modeldata", ExportFile)
		}
		if export, err = Export(); err != nil {
			t.Fatal(err)
		}
	}
	p, err := Prepare(export)
	if err != nil {
		t.Fatal(err)
	}
	if p.Missing.Rows != 415 || p.Missing.ByClass["bad"] != 228 || p.Missing.ByColumn["Income"] != 381 {
		t.Errorf("missing: %+v", p.Missing)
	}
	if len(p.Train) != 3231 || len(p.Test) != 805 || len(p.OutOfRange) != 3 {
		t.Errorf("%d train, %d test, %d left out of test", len(p.Train), len(p.Test), len(p.OutOfRange))
	}
	if !bytes.Equal(p.TestCSV, testCSV) || !bytes.Equal(p.SchemaJSON, schemaJSON) {
		t.Error("the committed test.csv or schema.json is not what the export gives")
	}
	if again, err := Prepare(export); err != nil || !bytes.Equal(again.TrainCSV, p.TrainCSV) || !bytes.Equal(again.SplitJSON, p.SplitJSON) {
		t.Errorf("a second run differs (%v)", err)
	}
	// Every training applicant is inside the schema the training split gave.
	rows, labels, err := p.Schema.ReadCSV(bytes.NewReader(p.TrainCSV), LabelColumn, Classes)
	if err != nil || len(rows) != 3231 || len(labels) != 3231 {
		t.Errorf("the training split read back: %d rows, %v", len(rows), err)
	}
	// Another export is refused in one sentence that says what to do.
	if _, err := Prepare(append(slices.Clone(export), '\n')); err == nil || !strings.Contains(err.Error(), "record the new hash") {
		t.Errorf("another export: %v", err)
	}
}

// TestSplit: the split is stratified (each class's share within one applicant) and fixed by its seed.
func TestSplit(t *testing.T) {
	var apps []Applicant
	for i := range 1000 {
		apps = append(apps, Applicant{Status: min(i%4, 1)})
	}
	train, test := Split(apps, 1)
	if len(test) != 200 || len(train) != 800 {
		t.Fatalf("%d train, %d test", len(train), len(test))
	}
	bad := 0
	for _, i := range test {
		if apps[i].Status == 0 {
			bad++
		}
	}
	if bad != 50 {
		t.Errorf("%d bad test applicants, want 50", bad)
	}
	if tr2, te2 := Split(apps, 1); !slices.Equal(tr2, train) || !slices.Equal(te2, test) {
		t.Error("the same seed gives another split")
	}
	if _, te3 := Split(apps, 2); slices.Equal(te3, test) {
		t.Error("another seed gives the same split")
	}
}
