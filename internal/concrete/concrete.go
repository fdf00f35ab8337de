// Package concrete is the concrete-strength data of issue 42, a regression: concrete from Debian's
// r-cran-modeldata (1,030 laboratory mixes from I-Cheng Yeh's experiments, as the package cites Yeh 2006; the UCI
// "Concrete Compressive Strength" set: seven ingredients in kg per m³ of mixture and the age at testing in days;
// the target the compressive strength in MPa). `make data DATASET=concrete` (cmd/mnistdata) exports it with Rscript, checks the CSV by its SHA-256,
// drops the rows that repeat an earlier row exactly, splits the rest into train and test with a fixed seed
// (mixes of the same ingredients and age on the same side), and computes the table's schema and the target's
// standardisation from the training split. The test mixes, the schema and the target are committed beside this
// file (test.csv, schema.json, target.json), so that nothing else needs R. docs/regression.md says why and gives
// the counts.
package concrete

import (
	"bytes"
	_ "embed"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/deltaclue/deltaclue/engine/rng"
	"github.com/deltaclue/deltaclue/internal/dataset"
	"github.com/deltaclue/deltaclue/internal/modeldata"
	"github.com/deltaclue/deltaclue/internal/tableschema"
	"github.com/deltaclue/deltaclue/weights"
)

// The target: its name in the model's description and in train.csv and test.csv, and its unit. The export calls
// it compressive_strength (ExportTarget).
const (
	TargetName = "Strength"
	TargetUnit = "MPa"
)

// ExportTarget is the target's column in RExport's output.
const ExportTarget = "compressive_strength"

// RExport is the R program `make data DATASET=concrete` runs with Rscript: concrete as R's write.csv writes it,
// without row names.
const RExport = `suppressPackageStartupMessages(library(modeldata)); data(concrete, package = "modeldata"); write.csv(concrete, stdout(), row.names = FALSE)`

// ExportSHA256 is the SHA-256 of RExport's output with Debian's r-cran-modeldata 1.1.0-1 (R 4.2): 1,031 lines,
// 40,450 bytes.
const ExportSHA256 = "a643e9c23c4cab74176606f1fb94eff95ff6f8ee2379bc5b654b229b2ea151fe"

// ExportRows is how many rows concrete has.
const ExportRows = 1030

// SplitSeed seeds the train/test split; TestPercent of the distinct mixes (rounded to the nearest) are test
// mixes.
const (
	SplitSeed   = 20260420
	TestPercent = 20
)

// Files written into the data folder's concrete/ and, for the test split, the schema and the target, committed
// here.
const (
	ExportFile = "concrete.csv" // RExport's output, as it was checked
	TrainFile  = "train.csv"
	TestFile   = "test.csv"
	SchemaFile = "schema.json"
	TargetFile = "target.json"
	SplitFile  = "split.json"
)

// export is concrete as the project exports and checks it.
var export = modeldata.Set{Name: "concrete", Program: RExport, SHA256: ExportSHA256, Version: "r-cran-modeldata 1.1.0-1",
	Record: "concrete.ExportSHA256", Doc: "docs/regression.md"}

// Export runs RExport with Rscript and returns its output, saying what to install when R or the package is
// missing.
func Export() ([]byte, error) { return export.Export() }

// CheckExport checks an export's SHA-256 against the one recorded here.
func CheckExport(b []byte) error { return export.Check(b) }

// kgm3 is the unit of the ingredients: kilograms per cubic metre of mixture.
const kgm3 = "kg/m³"

// columns are concrete's 8 inputs in its order, named as R names them, without what the training split gives
// (range, mean and std). The ingredients are numbers (the data has amounts such as 332.5 and 2.5), the age a
// whole number of days. Every column may change (docs/regression.md says why).
var columns = weights.Columns{
	{Name: "cement", Kind: weights.ColumnNumber, Unit: kgm3, Change: weights.ChangeFree},
	{Name: "blast_furnace_slag", Kind: weights.ColumnNumber, Unit: kgm3, Change: weights.ChangeFree},
	{Name: "fly_ash", Kind: weights.ColumnNumber, Unit: kgm3, Change: weights.ChangeFree},
	{Name: "water", Kind: weights.ColumnNumber, Unit: kgm3, Change: weights.ChangeFree},
	{Name: "superplasticizer", Kind: weights.ColumnNumber, Unit: kgm3, Change: weights.ChangeFree},
	{Name: "coarse_aggregate", Kind: weights.ColumnNumber, Unit: kgm3, Change: weights.ChangeFree},
	{Name: "fine_aggregate", Kind: weights.ColumnNumber, Unit: kgm3, Change: weights.ChangeFree},
	{Name: "age", Kind: weights.ColumnInteger, Unit: "days", Change: weights.ChangeFree},
}

// target is the target as a number column (what the training split gives its range, mean and std, as a
// column's: target.json).
var target = weights.Column{Name: TargetName, Kind: weights.ColumnNumber, Unit: TargetUnit, Change: weights.ChangeFree}

