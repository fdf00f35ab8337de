package core

import "time"

// PreviewDebounce is how long after the pen lifts a live preview starts: a stroke that follows sooner replaces
// it.
const PreviewDebounce = 60 * time.Millisecond

// PreviewDue is the end of an edit's debounce (a stroke's, whose pen lifted): the preview of edit Seq, which
// ended at EditedAt.
type PreviewDue struct {
	Seq      int
	EditedAt time.Time
}

func (PreviewDue) isEvent() {}

// Edited schedules a live preview for an edit of the input (a stroke) that ended at now; an earlier one still
// waiting is dropped.
func (p *Pool) Edited(now time.Time) []Command {
	p.previewSeq++
	return []Command{After{PreviewDebounce, PreviewDue{p.previewSeq, now}}}
}

// HoldPreviews drops a preview still waiting for its debounce: a full set has started, or a link opened, and
// must not be replaced by it.
func (p *Pool) HoldPreviews() { p.previewSeq++ }

// PreviewMayStart says whether the preview of ev may start: no later stroke came, and no full set runs (a
// preview replaces a preview, never a full set).
func (p *Pool) PreviewMayStart(ev PreviewDue) bool {
	return ev.Seq == p.previewSeq && !(p.Run.Active() && !p.Run.Preview)
}
