package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/internal/credit"
	"github.com/deltaclue/deltaclue/weights"
)

// The tests of explain on a model of rows run on the shipped credit models, whose VAE is retrained from time to
// time: they hold properties of the results, never their numbers.

// rowReport is explain.json of a row as a reader decodes it: the rows as {column: value}.
type rowReport struct {
	Row          map[string]any `json:"row"`
	Input        string         `json:"input"`
	Params       clue.Params    `json:"params"`
	X0           []float32      `json:"x0"`
	Label        int            `json:"label"`
	Summary      clue.Summary   `json:"summary"`
	Explanations []struct {
		clue.Explanation
		Row map[string]any `json:"row"`
	} `json:"explanations"`
}

// readRowReport reads explain.json from out.
func readRowReport(t *testing.T, out string) rowReport {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(out, "explain.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep rowReport
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	return rep
}

// captured runs f with os.Stdout written to a file, and returns what it wrote.
func captured(t *testing.T, f func() error) (string, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "stdout")
	file, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stdout
	os.Stdout = file
	err = f()
	os.Stdout = saved
	file.Close()
	b, _ := os.ReadFile(path)
	return string(b), err
}

// creditApplicant is the committed test split's applicant i in natural units.
func creditApplicant(t *testing.T, i int) []float64 {
	t.Helper()
	apps, err := credit.Test()
	if err != nil {
		t.Fatal(err)
	}
	return apps[i].Row
}

// TestExplainCreditApplicant: explain on a credit applicant writes explain.json whose input row and every
// explanation's row decode with the schema (every value in range, integers whole, categories among their
// levels), each explanation's row is its flattened row read back, keeps the locked columns bit for bit and the
// change rules (Age not down), and names its changed columns; set.csv has one line per restart with the
// columns by name; stdout says the set in words, never changing a locked column; grid.png and summary.png are
// left out.
func TestExplainCreditApplicant(t *testing.T) {
	const index = 12
	cols := credit.Columns()
	row0 := creditApplicant(t, index)
	for _, lock := range [][]string{{"Age", "Marital"}, {"Marital", "Records"}} {
		out := t.TempDir()
		stdout, err := captured(t, func() error {
			return explain([]string{"-models", "credit", "-index", "12", "-lock", strings.Join(lock, ","), "-n", "40", "-max-steps", "60", "-out", out})
		})
		if err != nil {
			t.Fatal(err)
		}
		rep := readRowReport(t, out)
		if got, err := cols.FromMap(rep.Row); err != nil || !slices.Equal(got, row0) {
			t.Fatalf("lock %v: explain.json's row %v (%v), want applicant %d's %v", lock, rep.Row, err, index, row0)
		}
		if !slices.Equal(rep.Params.Lock.Names(), lock) || len(rep.Explanations) != 40 || rep.Summary.Restarts != 40 {
			t.Fatalf("lock %v: params' lock %v, %d explanations", lock, rep.Params.Lock.Names(), len(rep.Explanations))
		}
		x0, _ := cols.Standardise(row0)
		if !slices.Equal(rep.X0, x0) {
			t.Errorf("lock %v: x0 is not the applicant's flattened row", lock)
		}
		off := cols.Offsets()
		for _, e := range rep.Explanations {
			if e.Failed != "" {
				if e.Row != nil {
					t.Errorf("restart %d failed and has a row", e.Restart)
				}
				continue
			}
			row, err := cols.FromMap(e.Row)
			if err != nil {
				t.Fatalf("lock %v, restart %d: its row does not decode with the schema: %v", lock, e.Restart, err)
			}
			back, _ := cols.Unstandardise(e.Image)
			if !slices.Equal(row, back) {
				t.Errorf("restart %d: its row %v is not its flattened row read back, %v", e.Restart, row, back)
			}
			var changed []string
			for i, col := range cols {
				if row[i] != row0[i] {
					changed = append(changed, col.Name)
				}
				if col.Kind == weights.ColumnInteger && row[i] != math.Trunc(row[i]) {
					t.Errorf("restart %d: %s = %v is not whole", e.Restart, col.Name, row[i])
				}
				if col.Change == weights.ChangeUp && row[i] < row0[i] {
					t.Errorf("restart %d: %s went down, %v → %v", e.Restart, col.Name, row0[i], row[i])
				}
				if slices.Contains(lock, col.Name) {
					for j := off[i]; j < off[i+1]; j++ {
						if math.Float32bits(e.Image[j]) != math.Float32bits(x0[j]) {
							t.Errorf("restart %d: locked %s's flattened value %d is %v, the input's %v", e.Restart, col.Name, j, e.Image[j], x0[j])
						}
					}
				}
			}
			if !slices.Equal(changed, e.Changed) {
				t.Errorf("restart %d: changed %v, its row differs in %v", e.Restart, e.Changed, changed)
			}
		}

		// set.csv: the explanations in restart order, the columns by name as the rows hold them.
		recs := readCSVFile(t, filepath.Join(out, "set.csv"))
		head := recs[0]
		if len(recs) != 41 || !slices.Equal(head[len(head)-len(cols):], cols.Names()) {
			t.Fatalf("set.csv: %d lines, header %v", len(recs), head)
		}
		at := func(name string) int { return slices.Index(head, name) }
		for k, rec := range recs[1:] {
			e := rep.Explanations[k]
			if rec[at("restart")] != strconv.Itoa(e.Restart) || rec[at("changed")] != strconv.Itoa(len(e.Changed)) || rec[at("class")] != credit.Classes[e.Label] ||
				rec[at("changed_columns")] != strings.Join(e.Changed, ",") {
				t.Errorf("set.csv line %d: %v, for restart %d (changed %v)", k+2, rec, e.Restart, e.Changed)
			}
			for i, col := range cols {
				if want := e.Row[col.Name]; e.Failed == "" && rec[at(col.Name)] != col.Format(asValue(t, cols, i, want)) {
					t.Errorf("set.csv line %d: %s = %q, explain.json %v", k+2, col.Name, rec[at(col.Name)], want)
				}
			}
		}

		// stdout: the set in words, which change no locked column.
		if !strings.Contains(stdout, "The model is") || !strings.Contains(stdout, "grid.png and summary.png are left out") {
			t.Errorf("stdout:\n%s", stdout)
		}
		for _, name := range lock {
			for _, verb := range []string{" rose from", " fell from", " were ", " → "} {
				if strings.Contains(stdout, "\n"+name+verb) || strings.Contains(stdout, " "+name+verb) {
					t.Errorf("stdout changes locked %s:\n%s", name, stdout)
				}
			}
		}
		for _, name := range []string{"grid.png", "summary.png"} {
			if _, err := os.Stat(filepath.Join(out, name)); err == nil {
				t.Errorf("%s was written for a row", name)
			}
		}
		for _, name := range []string{"labels.png", "latent.svg"} {
			if _, err := os.Stat(filepath.Join(out, name)); err != nil {
				t.Error(err)
			}
		}
		svg, _ := os.ReadFile(filepath.Join(out, "tradeoff.svg"))
		checkXML(t, "tradeoff.svg", svg)
	}
}

