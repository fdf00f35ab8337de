package concrete

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/deltaclue/deltaclue/internal/modeldata"
	"github.com/deltaclue/deltaclue/weights"
)

// The committed files' SHA-256: `make data DATASET=concrete` rebuilds them from the R export and checks them.
const (
	testCSVSHA256    = "1f1fd5638f36c0166b4381d843eaa64addb541eb94f1105156a00443d02a2703"
	schemaJSONSHA256 = "a36ec3a1fb2551ff59427b7deec7cbedaf32fe96b980bd9411fb6084906ef7d5"
	targetJSONSHA256 = "3d95bfa746ab6af5c6b1cb4cc4af06ec84a873aeca2d5509aac6c39655a89efe"
)

// TestCommitted: the committed test split, schema and target are the recorded bytes; the schema is a valid table
// of concrete's 8 columns (7 ingredients in kg/m³, the age a whole number of days), each one value wide; the
// target is Strength in MPa with the training split's statistics; every committed test mix parses, is inside
// every range, and survives standardising and back (to float32's precision) and its text form exactly.
func TestCommitted(t *testing.T) {
	for name, c := range map[string]struct {
		b    []byte
		want string
	}{"test.csv": {testCSV, testCSVSHA256}, "schema.json": {schemaJSON, schemaJSONSHA256}, "target.json": {targetJSON, targetJSONSHA256}} {
		if got := modeldata.SHA256(c.b); got != c.want {
			t.Errorf("%s has SHA-256 %s, want %s (rebuilt by make data DATASET=concrete -write-heldout?)", name, got, c.want)
		}
	}
	schema := Columns()
	if err := schema.Check(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(schema.Names(), []string{"cement", "blast_furnace_slag", "fly_ash", "water", "superplasticizer", "coarse_aggregate", "fine_aggregate", "age"}) || schema.Width() != 8 {
		t.Errorf("the schema's columns %v, width %d; want concrete's 8", schema.Names(), schema.Width())
	}
	for i, c := range schema {
		want := columns[i]
		if c.Kind != want.Kind || c.Unit != want.Unit || c.Change != weights.ChangeFree || c.Std <= 0 || !(c.Range[0] < c.Range[1]) {
			t.Errorf("column %s in schema.json: %+v", c.Name, c)
		}
	}
	if a := schema[schema.Index("age")]; a.Kind != weights.ColumnInteger || a.Unit != "days" || a.Range != [2]float64{1, 365} {
		t.Errorf("age: %+v", a)
	}
	if c := schema[schema.Index("cement")]; c.Kind != weights.ColumnNumber || c.Unit != "kg/m³" || c.Range != [2]float64{102, 540} {
		t.Errorf("cement: %+v", c)
	}
	tg := Target()
	if tg.Name != TargetName || tg.Unit != TargetUnit || math.Abs(tg.Mean-35.42) > 0.01 || math.Abs(tg.Std-16.21) > 0.01 || tg.Range != [2]float64{3.32, 82.6} {
		t.Errorf("the target: %+v", tg)
	}
	mixes, err := Test()
	if err != nil {
		t.Fatal(err)
	}
	if len(mixes) != 199 {
		t.Errorf("%d test mixes, want 199", len(mixes))
	}
	for k, m := range mixes {
		if err := schema.CheckRow(m.Row); err != nil {
			t.Fatalf("test mix %d: %v", k, err)
		}
		if !(m.Strength > 0 && m.Strength < 100) {
			t.Errorf("test mix %d: a strength of %g MPa", k, m.Strength)
		}
		x, err := schema.Standardise(m.Row)
		if err != nil {
			t.Fatal(err)
		}
		back, err := schema.Unstandardise(x)
		if err != nil {
			t.Fatal(err)
		}
		for i := range back {
			if math.Abs(back[i]-m.Row[i]) > 1e-6*schema[i].Std*math.Max(1, math.Abs(float64(x[i]))) {
				t.Fatalf("test mix %d: %s = %g standardised and back is %g", k, schema[i].Name, m.Row[i], back[i])
			}
		}
		if again, err := schema.ParseRow(schema.FormatRow(m.Row)); err != nil || !slices.Equal(again, m.Row) {
			t.Fatalf("test mix %d as %q: %v", k, schema.FormatRow(m.Row), err)
		}
	}
	// Written again, the mixes are the committed bytes.
	if b, err := WriteCSV(schema, mixes); err != nil || !bytes.Equal(b, testCSV) {
		t.Errorf("the test mixes written again differ from test.csv (%v)", err)
	}
}

// TestPrepare: with R and r-cran-modeldata (or the data folder's export), the export is the recorded one, 25
// rows repeat an earlier one exactly and are dropped, the split keeps every input on one side, and the committed
// files are what it gives, the same every time; another export is refused.
func TestPrepare(t *testing.T) {
	export, err := os.ReadFile("../../data/concrete/" + ExportFile)
	if err != nil {
		if _, lerr := exec.LookPath("Rscript"); lerr != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("no Rscript and no export (%v), and CI=true: .ci/run installs r-cran-modeldata", err)
			}
			t.Skipf("SKIPPING: no Rscript and no data/concrete/%s; apt-get install r-cran-modeldata", ExportFile)
		}
		if export, err = Export(); err != nil {
			t.Fatal(err)
		}
	}
	p, err := Prepare(export)
	if err != nil {
		t.Fatal(err)
	}
	if p.Duplicates != 25 || len(p.Train) != 806 || len(p.Test) != 199 || len(p.OutOfRange) != 0 {
		t.Errorf("%d duplicates, %d train, %d test, %d left out of test", p.Duplicates, len(p.Train), len(p.Test), len(p.OutOfRange))
	}
	if !bytes.Equal(p.TestCSV, testCSV) || !bytes.Equal(p.SchemaJSON, schemaJSON) || !bytes.Equal(p.TargetJSON, targetJSON) {
		t.Error("the committed test.csv, schema.json or target.json is not what the export gives")
	}
	if again, err := Prepare(export); err != nil || !bytes.Equal(again.TrainCSV, p.TrainCSV) || !bytes.Equal(again.SplitJSON, p.SplitJSON) {
		t.Errorf("a second run differs (%v)", err)
	}
	// No test mix has a training mix's inputs, and the training split reads back inside its own schema.
	seen := map[string]bool{}
	for _, m := range p.Train {
		seen[fmt.Sprint(m.Row)] = true
	}
	for k, m := range p.Test {
		if seen[fmt.Sprint(m.Row)] {
			t.Errorf("test mix %d has a training mix's inputs %v", k, m.Row)
		}
	}
	train, err := ReadCSV(p.Schema, bytes.NewReader(p.TrainCSV))
	if err != nil || len(train) != 806 {
		t.Errorf("the training split read back: %d mixes, %v", len(train), err)
	}
	// Another export is refused in one sentence that says what to do.
	if _, err := Prepare(append(slices.Clone(export), '\n')); err == nil || !strings.Contains(err.Error(), "record the new hash as concrete.ExportSHA256") {
		t.Errorf("another export: %v", err)
	}
}