// Mix is one row of concrete: its 8 inputs in natural units and its compressive strength in MPa.
type Mix struct {
	Row      []float64
	Strength float64
}

// Read reads RExport's output: every row in the data's order but those that repeat an earlier row exactly (all
// nine values), and how many those were. (Rows of the same inputs with another strength are kept: they are
// repeated measurements, the data's own spread.)
func Read(b []byte) (mixes []Mix, duplicates int, err error) {
	loose := tableschema.Loose(append(slices.Clone(columns), target))
	cr := csv.NewReader(bytes.NewReader(b))
	header, err := cr.Read()
	if err != nil {
		return nil, 0, fmt.Errorf("concrete's header: %v", err)
	}
	if want := append(columns.Names(), ExportTarget); !slices.Equal(header, want) {
		return nil, 0, fmt.Errorf("concrete's columns are %s, not %s", strings.Join(header, ","), strings.Join(want, ","))
	}
	seen := map[string]bool{}
	rows := 0
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, 0, fmt.Errorf("concrete: %v", err)
		}
		rows++
		v := make([]float64, len(rec))
		for i, s := range rec {
			if v[i], err = loose.ParseValue(i, s); err != nil {
				return nil, 0, fmt.Errorf("concrete, line %d: %v", line, err)
			}
		}
		if k := fmt.Sprint(v); seen[k] {
			duplicates++
			continue
		} else {
			seen[k] = true
		}
		mixes = append(mixes, Mix{Row: v[:len(columns)], Strength: v[len(columns)]})
	}
	if rows != ExportRows {
		return nil, 0, fmt.Errorf("concrete has %d rows, not %d", rows, ExportRows)
	}
	return mixes, duplicates, nil
}

// Split divides the mixes into train and test: the distinct inputs (a mix's 8 values; rows measured more than
// once share them) in order of first appearance, permuted by a generator seeded from seed, the first
// TestPercent of them (rounded to the nearest) test inputs and the rest training ones, so that no input is on
// both sides. Each part lists its indices in the data's order.
func Split(mixes []Mix, seed uint64) (train, test []int) {
	var groups [][]int
	at := map[string]int{}
	for i, m := range mixes {
		k := fmt.Sprint(m.Row)
		g, ok := at[k]
		if !ok {
			g = len(groups)
			at[k] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], i)
	}
	n := (len(groups)*TestPercent + 50) / 100
	for k, p := range rng.New(seed).Perm(len(groups)) {
		if k < n {
			test = append(test, groups[p]...)
		} else {
			train = append(train, groups[p]...)
		}
	}
	slices.Sort(train)
	slices.Sort(test)
	return train, test
}

// Schema is the concrete table's columns and the target with what the training mixes give: each one's range
// (their minimum and maximum) and standardisation (their mean and standard deviation, the population's: divided
// by n).
func Schema(train []Mix) (weights.Columns, weights.Column, error) {
	rows := make([][]float64, len(train))
	for i, m := range train {
		rows[i] = append(slices.Clone(m.Row), m.Strength)
	}
	all, err := tableschema.Fit(append(slices.Clone(columns), target), rows)
	if err != nil {
		return nil, weights.Column{}, err
	}
	return all[:len(columns)], all[len(columns)], nil
}

// WriteCSV writes mixes as a CSV file with a header, the 8 columns then TargetName, as ReadCSV reads it: numbers
// in Go's shortest form.
func WriteCSV(schema weights.Columns, mixes []Mix) ([]byte, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	if err := w.Write(append(schema.Names(), TargetName)); err != nil {
		return nil, err
	}
	for _, m := range mixes {
		if err := w.Write(append(schema.CSVRecord(m.Row, ""), strconv.FormatFloat(m.Strength, 'g', -1, 64))); err != nil {
			return nil, err
		}
	}
	w.Flush()
	return buf.Bytes(), w.Error()
}

// ReadCSV reads mixes from a CSV file as WriteCSV writes it (the columns in any order, TargetName among them),
// each inside the schema's ranges; the target may be any number.
func ReadCSV(schema weights.Columns, r io.Reader) ([]Mix, error) {
	loose := target
	loose.Range, loose.Std = [2]float64{-1e15, 1e15}, 1
	all := append(slices.Clone(schema), loose)
	rows, _, err := all.ReadCSV(r, "", nil)
	if err != nil {
		return nil, err
	}
	mixes := make([]Mix, len(rows))
	for i, r := range rows {
		mixes[i] = Mix{Row: r[:len(schema)], Strength: r[len(schema)]}
	}
	return mixes, nil
}

