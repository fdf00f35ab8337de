package app

import (
	"strings"
	"testing"

	"github.com/deltaclue/deltaclue/app/core"
	"github.com/deltaclue/deltaclue/engine/clue"
)

// TestGridLabelsSitByTheirImage: a cell's texts are nearer its own image than the next row's or column's.
func TestGridLabelsSitByTheirImage(t *testing.T) {
	imageBottom := imageTop + cells().imgH
	ownGap := (cells().distBase - gridAscent) - imageBottom                                // the distance's top under its image
	nextGap := (cells().cellH + labelBase - gridAscent) - (cells().distBase + gridDescent) // its bottom over the next row's label
	if ownGap < 1 || nextGap < 3*ownGap {
		t.Errorf("distance label %d px under its image and %d px over the next row's label", ownGap, nextGap)
	}
	labelGap := imageTop - labelBase // the label's baseline over its image
	if above := labelBase - gridAscent + (cells().cellH - cells().distBase - gridDescent); above < 3*labelGap {
		t.Errorf("label %d px over its image and %d px under the previous row's distance", labelGap, above)
	}
	if gap := 2 * gridPadX; gap < 12 {
		t.Errorf("only %d px between neighbouring cells' images and texts", gap)
	}
}

func TestStatusCountsInWords(t *testing.T) {
	one := make([]clue.Explanation, 1)
	for _, c := range []struct {
		e    Explainer
		want string
	}{
		{Explainer{work: core.Pool{Run: core.Run{Phase: core.Done, Workers: 1, Results: make([]clue.Explanation, 100), Total: 100}}}, " on 1 worker."},
		{Explainer{work: core.Pool{Run: core.Run{Phase: core.Done, Workers: 2, Results: one, Total: 1}}}, "Done: 1 explanation in "},
		{Explainer{work: core.Pool{Run: core.Run{Phase: core.Running, Results: one, Total: 1}}}, "1 of 1 explanation"},
		{Explainer{work: core.Pool{Run: core.Run{Phase: core.Cancelled, Results: one, Total: 2}}}, "with 1 of 2 explanations."},
		{Explainer{settings: core.Settings{OK: true}, workers: searchWorkers{pool: &pool{}}}, "0 of 0 workers ready."},
		{Explainer{}, "Starting the search workers …"}, // before the pool: the pre-rendered page, the models' download
	} {
		if got := c.e.status(); !strings.Contains(got, c.want) {
			t.Errorf("state %q: %q, want it to say %q", c.e.work.Run.Phase, got, c.want)
		}
	}
}