// asValue is a {column: value} entry as column i's value in natural units.
func asValue(t *testing.T, cols weights.Columns, i int, v any) float64 {
	t.Helper()
	if s, ok := v.(string); ok {
		return float64(cols[i].Level(s))
	}
	f, ok := v.(float64)
	if !ok {
		t.Fatalf("column %s: %v is neither a level nor a number", cols[i].Name, v)
	}
	return f
}

// TestExplainRowSources: -row and a line of a CSV file (its columns in another order, with Status) give the same
// explanations, set.csv and figures as -index for the same applicant.
func TestExplainRowSources(t *testing.T) {
	const index = 5
	cols := credit.Columns()
	apps, err := credit.Test()
	if err != nil {
		t.Fatal(err)
	}
	// A CSV file of applicants 4, 5 and 6, the columns reversed: applicant 5 is its line 2.
	names := append(cols.Names(), credit.LabelColumn)
	slices.Reverse(names)
	var b bytes.Buffer
	b.WriteString(strings.Join(names, ",") + "\n")
	for _, a := range apps[index-1 : index+2] {
		rec := cols.CSVRecord(a.Row, credit.Classes[a.Status])
		slices.Reverse(rec)
		b.WriteString(strings.Join(rec, ",") + "\n")
	}
	path := filepath.Join(t.TempDir(), "applicants.csv")
	os.WriteFile(path, b.Bytes(), 0o644)

	run := func(args ...string) (rowReport, map[string][]byte) {
		out := t.TempDir()
		args = append([]string{"-models", "credit", "-n", "16", "-max-steps", "30", "-lock", "Marital", "-out", out}, args...)
		if _, err := captured(t, func() error { return explain(args) }); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		files := map[string][]byte{}
		for _, name := range []string{"set.csv", "tradeoff.svg", "latent.svg", "labels.png"} {
			files[name], _ = os.ReadFile(filepath.Join(out, name))
		}
		return readRowReport(t, out), files
	}
	want, wantFiles := run("-index", "5")
	for _, args := range [][]string{{"-row", cols.FormatRow(apps[index].Row)}, {"-csv", path, "-line", "2"}} {
		got, files := run(args...)
		if !reflect.DeepEqual(got.Row, want.Row) || !reflect.DeepEqual(got.X0, want.X0) || !reflect.DeepEqual(got.Summary, want.Summary) {
			t.Errorf("%v: another input than -index %d's", args, index)
		}
		if !reflect.DeepEqual(got.Explanations, want.Explanations) {
			t.Errorf("%v: other explanations than -index %d's", args, index)
		}
		if !reflect.DeepEqual(files, wantFiles) {
			t.Errorf("%v: other files than -index %d's", args, index)
		}
	}
	if got, _ := run("-csv", path, "-line", "2"); !strings.Contains(got.Input, "(true label "+credit.Classes[apps[index].Status]+")") {
		t.Errorf("the CSV line's input %q does not say its Status", got.Input)
	}
}

