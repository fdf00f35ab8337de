package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/deltaclue/deltaclue/engine/clue/kind"
	"github.com/deltaclue/deltaclue/engine/clue/sharelink"
	"github.com/deltaclue/deltaclue/internal/audit"
	"github.com/deltaclue/deltaclue/internal/credit"
	"github.com/deltaclue/deltaclue/weights"
)

// The audit of a model of rows on the shipped credit models: like explain's tests of rows, these hold
// properties of the results, not their numbers (internal/audit's golden is on a seeded model of rows).

// auditRecords reads an audit's items.jsonl.
func auditRecords(t *testing.T, out string) []audit.Record {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(out, "items.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var recs []audit.Record
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r audit.Record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	return recs
}

// creditRow decodes a record's row with the credit schema (FromMap refuses a value out of range, a fraction in
// an integer, an unknown level).
func creditRow(t *testing.T, raw json.RawMessage) []float64 {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	row, err := credit.Columns().FromMap(m)
	if err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return row
}

// TestAuditCreditTestSplit: the audit of the credit test split's 60 least sure applicants with Age and Marital
// locked: every explanation recorded keeps the locks, decodes with the schema (in range, integers whole) and
// names the columns it changes; two shards merge to one process's bytes; stdout and the summary say which
// features the cheapest sure explanations change, by class; the shards' one search at a time (-workers 1) gives
// the bytes of two at a time.
func TestAuditCreditTestSplit(t *testing.T) {
	dir := t.TempDir()
	args := []string{"-models", "credit", "-data", "test", "-top", "60", "-n", "20", "-lock", "Age,Marital", "-workers", "2"}
	one := filepath.Join(dir, "one")
	stdout, err := captured(t, func() error { return auditCmd(append(args, "-out", one)) })
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, "features.csv") || !strings.Contains(stdout, "the cheapest sure explanation of") || !strings.Contains(stdout, "read as good") {
		t.Errorf("stdout does not say the features:\n%s", stdout)
	}
	cols := credit.Columns()
	age, marital := cols.Index("Age"), cols.Index("Marital")
	recs := auditRecords(t, one)
	if len(recs) != 60 {
		t.Fatalf("%d records, want 60", len(recs))
	}
	checked := 0
	for _, r := range recs {
		if r.Error != "" {
			t.Fatalf("test applicant %d: %s", r.Item, r.Error)
		}
		x0 := creditRow(t, r.Row)
		want := creditApplicant(t, r.Item)
		for i := range want {
			if x0[i] != want[i] {
				t.Fatalf("test applicant %d's row is not the test split's: %v", r.Item, x0)
			}
		}
		for _, re := range r.Reach {
			x := creditRow(t, re.Row)
			if x[age] != x0[age] || x[marital] != x0[marital] {
				t.Errorf("applicant %d → %s: a locked column changed (Age %v → %v, Marital %v → %v)", r.Item, re.Class, x0[age], x[age], x0[marital], x[marital])
			}
			var changed []string
			for i, col := range cols {
				if x[i] != x0[i] {
					changed = append(changed, col.Name)
				}
				if col.Kind == weights.ColumnInteger && x[i] != math.Trunc(x[i]) {
					t.Errorf("applicant %d → %s: %s %v is not whole", r.Item, re.Class, col.Name, x[i])
				}
			}
			if strings.Join(changed, ",") != strings.Join(re.Changed, ",") {
				t.Errorf("applicant %d → %s: changed %v, the rows differ in %v", r.Item, re.Class, re.Changed, changed)
			}
			checked++
		}
	}
	if checked < 50 {
		t.Errorf("only %d explanations recorded", checked)
	}
	var s audit.Summary
	b, _ := os.ReadFile(filepath.Join(one, "summary.json"))
	if err := json.Unmarshal(b, &s); err != nil || s.Features == nil || s.Features.All.Columns[age].Changed != 0 {
		t.Errorf("summary.json's features (Age locked): %v %+v", err, s.Features)
	}
	two := filepath.Join(dir, "two")
	for _, shard := range []string{"1/2", "0/2"} {
		sargs := append(append([]string(nil), args[:len(args)-2]...), "-workers", "1", "-out", two, "-shard", shard)
		if _, err := captured(t, func() error { return auditCmd(sargs) }); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := captured(t, func() error { return auditCmd([]string{"merge", two}) }); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"items.jsonl", "summary.json", "summary.csv", "report.html", "features.csv"} {
		a, errA := os.ReadFile(filepath.Join(one, name))
		b, errB := os.ReadFile(filepath.Join(two, name))
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			t.Errorf("%s: two shards merged differ from one process (%v, %v)", name, errA, errB)
		}
	}
}

