// Package credit is the credit-scoring data of issue 41: credit_data from Debian's r-cran-modeldata (4,454
// applicants of a Spanish bank, Status good or bad; 9 integer and 4 category columns; from Lluís A. Belanche
// Muñoz by way of github.com/gastonstat/CreditScoring). `make data DATASET=credit` (cmd/mnistdata) exports it
// with Rscript, checks the CSV by its SHA-256, drops the applicants with a missing value, splits the rest
// stratified by class with a fixed seed into train and test, and computes the table's schema from the training
// split. The test applicants and the schema are committed beside this file (test.csv, schema.json), so that
// nothing else needs R. docs/tables.md says why and gives the counts.
package credit

import (
	"bytes"
	_ "embed"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/deltaclue/deltaclue/engine/rng"
	"github.com/deltaclue/deltaclue/internal/modeldata"
	"github.com/deltaclue/deltaclue/internal/tableschema"
	"github.com/deltaclue/deltaclue/weights"
)

// Classes are Status's levels in R's order: label 0 is "bad" (the applicant did not repay), 1 "good".
var Classes = []string{"bad", "good"}

// LabelColumn is the class's column in the CSV files.
const LabelColumn = "Status"

// RExport is the R program `make data DATASET=credit` runs with Rscript: credit_data as R's write.csv writes it
// (strings quoted, NA for a missing value), without row names.
const RExport = `suppressPackageStartupMessages(library(modeldata)); data(credit_data, package = "modeldata"); write.csv(credit_data, stdout(), row.names = FALSE)`

// ExportSHA256 is the SHA-256 of RExport's output with Debian's r-cran-modeldata 1.1.0-1 (R 4.2): 4,455 lines,
// 311,108 bytes.
const ExportSHA256 = "2392f2e9d9ebe7eef1b40b7e3c13fff748783ad64b3ad5af7f04a17556842fd9"

// ExportRows is how many applicants credit_data has.
const ExportRows = 4454

// SplitSeed seeds the train/test split; TestPercent of each class's complete applicants are test applicants.
const (
	SplitSeed   = 20260412
	TestPercent = 20
)

// Files written into the data folder's credit/ and, for the test split and the schema, committed here.
const (
	ExportFile = "credit_data.csv" // RExport's output, as it was checked
	TrainFile  = "train.csv"
	TestFile   = "test.csv"
	SchemaFile = "schema.json"
	SplitFile  = "split.json"
)

// columns are credit_data's 13 columns in its order, without what the training split gives (range, mean and
// std): their kinds, R's levels in R's order, units, and whether an explanation may change them (docs/tables.md
// says why). Every number in credit_data is a whole number. The source states no currency: the amounts are
// as recorded, without a unit.
var columns = weights.Columns{
	{Name: "Seniority", Kind: weights.ColumnInteger, Unit: "years", Change: weights.ChangeFree},
	{Name: "Home", Kind: weights.ColumnCategory, Levels: []string{"ignore", "other", "owner", "parents", "priv", "rent"}, Change: weights.ChangeFree},
	{Name: "Time", Kind: weights.ColumnInteger, Unit: "months", Change: weights.ChangeFree},
	{Name: "Age", Kind: weights.ColumnInteger, Unit: "years", Change: weights.ChangeUp},
	{Name: "Marital", Kind: weights.ColumnCategory, Levels: []string{"divorced", "married", "separated", "single", "widow"}, Change: weights.ChangeFree},
	{Name: "Records", Kind: weights.ColumnCategory, Levels: []string{"no", "yes"}, Change: weights.ChangeFree},
	{Name: "Job", Kind: weights.ColumnCategory, Levels: []string{"fixed", "freelance", "others", "partime"}, Change: weights.ChangeFree},
	{Name: "Expenses", Kind: weights.ColumnInteger, Change: weights.ChangeFree},
	{Name: "Income", Kind: weights.ColumnInteger, Change: weights.ChangeFree},
	{Name: "Assets", Kind: weights.ColumnInteger, Change: weights.ChangeFree},
	{Name: "Debt", Kind: weights.ColumnInteger, Change: weights.ChangeFree},
	{Name: "Amount", Kind: weights.ColumnInteger, Change: weights.ChangeFree},
	{Name: "Price", Kind: weights.ColumnInteger, Change: weights.ChangeFree},
}

// Applicant is one row of credit_data: its 13 values in natural units (a category as its level's index) and its
// class (an index into Classes).
type Applicant struct {
	Row    []float64
	Status int
}

// Missing counts what Read dropped: applicants with at least one missing value, by class, and the missing
// values by column.
type Missing struct {
	Rows     int            `json:"rows"`
	ByClass  map[string]int `json:"by_class"`
	ByColumn map[string]int `json:"by_column"`
}