// Table is mixes as a regression's rows (read with cols, flattened and standardised by them), each labelled
// with the range its strength falls in (r.Range: the regression's classes) and carrying its strength as its
// target.
func Table(cols weights.Columns, mixes []Mix, r *weights.Regression) (*dataset.Table, error) {
	rows, labels, targets := make([][]float64, len(mixes)), make([]int, len(mixes)), make([]float64, len(mixes))
	for i, m := range mixes {
		rows[i], labels[i], targets[i] = m.Row, r.Range(m.Strength), m.Strength
	}
	t, err := dataset.NewTable(cols, rows, labels)
	if err != nil {
		return nil, err
	}
	t.Targets = targets
	return t, nil
}

// marshal is v as the committed JSON files hold it: indented, and a newline.
func marshal(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	return append(b, '\n'), err
}

// The committed test split, schema and target, made by `make data DATASET=concrete` and checked by it.
var (
	//go:embed test.csv
	testCSV []byte
	//go:embed schema.json
	schemaJSON []byte
	//go:embed target.json
	targetJSON []byte
)

// TestCSV returns the committed test split's bytes (test.csv).
func TestCSV() []byte { return slices.Clone(testCSV) }

// decode reads a committed JSON file, panicking when it does not parse: a build whose own file does not parse is
// broken.
func decode(name string, b []byte, v any) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		panic("internal/concrete/" + name + ": " + err.Error())
	}
}

// Columns returns the committed schema (schema.json): the concrete table's 8 columns, computed from the
// training split.
func Columns() weights.Columns {
	var c weights.Columns
	decode(SchemaFile, schemaJSON, &c)
	return c
}

// Target returns the committed target (target.json): Strength in MPa, with the training split's range, mean and
// standard deviation, the regression's standardisation.
func Target() weights.Column {
	var c weights.Column
	decode(TargetFile, targetJSON, &c)
	return c
}

// Test returns the committed test mixes, read with the committed schema.
func Test() ([]Mix, error) {
	mixes, err := ReadCSV(Columns(), bytes.NewReader(testCSV))
	if err != nil {
		return nil, fmt.Errorf("internal/concrete/test.csv: %v", err)
	}
	return mixes, nil
}

// Prepared is the data `make data DATASET=concrete` writes, made from an export by Prepare.
type Prepared struct {
	Train, Test []Mix
	// Duplicates is how many rows repeated an earlier row exactly and were dropped.
	Duplicates int
	Schema     weights.Columns
	Target     weights.Column
	// OutOfRange says why each test mix outside the training split's range was left out of Test.
	OutOfRange []string
	// The files' bytes: TrainFile, TestFile, SchemaFile, TargetFile and SplitFile.
	TrainCSV, TestCSV, SchemaJSON, TargetJSON, SplitJSON []byte
}

// Prepare checks an export by its SHA-256, reads it (dropping the exact duplicates), splits it, computes the
// schema and the target's statistics from the training mixes and writes the files, each the same bytes for the
// same export.
func Prepare(export []byte) (*Prepared, error) {
	if err := CheckExport(export); err != nil {
		return nil, err
	}
	mixes, dups, err := Read(export)
	if err != nil {
		return nil, err
	}
	trainIdx, testIdx := Split(mixes, SplitSeed)
	p := &Prepared{Duplicates: dups, OutOfRange: []string{}}
	for _, i := range trainIdx {
		p.Train = append(p.Train, mixes[i])
	}
	for _, i := range testIdx {
		p.Test = append(p.Test, mixes[i])
	}
	if p.Schema, p.Target, err = Schema(p.Train); err != nil {
		return nil, err
	}
	// A test mix outside the training split's range is one the model's input refuses (and its networks never
	// saw): it is left out of the test split, and split.json says which.
	kept := p.Test[:0]
	for _, m := range p.Test {
		if err := p.Schema.CheckRow(m.Row); err != nil {
			p.OutOfRange = append(p.OutOfRange, err.Error())
			continue
		}
		kept = append(kept, m)
	}
	p.Test = kept
	if p.TrainCSV, err = WriteCSV(p.Schema, p.Train); err != nil {
		return nil, err
	}
	if p.TestCSV, err = WriteCSV(p.Schema, p.Test); err != nil {
		return nil, err
	}
	if p.SchemaJSON, err = marshal(p.Schema); err != nil {
		return nil, err
	}
	if p.TargetJSON, err = marshal(p.Target); err != nil {
		return nil, err
	}
	p.SplitJSON, err = marshal(map[string]any{
		"source": "Debian r-cran-modeldata 1.1.0-1, concrete (Rscript: " + RExport + ")", "export_sha256": ExportSHA256,
		"rows": ExportRows, "exact_duplicates_dropped": dups, "distinct_rows": len(mixes), "seed": SplitSeed, "test_percent": TestPercent,
		"train": len(p.Train), "test": len(p.Test), "test_outside_the_training_range": p.OutOfRange,
		"train_sha256": modeldata.SHA256(p.TrainCSV), "test_sha256": modeldata.SHA256(p.TestCSV),
		"schema_sha256": modeldata.SHA256(p.SchemaJSON), "target_sha256": modeldata.SHA256(p.TargetJSON),
	})
	return p, err
}