// TestAuditCreditCSV: a CSV file of applicants (with Status, columns in another order) is audited as the same
// rows of the test split are, its records named by the file's lines; a file that does not fit the schema is
// refused in one sentence naming the line and the column, and nothing is written.
func TestAuditCreditCSV(t *testing.T) {
	dir := t.TempDir()
	cols := credit.Columns()
	apps, err := credit.Test()
	if err != nil {
		t.Fatal(err)
	}
	names := cols.Names()
	order := append([]string{credit.LabelColumn}, names[len(names)-1:]...) // Status and Price first
	order = append(order, names[:len(names)-1]...)
	var b strings.Builder
	b.WriteString(strings.Join(order, ",") + "\n")
	for _, a := range apps[:40] {
		rec := cols.CSVRecord(a.Row, "")
		b.WriteString(strings.Join(append([]string{[]string{"bad", "good"}[a.Status], rec[len(rec)-1]}, rec[:len(rec)-1]...), ",") + "\n")
	}
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(text), 0o644)
		return p
	}
	good := file("applicants.csv", b.String())
	out := filepath.Join(dir, "csv")
	if _, err := captured(t, func() error {
		return auditCmd([]string{"-models", "credit", "-data", good, "-n", "10", "-out", out})
	}); err != nil {
		t.Fatal(err)
	}
	recs := auditRecords(t, out)
	if len(recs) == 0 {
		t.Fatal("no applicant audited")
	}
	for _, r := range recs {
		if want := good + " line " + itoa(r.Item+2); r.File != want || r.True != apps[r.Item].Status {
			t.Errorf("record %d: file %q, true label %d; want %q, %d", r.Item, r.File, r.True, want, apps[r.Item].Status)
		}
	}
	text := b.String()
	lines := strings.Split(text, "\n")
	edit := func(line int, from, to string) string {
		l := append([]string{}, lines...)
		if !strings.Contains(l[line], from) {
			t.Fatalf("line %d %q has no %q", line+1, l[line], from)
		}
		l[line] = strings.Replace(l[line], from, to, 1)
		return strings.Join(l, "\n")
	}
	// Applicant 0: Home owner, Age 46, Income 200 (TestExplainRowRefusals' edits).
	for _, c := range []struct{ name, text, want string }{
		{"missing.csv", strings.Replace(text, ",Seniority,", ",Senority,", 1), `has a column "Senority" the model does not read: its columns are Seniority, Home,`},
		{"extra.csv", strings.Replace(text, "Status,", "Status,Pets,", 1), `has a column "Pets" the model does not read`},
		{"castle.csv", edit(1, "owner", "castle"), `line 2: column "Home": "castle" is not one of its levels, ignore, other, owner, parents, priv, rent`},
		{"young.csv", edit(1, ",46,", ",17,"), `line 2: column "Age": 17 is outside its range 18 to 68 years`},
		{"lots.csv", edit(1, ",200,", ",lots,"), `line 2: column "Income": "lots" is not a number`},
		{"short.csv", text + "good,1,2\n", "line 42: it has 3 values, its header 14"},
		{"status.csv", edit(3, "good", "great"), `line 4: the class "great" is not one of bad, good`},
	} {
		p := file(c.name, c.text)
		bad := filepath.Join(dir, "bad-out")
		err := auditCmd([]string{"-models", "credit", "-data", p, "-out", bad})
		checkRefusal(t, "audit -models credit", []string{"-data", c.name}, err, "audit: "+p, bad)
		checkRefusal(t, "audit -models credit", []string{"-data", c.name}, err, c.want, bad)
	}
	// With -site every audited row links into the explainer's page for rows: its row exactly, the audit's locks.
	linked := filepath.Join(dir, "z")
	if _, err := captured(t, func() error {
		return auditCmd([]string{"-models", "credit", "-data", good, "-n", "4", "-lock", "Age", "-site", "https://example.org/deltaclue/?models=credit", "-out", linked})
	}); err != nil {
		t.Fatal(err)
	}
	links := 0
	for _, r := range auditRecords(t, linked) {
		if r.Error != "" || r.Row == nil {
			continue
		}
		site, frag, ok := strings.Cut(r.Link, "#")
		s, err := sharelink.Decode(frag)
		if !ok || site != "https://example.org/deltaclue/?models=credit" || err != nil || s.Models != "credit" || s.Params.Lock != "Age" || s.Params.N != 4 {
			t.Fatalf("item %d's link %q: %v, %+v", r.Item, r.Link, err, s.Params)
		}
		row := creditRow(t, r.Row)
		x, err := cols.Standardise(row)
		if err != nil {
			t.Fatal(err)
		}
		if got := (kind.Table{Columns: cols}).Carried(s.Image); !slices.Equal(got, x) {
			t.Fatalf("item %d's link carries %v, its row %v", r.Item, got, x)
		}
		links++
	}
	if links == 0 {
		t.Error("no audited row has a link")
	}
	err = auditCmd([]string{"-models", "credit", "-data", good, "-scheme", "S6", "-out", filepath.Join(dir, "s6")})
	checkRefusal(t, "audit", []string{"-scheme", "S6"}, err, `-scheme S6 starts from GLAM-CLUE's translations, and the "credit" models have none (global.dcw): give another -scheme`, filepath.Join(dir, "s6"))
	// A lock on a column that is not there, and a lock on images.
	err = auditCmd([]string{"-models", "credit", "-data", good, "-lock", "Pets", "-out", filepath.Join(dir, "x")})
	checkRefusal(t, "audit", []string{"-lock", "Pets"}, err, `there is no column "Pets" to lock`, filepath.Join(dir, "x"))
	err = auditCmd([]string{"-data", "test", "-lock", "Age", "-out", filepath.Join(dir, "y")})
	checkRefusal(t, "audit", []string{"-lock", "Age"}, err, "the models read images, which have no columns to lock", filepath.Join(dir, "y"))
}

func itoa(i int) string { return strconv.Itoa(i) }

// BenchmarkAuditCreditTestSplit is issue 41's target, an audit of the whole credit test split (every applicant
// above the threshold, the models' defaults) on 2 cores in a minute at most: one op is the whole audit, from
// reading the rows to the merged files (go test -run '^$' -bench AuditCredit -benchtime 3x ./cmd/deltaclue).
func BenchmarkAuditCreditTestSplit(b *testing.B) {
	dir := b.TempDir()
	saved := os.Stdout
	os.Stdout, _ = os.Open(os.DevNull)
	defer func() { os.Stdout = saved }()
	for i := 0; b.Loop(); i++ {
		out := filepath.Join(dir, strconv.Itoa(i))
		if err := auditCmd([]string{"-models", "credit", "-data", "test", "-workers", "2", "-out", out}); err != nil {
			b.Fatal(err)
		}
	}
}