// export is credit_data as the project exports and checks it.
var export = modeldata.Set{Name: "credit_data", Program: RExport, SHA256: ExportSHA256, Version: "r-cran-modeldata 1.1.0-1",
	Record: "credit.ExportSHA256", Doc: "docs/tables.md"}

// Export runs RExport with Rscript and returns its output, saying what to install when R or the package is
// missing.
func Export() ([]byte, error) { return export.Export() }

// CheckExport checks an export's SHA-256 against the one recorded here.
func CheckExport(b []byte) error { return export.Check(b) }

// Read reads RExport's output: every applicant without a missing value ("NA"), in the data's order, and what
// was dropped. The applicants with a missing value are dropped, not imputed (docs/tables.md says why).
func Read(b []byte) ([]Applicant, Missing, error) {
	loose := looseColumns()
	cr := csv.NewReader(bytes.NewReader(b))
	header, err := cr.Read()
	if err != nil {
		return nil, Missing{}, fmt.Errorf("credit_data's header: %v", err)
	}
	if want := append([]string{LabelColumn}, columns.Names()...); !slices.Equal(header, want) {
		return nil, Missing{}, fmt.Errorf("credit_data's columns are %s, not %s", strings.Join(header, ","), strings.Join(want, ","))
	}
	miss := Missing{ByClass: map[string]int{}, ByColumn: map[string]int{}}
	var apps []Applicant
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, Missing{}, fmt.Errorf("credit_data: %v", err)
		}
		status := slices.Index(Classes, rec[0])
		if status < 0 {
			return nil, Missing{}, fmt.Errorf("credit_data, line %d: the Status %q is neither bad nor good", line, rec[0])
		}
		a := Applicant{Row: make([]float64, len(columns)), Status: status}
		complete := true
		for i, s := range rec[1:] {
			if s == "NA" {
				miss.ByColumn[columns[i].Name]++
				complete = false
				continue
			}
			if a.Row[i], err = loose.ParseValue(i, s); err != nil {
				return nil, Missing{}, fmt.Errorf("credit_data, line %d: %v", line, err)
			}
		}
		if !complete {
			miss.Rows++
			miss.ByClass[Classes[status]]++
			continue
		}
		apps = append(apps, a)
	}
	if n := len(apps) + miss.Rows; n != ExportRows {
		return nil, Missing{}, fmt.Errorf("credit_data has %d applicants, not %d", n, ExportRows)
	}
	return apps, miss, nil
}

// looseColumns are the columns with ranges wide enough for any value, to read the export before the schema is
// known.
func looseColumns() weights.Columns {
	c := slices.Clone(columns)
	for i := range c {
		if c[i].Kind != weights.ColumnCategory {
			c[i].Range, c[i].Std = [2]float64{-1e15, 1e15}, 1
		}
	}
	return c
}

// Split divides the applicants by class: of each class's, TestPercent (rounded to the nearest), drawn with a
// generator seeded from seed and the class, are the test applicants and the rest the training ones. Each part
// lists its indices in the data's order. (Prepare then leaves out the few test applicants outside the training
// split's range.)
func Split(apps []Applicant, seed uint64) (train, test []int) {
	byClass := make([][]int, len(Classes))
	for i, a := range apps {
		byClass[a.Status] = append(byClass[a.Status], i)
	}
	for c, idx := range byClass {
		n := (len(idx)*TestPercent + 50) / 100
		perm := rng.New(rng.Derive(seed, uint64(c))).Perm(len(idx))
		for k, p := range perm {
			if k < n {
				test = append(test, idx[p])
			} else {
				train = append(train, idx[p])
			}
		}
	}
	slices.Sort(train)
	slices.Sort(test)
	return train, test
}

// Schema is the credit table's columns with what the training applicants give: each integer's range (their
// minimum and maximum) and its standardisation (their mean and standard deviation, the population's: divided by
// n).
func Schema(train []Applicant) (weights.Columns, error) {
	if len(train) < 2 {
		return nil, fmt.Errorf("a schema needs training applicants, not %d", len(train))
	}
	rows := make([][]float64, len(train))
	for i, a := range train {
		rows[i] = a.Row
	}
	return tableschema.Fit(columns, rows)
}

// WriteCSV writes applicants as a CSV file with a header, the 13 columns then Status, as weights.Columns.ReadCSV
// reads it: numbers in Go's shortest form, categories and the class by name.
func WriteCSV(schema weights.Columns, apps []Applicant) ([]byte, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	if err := w.Write(append(schema.Names(), LabelColumn)); err != nil {
		return nil, err
	}
	for _, a := range apps {
		if err := w.Write(schema.CSVRecord(a.Row, Classes[a.Status])); err != nil {
			return nil, err
		}
	}
	w.Flush()
	return buf.Bytes(), w.Error()
}