// TestExplainRowRefusals: bad input for a model of rows is said in one sentence, and nothing is written.
func TestExplainRowRefusals(t *testing.T) {
	dir := t.TempDir()
	cols := credit.Columns()
	row := cols.FormatRow(creditApplicant(t, 0))
	header := strings.Join(cols.Names(), ",")
	record := strings.Join(cols.CSVRecord(creditApplicant(t, 0), ""), ",")
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(text), 0o644)
		return p
	}
	good := file("good.csv", header+"\n"+record+"\n"+record+"\n")
	missing := file("missing.csv", strings.Join(cols.Names()[1:], ",")+"\n"+strings.Join(cols.CSVRecord(creditApplicant(t, 0), "")[1:], ",")+"\n")
	extra := file("extra.csv", header+",Pets\n"+record+",2\n")
	castle := file("castle.csv", header+"\n"+record+"\n"+strings.Replace(record, "owner", "castle", 1)+"\n")
	young := file("young.csv", header+"\n"+strings.Replace(record, ",46,", ",17,", 1)+"\n")
	lots := file("lots.csv", header+"\n"+strings.Replace(record, ",200,", ",lots,", 1)+"\n")
	short := file("short.csv", header+"\n"+record[:strings.LastIndex(record, ",")]+"\n")
	empty := file("empty.csv", "")
	if !strings.Contains(record, "owner") || !strings.Contains(record, ",46,") || !strings.Contains(record, ",200,") {
		t.Fatalf("applicant 0 is %s: the test's edits need its Home owner, Age 46 and Income 200", record)
	}
	credit := []string{"-models", "credit"}
	out := filepath.Join(dir, "out")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-csv", missing, "-line", "1"}, missing + ` has no column "Seniority"`},
		{[]string{"-csv", extra, "-line", "1"}, extra + ` has a column "Pets" the model does not read: its columns are Seniority, Home,`},
		{[]string{"-csv", castle, "-line", "2"}, castle + `, applicant 2 (line 3): column "Home": "castle" is not one of its levels, ignore, other, owner, parents, priv, rent`},
		{[]string{"-csv", young, "-line", "1"}, `column "Age": 17 is outside its range 18 to 68 years`},
		{[]string{"-csv", lots, "-line", "1"}, `column "Income": "lots" is not a number`},
		{[]string{"-csv", short, "-line", "1"}, "it has 12 values, its header 13"},
		{[]string{"-csv", good, "-line", "3"}, "-line 3: " + good + " has 2 applicants (lines 1..2 after its header)"},
		{[]string{"-csv", good, "-line", "-1"}, "-line -1: the CSV file's lines of data are counted from 1"},
		{[]string{"-csv", good}, good + " has 2 applicants: say which with -line K (1..2)"},
		{[]string{"-csv", empty}, empty + " is empty"},
		{[]string{"-csv", filepath.Join(dir, "none.csv"), "-line", "1"}, "no such file"},
		{[]string{"-row", strings.Replace(row, "Home=owner", "Home=castle", 1)}, `-row: column "Home": "castle" is not one of its levels, ignore, other, owner, parents, priv, rent`},
		{[]string{"-row", strings.Replace(row, "Age=46", "Age=17", 1)}, `-row: column "Age": 17 is outside its range 18 to 68 years`},
		{[]string{"-row", strings.Replace(row, "Age=46", "Age=46.5", 1)}, `-row: column "Age": 46.5 is not a whole number`},
		{[]string{"-row", strings.Replace(row, ",Price=", ",Pets=2,Price=", 1)}, `-row: there is no column "Pets"`},
		{[]string{"-row", "Seniority=9"}, `-row: column "Home" is missing`},
		{[]string{"-index", "0", "-lock", "Age,Pets"}, `-lock Age,Pets: there is no column "Pets" to lock: the columns are Seniority, Home,`},
		{[]string{"-index", "0", "-lock", "Age,Age"}, `-lock Age,Age: column "Age" is locked twice`},
		{[]string{"-index", "805"}, `-index 805: the "credit" models' test items are 0..804`},
		{[]string{"-index", "0", "-row", row}, "give one of -index, -row and -csv"},
		{[]string{"-line", "2", "-index", "0"}, "-line 2: give the CSV file it is a line of with -csv FILE"},
		{[]string{"-png", "x.png"}, `-png: the "credit" models read rows (applicants), not images: give -index N, -row or -csv FILE -line K`},
		{[]string{"-digit", "3"}, `-digit 3: -digit is a test digit of the shipped digits, and these are the "credit" models: give -index 3`},
		{[]string{}, "say what to explain: -index N (a test applicant), -row 'Column=value,…' (every column) or -csv FILE -line K"},
	} {
		err := explain(append(append(append([]string(nil), credit...), c.args...), "-out", out))
		checkRefusal(t, "explain -models credit", c.args, err, c.want, out)
	}
	// A row, a CSV file or a lock for models of images.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-row", row}, `-row: the "digits" models read images, not rows: give -digit N (a test digit), -png FILE or -link LINK`},
		{[]string{"-csv", good, "-line", "1"}, `-csv: the "digits" models read images, not rows`},
		{[]string{"-models", "fashion", "-row", row}, `-row: the "fashion" models read images, not rows: give -index N (a test`},
		{[]string{"-digit", "3", "-lock", "Age"}, "-lock Age: the models read images, which have no columns to lock"},
	} {
		checkRefusal(t, "explain", c.args, explain(append(c.args, "-out", out)), c.want, out)
	}
}

