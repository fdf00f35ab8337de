package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestExperimentCreditApplicants: the experiment on the credit models runs the δ grid on uncertain test
// applicants and reports it in the table's terms: sets.csv a line per search with validity, proximity and
// sparsity (at most the 13 features), table.csv a line per variant and δ, the three plots, and the table on
// stdout; the Distance variants use the models' λx. S6 is refused in a sentence (the models have no
// translations).
func TestExperimentCreditApplicants(t *testing.T) {
	out := t.TempDir()
	stdout, err := captured(t, func() error {
		return experiment([]string{"-models", "credit", "-digits", "3", "-deltas", "1,2", "-n", "10", "-variants", "1,3", "-out", out})
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, "On 3 uncertain test applicants: validity") || !strings.Contains(stdout, "Distance Random") {
		t.Errorf("stdout:\n%s", stdout)
	}
	sets := readCSVFile(t, filepath.Join(out, "sets.csv"))
	if len(sets) != 1+3*2*2 || sets[0][0] != "applicant" || sets[0][9] != "validity" || sets[0][11] != "sparsity" {
		t.Fatalf("sets.csv: %d lines, header %v", len(sets), sets[0])
	}
	for _, r := range sets[1:] {
		v, _ := strconv.ParseFloat(r[9], 64)
		sp, _ := strconv.ParseFloat(r[12], 64)
		if v < 0 || v > 1 || sp < 0 || sp > 13 {
			t.Errorf("validity %v, sparsity of all %v: %v", v, sp, r)
		}
		if lx := r[6]; (r[5] == "Distance Random") != (lx == "0.1") {
			t.Errorf("%s with λx %s: the Distance variants take the models' 0.1", r[5], lx)
		}
	}
	table := readCSVFile(t, filepath.Join(out, "table.csv"))
	if len(table) != 1+2*2 || table[0][6] != "validity" {
		t.Errorf("table.csv: %v", table)
	}
	for _, name := range []string{"validity.svg", "proximity.svg", "sparsity.svg", "d_best.svg"} {
		b, err := os.ReadFile(filepath.Join(out, name))
		if err != nil || len(b) < 200 {
			t.Errorf("%s: %v (%d bytes)", name, err, len(b))
		}
	}
	if b, _ := os.ReadFile(filepath.Join(out, "d_best.svg")); !strings.Contains(string(b), "row distance") {
		t.Errorf("d_best.svg does not say the row distance")
	}
	// The same grid without Sparse: every search as valid (the experiment accepts every restart and gives back
	// the changes of those sure at the models' threshold), none sparser, and some less sparse.
	plainOut := t.TempDir()
	if _, err := captured(t, func() error {
		return experiment([]string{"-models", "credit", "-digits", "3", "-deltas", "1,2", "-n", "10", "-variants", "1,3", "-sparse=false", "-out", plainOut})
	}); err != nil {
		t.Fatal(err)
	}
	plain, sparser := readCSVFile(t, filepath.Join(plainOut, "sets.csv")), 0
	for i, r := range sets[1:] {
		q := plain[i+1]
		sp, _ := strconv.ParseFloat(r[11], 64)
		pl, _ := strconv.ParseFloat(q[11], 64)
		if r[9] != q[9] || sp > pl {
			t.Errorf("with Sparse validity %s, sparsity %v; without %s, %v", r[9], sp, q[9], pl)
		}
		if sp < pl {
			sparser++
		}
	}
	if sparser == 0 {
		t.Error("no search of the grid is sparser with Sparse")
	}
	none := filepath.Join(t.TempDir(), "none")
	err = experiment([]string{"-models", "credit", "-grid", "schemes", "-digits", "2", "-out", none})
	checkRefusal(t, "experiment -models credit -grid schemes", nil, err, `the "credit" models have no translations (global.dcw), so scheme S6 cannot run: leave it out with -variants`, none)
}