// TestRead: a row that repeats an earlier one exactly is dropped and counted, a row of the same inputs with
// another strength is kept, and an export of other columns or rows is refused.
func TestRead(t *testing.T) {
	header := strings.Join(append(columns.Names(), ExportTarget), ",") + "\n"
	row := func(cement, strength float64) string {
		return fmt.Sprintf("%g,0,0,162,2.5,1040,676,28,%g\n", cement, strength)
	}
	body := row(540, 79.99) + row(540, 79.99) + row(540, 61.89)
	for range ExportRows - 3 {
		body += row(300, 30)
	}
	mixes, dups, err := Read([]byte(header + body))
	if err != nil {
		t.Fatal(err)
	}
	// Dropped: the second row, and all but the first of the last 1,027.
	if dups != ExportRows-3 || len(mixes) != 3 || mixes[1].Strength != 61.89 || mixes[2].Row[0] != 300 {
		t.Errorf("%d duplicates, %d mixes: %+v", dups, len(mixes), mixes)
	}
	if _, _, err := Read([]byte(strings.Replace(header, "age", "days", 1) + body)); err == nil || !strings.Contains(err.Error(), "concrete's columns are") {
		t.Errorf("other columns: %v", err)
	}
	if _, _, err := Read([]byte(header + row(540, 1))); err == nil || !strings.Contains(err.Error(), "concrete has 1 rows, not 1030") {
		t.Errorf("one row: %v", err)
	}
	if _, _, err := Read([]byte(header + strings.Replace(body, "28,30", "28.5,30", 1))); err == nil || !strings.Contains(err.Error(), `column "age"`) {
		t.Errorf("an age of 28.5 days: %v", err)
	}
}

// TestSplit: a fifth of the distinct inputs are test inputs, rows of the same inputs fall on the same side, and
// the split is fixed by its seed.
func TestSplit(t *testing.T) {
	var mixes []Mix
	for i := range 1000 {
		mixes = append(mixes, Mix{Row: []float64{float64(i / 2)}, Strength: float64(i)}) // 500 inputs, each twice
	}
	train, test := Split(mixes, 1)
	if len(test) != 200 || len(train) != 800 {
		t.Fatalf("%d train, %d test", len(train), len(test))
	}
	for _, i := range test {
		if j := i ^ 1; !slices.Contains(test, j) {
			t.Fatalf("row %d is a test row, and row %d of the same inputs is not", i, j)
		}
	}
	if tr2, te2 := Split(mixes, 1); !slices.Equal(tr2, train) || !slices.Equal(te2, test) {
		t.Error("the same seed gives another split")
	}
	if _, te3 := Split(mixes, 2); slices.Equal(te3, test) {
		t.Error("another seed gives the same split")
	}
}
