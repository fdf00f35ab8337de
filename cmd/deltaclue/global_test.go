package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGlobalSmall runs `deltaclue global` on the first 10 uncertain test digits, twice with different numbers of
// workers: the table and the figure are the same bytes, the report's totals agree with its cases, and the
// figure is a chart with a panel per group of 5+ members.
func TestGlobalSmall(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	if err := global([]string{"-digits", "10", "-workers", "1", "-out", a}); err != nil {
		t.Fatal(err)
	}
	if err := global([]string{"-digits", "10", "-workers", "2", "-out", b}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"groups.csv", "coverage.svg"} {
		x, err1 := os.ReadFile(filepath.Join(a, name))
		y, err2 := os.ReadFile(filepath.Join(b, name))
		if err1 != nil || err2 != nil || !bytes.Equal(x, y) {
			t.Errorf("%s differs between 1 and 2 workers (%v, %v)", name, err1, err2)
		}
	}
	raw, err := os.ReadFile(filepath.Join(a, "groups.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep globalReport
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	members, sure := 0, 0
	for _, c := range rep.Cases {
		if c.Member {
			members++
			if c.Sure {
				sure++
			}
		}
	}
	if members == 0 || rep.Totals.Cases != members || rep.Totals.Coverage != float64(sure)/float64(members) {
		t.Errorf("totals %+v, but the cases have %d members of which %d sure", rep.Totals, members, sure)
	}
	if rep.Uncertain < 100 || len(rep.Groups) < 20 {
		t.Errorf("%d uncertain test digits, %d groups: want the shipped models' 154 and 56", rep.Uncertain, len(rep.Groups))
	}
	f, _ := os.Open(filepath.Join(a, "groups.csv"))
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) != 1+len(rep.Groups) || rows[0][0] != "from" {
		t.Errorf("groups.csv: %d rows (%v), want a header and %d groups", len(rows), err, len(rep.Groups))
	}
	svg, _ := os.ReadFile(filepath.Join(a, "coverage.svg"))
	panels := 0
	for _, g := range rep.Groups {
		if g.Members >= 5 {
			panels++
		}
	}
	if got := strings.Count(string(svg), `class="group"`); !strings.HasPrefix(string(svg), "<svg") || got != panels {
		t.Errorf("coverage.svg has %d panels, want %d (groups with 5+ members)", got, panels)
	}
}

// TestGlobalSummary: the totals' sentence gives the answers' mean d only when some are sure.
func TestGlobalSummary(t *testing.T) {
	none := globalSummary(56, "3 uncertain test digits", globalTotals{Cases: 2, MeanSearchDistance: 26.98, MeanSearchRho: 1.5, AnswerMs: 2, SearchMs: 900})
	if strings.Contains(none, "d 0.0") || !strings.Contains(none, "coverage 0 % (δ-CLUE: 100 %), none made sure, so no mean d (δ-CLUE's 27.0, ρ 1.50);") {
		t.Errorf("no case sure: %s", none)
	}
	some := globalSummary(56, "3 uncertain test digits", globalTotals{Cases: 2, Coverage: 0.5, MeanDistance: 41.3, MeanShift: 1.2, MeanSearchDistance: 26.98, MeanSearchRho: 1.5})
	if !strings.Contains(some, "coverage 50 % (δ-CLUE: 100 %), mean d 41.3 against δ-CLUE's 27.0, ‖k·t‖ 1.20 against ρ 1.50;") {
		t.Errorf("half sure: %s", some)
	}
}
