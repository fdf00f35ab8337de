package core

import (
	"testing"
	"time"
)

func previewDue(t *testing.T, cmds []Command) PreviewDue {
	t.Helper()
	a, ok := cmds[0].(After)
	if len(cmds) != 1 || !ok || a.Delay != PreviewDebounce {
		t.Fatalf("%v", cmds)
	}
	return a.Event.(PreviewDue)
}

func TestALaterStrokeReplacesAWaitingPreview(t *testing.T) {
	p := readyPool(t, 1)
	first := previewDue(t, p.Edited(t0))
	second := previewDue(t, p.Edited(at(30*time.Millisecond)))
	if p.PreviewMayStart(first) || !p.PreviewMayStart(second) || second.EditedAt != at(30*time.Millisecond) {
		t.Fatal("the earlier stroke's preview may start, or the later's may not")
	}
}

func TestAPreviewNeverReplacesAFullSet(t *testing.T) {
	p := readyPool(t, 1)
	due := previewDue(t, p.Edited(t0))
	p.HoldPreviews()
	p.Start(x0, params(100), false, t0)
	if p.PreviewMayStart(due) {
		t.Fatal("a held preview may start")
	}
	later := previewDue(t, p.Edited(at(time.Second)))
	if p.PreviewMayStart(later) {
		t.Fatal("a preview may replace the full set under way")
	}
	p.Start(x0, params(24), true, at(time.Second))
	if next := previewDue(t, p.Edited(at(2*time.Second))); !p.PreviewMayStart(next) {
		t.Fatal("a preview may not replace a preview")
	}
}
