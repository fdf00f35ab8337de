package main

import (
	"testing"

	"github.com/deltaclue/deltaclue/app/sharelink"
	"github.com/deltaclue/deltaclue/weights"
)

// TestAnchorsOnlyNamesTheShippedModels: the earlier model set whose links still open differs from the shipped
// one only in its anchors, and maps to the shipped fingerprint.
func TestAnchorsOnlyNamesTheShippedModels(t *testing.T) {
	fp, err := weights.ShippedFingerprint()
	if err != nil {
		t.Fatal(err)
	}
	if len(sharelink.AnchorsOnly) == 0 {
		t.Fatal("no earlier model set")
	}
	for earlier, later := range sharelink.AnchorsOnly {
		if later != fp || earlier == fp {
			t.Errorf("AnchorsOnly maps %08x to %08x; the shipped models are %08x", earlier, later, fp)
		}
	}
}
