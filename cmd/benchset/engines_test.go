//go:build !js

package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestPrintEngines: the table puts the engines side by side with their ratio to the first, and says whether the
// runs gave the same bits.
func TestPrintEngines(t *testing.T) {
	samples := []EngineSample{
		{Engine: "Chrome 1", Config: cLink, Run: 1, ElapsedMs: 2000, ReadyMs: 3000, SetHash: "aaa"},
		{Engine: "Chrome 1", Config: cWarm, Run: 1, ElapsedMs: 1000, SetHash: "aaa"},
		{Engine: "Firefox 2", Config: cLink, Run: 1, ElapsedMs: 1000, ReadyMs: 1500, SetHash: "aaa"},
		{Engine: "Firefox 2", Config: cWarm, Run: 1, ElapsedMs: 500, SetHash: "aaa", Restarted: 1},
		{Engine: "WebKitGTK 3", Config: cLink, Run: 1, Error: "timeout"},
	}
	var b bytes.Buffer
	printEngines(&b, samples, "Chrome 1", 1)
	out := b.String()
	for _, want := range []string{"Chrome 1", "Firefox 2", "WebKitGTK 3", "2000 [2000–2000]", "1000 [1000–1000] (×0.50)",
		"1500 [1500–1500] (×0.50)", "n/a 1 failed", "the same set, bit for bit", "replaced 1 worker they",
		"workers replaced (runs' median)"} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}
	samples[3].SetHash = "bbb"
	b.Reset()
	printEngines(&b, samples, "Chrome 1", 1)
	if !strings.Contains(b.String(), "THE SETS DIFFER") || !strings.Contains(b.String(), "bbb: Firefox 2, warm rerun") {
		t.Errorf("different bits are not reported:\n%s", b.String())
	}
	if got := countRuns([]string{"a", "b", "a"}); got != "a ×2; b" {
		t.Errorf("countRuns: %q", got)
	}
	if engineErrors(samples) == "" {
		t.Error("a failed run is not an error")
	}
}
