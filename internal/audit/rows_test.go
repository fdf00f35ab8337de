//go:build !js

package audit

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/internal/modelsource"
	"github.com/deltaclue/deltaclue/internal/testbundle"
	"github.com/deltaclue/deltaclue/weights"
)

// tableFixture is the seeded table test bundle's models and a CSV file of 40 of its rows (with the class
// column "Status").
func tableFixture(t *testing.T) (*modelsource.Models, string) {
	t.Helper()
	b, err := testbundle.Table(3)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := modelsource.WriteDir(filepath.Join(dir, "models"), b.Bytes, nil); err != nil {
		t.Fatal(err)
	}
	m, err := modelsource.Open(filepath.Join(dir, "models"))
	if err != nil {
		t.Fatal(err)
	}
	cols := m.Description().Input.Columns
	path := filepath.Join(dir, "rows.csv")
	writeRowsCSV(t, path, cols, testbundle.Rows(cols, 40, 5))
	return m, path
}

// writeRowsCSV writes rows with the header of cols and a Status column (the classes in turn).
func writeRowsCSV(t *testing.T, path string, cols weights.Columns, rows [][]float64) {
	t.Helper()
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write(append(cols.Names(), "Status"))
	for i, r := range rows {
		w.Write(cols.CSVRecord(r, []string{"bad", "good"}[i%2]))
	}
	w.Flush()
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func rowOptions() Options {
	p := clue.Defaults()
	p.N, p.MaxSteps, p.HThreshold = 8, 20, 0.5
	p.Lock = clue.NewColumnList("Income", "Home")
	return Options{Params: p, Batch: 3, Workers: 2}
}

var rowOutputs = append(append([]string{}, outputs...), "features.csv")

// TestRowShardsMergeToTheSameBytes: an audit of a CSV file of rows, in one process and in three shards run in
// reverse order (one killed after its first batch and run again), merges to the same five files byte for byte;
// the records hold the rows and the changed columns, and the summary and report say which features change.
func TestRowShardsMergeToTheSameBytes(t *testing.T) {
	m, path := tableFixture(t)
	data, err := LoadCSV(path, m.Description(), "Status")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	one := filepath.Join(t.TempDir(), "one")
	if err := Run(ctx, m, data, rowOptions(), Shard{0, 1}, one); err != nil {
		t.Fatal(err)
	}
	if err := Merge(one); err != nil {
		t.Fatal(err)
	}
	want := map[string][]byte{}
	for _, name := range rowOutputs {
		b, err := os.ReadFile(filepath.Join(one, name))
		if err != nil {
			t.Fatal(err)
		}
		want[name] = b
	}
	three := filepath.Join(t.TempDir(), "three")
	for _, s := range []int{2, 1, 0} {
		opt := rowOptions()
		if s == 1 {
			killed, cancel := context.WithCancel(ctx)
			opt.Progress = func(done, total int) { cancel() }
			if err := Run(killed, m, data, opt, Shard{1, 3}, three); err == nil {
				t.Fatal("the killed shard finished")
			}
			opt = rowOptions()
		}
		if err := Run(ctx, m, data, opt, Shard{s, 3}, three); err != nil {
			t.Fatal(err)
		}
	}
	if err := Merge(three); err != nil {
		t.Fatal(err)
	}
	for _, name := range rowOutputs {
		got, err := os.ReadFile(filepath.Join(three, name))
		if err != nil || !bytes.Equal(got, want[name]) {
			t.Errorf("%s from three shards differs from one process's (%d and %d bytes, %v)", name, len(got), len(want[name]), err)
		}
	}
	items := string(want["items.jsonl"])
	if !strings.Contains(items, `"row":{"Age":`) || !strings.Contains(items, `"changed":["`) || strings.Contains(items, `"link"`) {
		t.Errorf("items.jsonl: no rows or changed columns, or a link:\n%.600s", items)
	}
	var s Summary
	if err := json.Unmarshal(want["summary.json"], &s); err != nil {
		t.Fatal(err)
	}
	if s.Features == nil || s.Features.All.Explanations == 0 || len(s.Features.ByLabel) == 0 || len(s.Groups) == 0 || s.Groups[0].Features == nil {
		t.Fatalf("summary.json has no features: %s", want["summary.json"])
	}
	if c := s.Features.All.Columns[1]; c.Column != "Income" || c.Changed != 0 {
		t.Errorf("the locked Income is changed: %+v", c)
	}
	report := string(want["report.html"])
	if !strings.Contains(report, "Which features the model") || !strings.Contains(report, " → ") || strings.Contains(report, "data:image/png") {
		t.Errorf("the report does not say the features and changes, or draws images")
	}
}

// TestRowAuditKeepsTheConstraints: no explanation an audit records (every label's cheapest, of every audited
// row) breaks a lock, a never, an up- or down-only rule, a range, or an integer's wholeness, and its changed
// columns are the ones that differ; with locks on the free columns and the never ones, over a few radii.
func TestRowAuditKeepsTheConstraints(t *testing.T) {
	m, path := tableFixture(t)
	data, err := LoadCSV(path, m.Description(), "Status")
	if err != nil {
		t.Fatal(err)
	}
	cols := m.Description().Input.Columns
	checked := 0
	for _, lock := range []clue.ColumnList{"", "Income,Home", "Age,Children,Records"} {
		for _, delta := range []float64{0.5, 2, 4} {
			opt := rowOptions()
			opt.Params.Lock, opt.Params.Delta, opt.Top = lock, delta, 30
			out := filepath.Join(t.TempDir(), "a")
			if err := Run(context.Background(), m, data, opt, Shard{0, 1}, out); err != nil {
				t.Fatal(err)
			}
			if err := Merge(out); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(out, "items.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			recs, err := readRecords(bytes.NewReader(b), "items.jsonl")
			if err != nil {
				t.Fatal(err)
			}
			locked := map[string]bool{}
			for _, n := range lock.Names() {
				locked[n] = true
			}
			for _, r := range recs {
				if r.Error != "" {
					t.Fatalf("item %d: %s", r.Item, r.Error)
				}
				x0 := fromJSON(t, cols, r.Row)
				for _, re := range r.Reach {
					x := fromJSON(t, cols, re.Row)
					var changed []string
					for i, col := range cols {
						if x[i] != x0[i] {
							changed = append(changed, col.Name)
						}
						bad := ""
						switch {
						case (locked[col.Name] || col.Change == weights.ChangeNever) && x[i] != x0[i]:
							bad = "a held column changed"
						case col.Change == weights.ChangeUp && x[i] < x0[i]:
							bad = "an up-only column fell"
						case col.Change == weights.ChangeDown && x[i] > x0[i]:
							bad = "a down-only column rose"
						case col.Kind != weights.ColumnCategory && (x[i] < col.Range[0] || x[i] > col.Range[1]):
							bad = "out of range"
						case col.Kind == weights.ColumnInteger && x[i] != math.Trunc(x[i]):
							bad = "an integer not whole"
						}
						if bad != "" {
							t.Errorf("lock %q, δ %g, item %d → %s: %s: %s %v → %v", lock, delta, r.Item, re.Class, bad, col.Name, x0[i], x[i])
						}
					}
					if strings.Join(changed, ",") != strings.Join(re.Changed, ",") {
						t.Errorf("item %d → %s: changed %v, the rows differ in %v", r.Item, re.Class, re.Changed, changed)
					}
					checked++
				}
			}
		}
	}
	if checked < 200 {
		t.Errorf("only %d explanations checked", checked)
	}
	t.Logf("%d explanations checked", checked)
}

func fromJSON(t *testing.T, cols weights.Columns, raw json.RawMessage) []float64 {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	row, err := cols.FromMap(m)
	if err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return row
}

// TestLoadCSVRefusals: a CSV file that does not fit the schema is refused in one sentence naming the file, the
// line and the column.
func TestLoadCSVRefusals(t *testing.T) {
	m, path := tableFixture(t)
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(good), "\n"), "\n")
	field := func(line int, col string, v string) string { // line (0: the header) with col's value replaced
		head := strings.Split(lines[0], ",")
		out := append([]string{}, lines...)
		vals := strings.Split(out[line], ",")
		for j, h := range head {
			if h == col {
				vals[j] = v
			}
		}
		out[line] = strings.Join(vals, ",")
		return strings.Join(out, "\n") + "\n"
	}
	for _, c := range []struct{ name, text, want string }{
		{"missing column", strings.Replace(string(good), "Height", "Heights", 1), `has a column "Heights" the model does not read`},
		{"extra column", field(0, "Status", "Pets"), `has a column "Pets" the model does not read`},
		{"unknown category", field(3, "Home", "castle"), `line 4: column "Home": "castle" is not one of its levels`},
		{"out of range", field(2, "Age", "12"), `line 3: column "Age": 12 is outside its range 18 to 80 years`},
		{"not a number", field(5, "Income", "lots"), `line 6: column "Income": "lots" is not a number`},
		{"not whole", field(5, "Children", "1.5"), `line 6: column "Children": 1.5 is not a whole number`},
		{"empty", field(7, "Debt", ""), `line 8: column "Debt" has no value`},
		{"wrong count", string(good) + "1,2,3\n", `line 42: it has 3 values, its header 10`},
		{"unknown class", field(2, "Status", "maybe"), `line 3: the class "maybe" is not one of bad, good`},
		{"header only", lines[0] + "\n", "has a header but no rows"},
	} {
		p := filepath.Join(t.TempDir(), "bad.csv")
		os.WriteFile(p, []byte(c.text), 0o644)
		_, err := LoadCSV(p, m.Description(), "Status")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), p) || strings.Count(err.Error(), "\n") > 0 {
			t.Errorf("%s: %v, want one sentence naming %s and %q", c.name, err, p, c.want)
		}
	}
	if _, err := os.ReadFile(path); err != nil {
		t.Fatal(err)
	}
}