// checkRefusal fails unless err is one sentence holding want and nothing was written in out.
func checkRefusal(t *testing.T, cmd string, args []string, err error, want, out string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s %v: no error", cmd, args)
		return
	}
	msg := err.Error()
	if !strings.Contains(msg, want) || strings.Contains(msg, "\n") || goPrefix.MatchString(msg) {
		t.Errorf("%s %v: %q, want one sentence saying %q", cmd, args, msg, want)
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatalf("%s %v wrote %s", cmd, args, out)
	}
}

// TestSweepCreditApplicant: sweep on a credit applicant (given by -row) writes sweep.json with the input's row
// and every explanation's row, at every radius and in every reach, decoding with the schema and keeping the
// lock; a refusal of explain's is a refusal of sweep's.
func TestSweepCreditApplicant(t *testing.T) {
	cols := credit.Columns()
	row0 := creditApplicant(t, 12)
	out := t.TempDir()
	stdout, err := captured(t, func() error {
		return sweep([]string{"-models", "credit", "-row", cols.FormatRow(row0), "-lock", "Age", "-radii", "0.5,2", "-n-per-radius", "10", "-max-steps", "30", "-out", out})
	})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(out, "sweep.json"))
	if err != nil {
		t.Fatal(err)
	}
	type explanation struct {
		clue.Explanation
		Row map[string]any `json:"row"`
	}
	var rep struct {
		Row   map[string]any `json:"row"`
		Steps []struct {
			Delta        float64       `json:"delta"`
			Explanations []explanation `json:"explanations"`
		} `json:"steps"`
		Reaches []struct {
			Label       int         `json:"label"`
			Explanation explanation `json:"explanation"`
		} `json:"reaches"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if got, err := cols.FromMap(rep.Row); err != nil || !slices.Equal(got, row0) {
		t.Fatalf("sweep.json's row %v (%v), want %v", rep.Row, err, row0)
	}
	age := cols.Index("Age")
	check := func(where string, e explanation) {
		if e.Failed != "" {
			return
		}
		row, err := cols.FromMap(e.Row)
		if back, _ := cols.Unstandardise(e.Image); err != nil || !slices.Equal(row, back) || row[age] != row0[age] {
			t.Errorf("%s: row %v (%v), its flattened row read back %v, Age %v locked at %v", where, e.Row, err, back, row[age], row0[age])
		}
	}
	if len(rep.Steps) != 2 {
		t.Fatalf("%d steps", len(rep.Steps))
	}
	for _, st := range rep.Steps {
		if len(st.Explanations) != 10 {
			t.Fatalf("δ = %g: %d explanations", st.Delta, len(st.Explanations))
		}
		for _, e := range st.Explanations {
			check("δ = "+strconv.FormatFloat(st.Delta, 'g', -1, 64)+", restart "+strconv.Itoa(e.Restart), e)
		}
	}
	for _, r := range rep.Reaches {
		check("the reach of "+credit.Classes[r.Label], r.Explanation)
		if !strings.Contains(stdout, "  "+credit.Classes[r.Label]+" at δ = ") {
			t.Errorf("stdout does not say how %s is reached:\n%s", credit.Classes[r.Label], stdout)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad")
	checkRefusal(t, "sweep", nil, sweep([]string{"-models", "credit", "-index", "0", "-lock", "Pets", "-out", bad}), `-lock Pets: there is no column "Pets"`, bad)
	checkRefusal(t, "sweep", nil, sweep([]string{"-row", cols.FormatRow(row0), "-out", bad}), `-row: the "digits" models read images, not rows`, bad)
}