// MarshalSchema is the schema as schema.json holds it: indented JSON and a newline.
func MarshalSchema(schema weights.Columns) ([]byte, error) {
	b, err := json.MarshalIndent(schema, "", "  ")
	return append(b, '\n'), err
}

// The committed test split and schema, made by `make data DATASET=credit` and checked by it.
var (
	//go:embed test.csv
	testCSV []byte
	//go:embed schema.json
	schemaJSON []byte
)

// TestCSV returns the committed test split's bytes (test.csv).
func TestCSV() []byte { return slices.Clone(testCSV) }

// Columns returns the committed schema (schema.json): the credit table's columns, computed from the training
// split.
func Columns() weights.Columns {
	var c weights.Columns
	dec := json.NewDecoder(bytes.NewReader(schemaJSON))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		panic("internal/credit/schema.json: " + err.Error()) // a build whose own file does not parse is broken
	}
	return c
}

// Test returns the committed test applicants, read with the committed schema.
func Test() ([]Applicant, error) {
	rows, labels, err := Columns().ReadCSV(bytes.NewReader(testCSV), LabelColumn, Classes)
	if err != nil {
		return nil, fmt.Errorf("internal/credit/test.csv: %v", err)
	}
	if len(labels) != len(rows) {
		return nil, errors.New("internal/credit/test.csv has no Status column")
	}
	apps := make([]Applicant, len(rows))
	for i := range rows {
		apps[i] = Applicant{Row: rows[i], Status: labels[i]}
	}
	return apps, nil
}

// Prepared is the data `make data DATASET=credit` writes, made from an export by Prepare.
type Prepared struct {
	Train, Test []Applicant
	Missing     Missing
	Schema      weights.Columns
	// OutOfRange says why each test applicant outside the training split's range was left out of Test.
	OutOfRange []string
	// The files' bytes: TrainFile, TestFile, SchemaFile and SplitFile.
	TrainCSV, TestCSV, SchemaJSON, SplitJSON []byte
}

// Prepare checks an export by its SHA-256, reads it (dropping the applicants with a missing value), splits it,
// computes the schema from the training applicants and writes the files, each the same bytes for the same export.
func Prepare(export []byte) (*Prepared, error) {
	if err := CheckExport(export); err != nil {
		return nil, err
	}
	apps, miss, err := Read(export)
	if err != nil {
		return nil, err
	}
	trainIdx, testIdx := Split(apps, SplitSeed)
	p := &Prepared{Missing: miss}
	for _, i := range trainIdx {
		p.Train = append(p.Train, apps[i])
	}
	for _, i := range testIdx {
		p.Test = append(p.Test, apps[i])
	}
	if p.Schema, err = Schema(p.Train); err != nil {
		return nil, err
	}
	// A test applicant outside the training split's range is one the model's input refuses (and its networks
	// never saw): it is left out of the test split, and split.json says which.
	kept := p.Test[:0]
	for _, a := range p.Test {
		if err := p.Schema.CheckRow(a.Row); err != nil {
			p.OutOfRange = append(p.OutOfRange, err.Error())
			continue
		}
		kept = append(kept, a)
	}
	p.Test = kept
	if p.TrainCSV, err = WriteCSV(p.Schema, p.Train); err != nil {
		return nil, err
	}
	if p.TestCSV, err = WriteCSV(p.Schema, p.Test); err != nil {
		return nil, err
	}
	if p.SchemaJSON, err = MarshalSchema(p.Schema); err != nil {
		return nil, err
	}
	byClass := func(apps []Applicant) map[string]int {
		m := map[string]int{}
		for _, a := range apps {
			m[Classes[a.Status]]++
		}
		return m
	}
	info, err := json.MarshalIndent(map[string]any{
		"source": "Debian r-cran-modeldata 1.1.0-1, credit_data (Rscript: " + RExport + ")", "export_sha256": ExportSHA256,
		"applicants": ExportRows, "missing": miss, "complete": len(apps), "seed": SplitSeed, "test_percent": TestPercent,
		"train": byClass(p.Train), "test": byClass(p.Test), "test_outside_the_training_range": p.OutOfRange,
		"train_sha256": modeldata.SHA256(p.TrainCSV), "test_sha256": modeldata.SHA256(p.TestCSV), "schema_sha256": modeldata.SHA256(p.SchemaJSON),
	}, "", "  ")
	p.SplitJSON = append(info, '\n')
	return p, err
}
