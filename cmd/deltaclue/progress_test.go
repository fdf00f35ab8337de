package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestProgressInALog: written anywhere but a terminal, the progress is one plain line at each tenth of the
// work (however many updates come, whatever the total), never a carriage return.
func TestProgressInALog(t *testing.T) {
	for _, c := range []struct {
		total int
		want  []string // each line's start
	}{
		{100, []string{"10 %: 10 of 100", "20 %: 20 of 100", "30 %: 30 of 100", "40 %: 40 of 100", "50 %: 50 of 100",
			"60 %: 60 of 100", "70 %: 70 of 100", "80 %: 80 of 100", "90 %: 90 of 100", "100 %: 100 of 100"}},
		{4, []string{"25 %: 1 of 4", "50 %: 2 of 4", "75 %: 3 of 4", "100 %: 4 of 4"}},
		{25, []string{"12 %: 3 of 25", "20 %: 5 of 25", "32 %: 8 of 25", "40 %: 10 of 25", "52 %: 13 of 25",
			"60 %: 15 of 25", "72 %: 18 of 25", "80 %: 20 of 25", "92 %: 23 of 25", "100 %: 25 of 25"}},
	} {
		var b bytes.Buffer
		p := newProgress(&b, c.total, "restarts")
		for done := 1; done <= c.total; done++ {
			p.update(done)
		}
		p.finish()
		out := b.String()
		if strings.Contains(out, "\r") {
			t.Errorf("total %d: a carriage return in %q", c.total, out)
		}
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(lines) != len(c.want) {
			t.Fatalf("total %d: %d lines, want %d:\n%s", c.total, len(lines), len(c.want), out)
		}
		for i, l := range lines {
			if !strings.HasPrefix(l, c.want[i]) || !strings.Contains(l, "restarts done") {
				t.Errorf("total %d, line %d: %q, want it to start %q", c.total, i+1, l, c.want[i])
			}
		}
	}
}

// TestExplainLogsProgressInLines: `deltaclue explain` with stderr going to a file (a CI log) writes ten progress
// lines and no carriage return.
func TestExplainLogsProgressInLines(t *testing.T) {
	dir := t.TempDir()
	log, err := os.Create(filepath.Join(dir, "stderr.log"))
	if err != nil {
		t.Fatal(err)
	}
	if isTerminal(log) {
		t.Fatal("a file taken for a terminal")
	}
	saved := os.Stderr
	os.Stderr = log
	err = explain([]string{"-digit", "1735", "-n", "20", "-max-steps", "20", "-out", filepath.Join(dir, "out")})
	os.Stderr = saved
	log.Close()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(log.Name())
	if bytes.Contains(b, []byte("\r")) {
		t.Errorf("a carriage return in the log:\n%q", b)
	}
	lines := regexp.MustCompile(`(?m)^\d+ %: \d+ of 20 restarts done`).FindAll(b, -1)
	if len(lines) != 10 {
		t.Errorf("%d progress lines, want 10:\n%s", len(lines), b)
	}
}

// TestProgressOnATerminal: on a terminal the line is redrawn in place and ended once.
func TestProgressOnATerminal(t *testing.T) {
	var b bytes.Buffer
	p := newProgress(&b, 3, "radii")
	p.tty = true // as isTerminal says for a terminal
	for done := 1; done <= 3; done++ {
		p.update(done)
	}
	p.finish()
	if out := b.String(); strings.Count(out, "\r") != 3 || !strings.HasSuffix(out, "\n") || strings.Count(out, "\n") != 1 ||
		!strings.Contains(out, "[########################################] 3/3 radii") {
		t.Errorf("on a terminal: %q", out)
	}
}