// FuzzLoadCSV: any bytes as a CSV file of rows are read or refused in a sentence naming the file, never a panic;
// what is read fits the schema.
func FuzzLoadCSV(f *testing.F) {
	cols := testbundle.TableColumns()
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write(append(cols.Names(), "Status"))
	for _, r := range testbundle.Rows(cols, 3, 1) {
		w.Write(cols.CSVRecord(r, "good"))
	}
	w.Flush()
	f.Add(buf.Bytes())
	f.Add([]byte(strings.Join(cols.Names(), ",") + "\n"))
	f.Add([]byte("Age\n1\n"))
	f.Add([]byte{0xef, 0xbb, 0xbf, '"', '\n'})
	d := &weights.Description{Input: weights.Input{Kind: weights.KindTable, Columns: cols}, Classes: []string{"bad", "good"}}
	f.Fuzz(func(t *testing.T, b []byte) {
		const path = "rows.csv"
		data, err := readCSV(b, path, d, "Status")
		if err != nil {
			if !strings.HasPrefix(err.Error(), path) {
				t.Errorf("the error does not name the file: %v", err)
			}
			return
		}
		for i, r := range data.Table.Rows {
			if err := cols.CheckRow(r); err != nil {
				t.Errorf("row %d read but out of the schema: %v", i, err)
			}
		}
	})
}

// rowAuditGolden is the SHA-256 of the five files of the seeded row audit (TestRowAuditGolden). It changes only
// when the search, the table test bundle or the files' format does: say why in the commit that changes it.
const rowAuditGolden = "1e85251deba9be8ff7372198455d18421ddb66227ca1b7ec8bc4c7493c16ba3a"

// TestRowAuditGolden: the audit of the seeded table model's 40 rows (every one above
// the threshold, with Income and Home locked) gives the same bytes every run, on every machine.
func TestRowAuditGolden(t *testing.T) {
	m, path := tableFixture(t)
	data, err := LoadCSV(path, m.Description(), "Status")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "a")
	if err := Run(context.Background(), m, data, rowOptions(), Shard{0, 1}, out); err != nil {
		t.Fatal(err)
	}
	if err := Merge(out); err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	for _, name := range rowOutputs {
		b, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		// The report names the CSV file, whose folder is the test's own: hash it without.
		h.Write(bytes.ReplaceAll(b, []byte(filepath.Dir(path)), []byte("DIR")))
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != rowAuditGolden {
		t.Errorf("the row audit's files hash to %s, want %s", got, rowAuditGolden)
	}
}
