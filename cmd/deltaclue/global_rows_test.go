package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltaclue/deltaclue/internal/credit"
)

// TestGlobalCreditGroups: global on the credit models groups the first 40 uncertain test applicants by the label
// read and the labels their δ-CLUE reaches, each group with the features its members' cheapest explanations
// change (a locked column never), says in a sentence why there are no translations, and writes the same bytes
// whatever the workers; a lock on images is refused.
func TestGlobalCreditGroups(t *testing.T) {
	dir := t.TempDir()
	run := func(out string, workers string) string {
		stdout, err := captured(t, func() error {
			return global([]string{"-models", "credit", "-digits", "40", "-lock", "Age", "-workers", workers, "-out", out})
		})
		if err != nil {
			t.Fatal(err)
		}
		return stdout
	}
	one, two := filepath.Join(dir, "one"), filepath.Join(dir, "two")
	stdout := run(one, "1")
	run(two, "2")
	if !strings.Contains(stdout, `The "credit" models have no GLAM-CLUE translations (global.dcw), so there are no amortised answers nor cost–coverage curves`) ||
		!strings.Contains(stdout, "read as good → sure of good") {
		t.Errorf("stdout:\n%s", stdout)
	}
	for _, name := range []string{"groups.json", "groups.csv"} {
		a, errA := os.ReadFile(filepath.Join(one, name))
		b, errB := os.ReadFile(filepath.Join(two, name))
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs with 1 and 2 workers (%v, %v)", name, errA, errB)
		}
	}
	b, _ := os.ReadFile(filepath.Join(one, "groups.json"))
	var rep rowGroupsReport
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Searched != 40 || len(rep.Groups) == 0 || len(rep.Rows) != 40 || !strings.Contains(rep.Note, "no GLAM-CLUE translations") {
		t.Fatalf("groups.json: %d searched, %d groups, %d rows", rep.Searched, len(rep.Groups), len(rep.Rows))
	}
	age := credit.Columns().Index("Age")
	members := 0
	for _, g := range rep.Groups {
		members += len(g.Members)
		if g.Features.Explanations != len(g.Members) || g.Features.Columns[age].Changed != 0 || g.MinD > g.MeanD {
			t.Errorf("group %s → %s: %d members, %d explanations tallied, Age changed %d times, d %v..%v", g.FromClass, g.ToClass, len(g.Members),
				g.Features.Explanations, g.Features.Columns[age].Changed, g.MinD, g.MeanD)
		}
	}
	reached := 0
	for _, r := range rep.Rows {
		reached += len(r.Reached)
		for _, re := range r.Reached {
			x := creditRow(t, re.Row)
			if x[age] != creditApplicant(t, r.Index)[age] {
				t.Errorf("applicant %d → %d: Age changed", r.Index, re.Label)
			}
		}
	}
	if members != reached || 40-rep.Unreached > reached {
		t.Errorf("%d members in the groups, %d labels reached, %d applicants unreached", members, reached, rep.Unreached)
	}
	none := filepath.Join(dir, "none")
	err := global([]string{"-lock", "Age", "-out", none})
	checkRefusal(t, "global", []string{"-lock", "Age"}, err, `-lock Age: the "digits" models read images, which have no columns to lock`, none)
}
