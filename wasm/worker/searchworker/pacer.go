package searchworker

import "time"

// The bounds of Pacer's spacing between yields.
const (
	// MinYieldEvery is the shortest spacing: where a yield is nearly free, cancelling a search still waits at
	// most this long for the step in progress.
	MinYieldEvery = 5 * time.Millisecond
	// MaxYieldEvery is the longest spacing, however slow the yields: a cancel never waits longer than this.
	MaxYieldEvery = 100 * time.Millisecond
	// yieldShare is how many times a yield's cost a search computes between two yields: yields take at most
	// 1/(1+yieldShare), 4 %, of a search that is not held at MaxYieldEvery.
	yieldShare = 25
)

// Pacer spaces a search's yields by what they cost. A yield lets the worker's event loop run (a cancel can
// only arrive then), but the worker computes nothing while it waits, and what it waits for differs by engine:
// about 0.1 ms in Chromium and Firefox, 4 ms in WebKit, where it ends on a zero-delay timer (web/worker.js).
// A fixed spacing of 5 ms made WebKit wait almost half of a search; the Pacer keeps it at MinYieldEvery where
// yields are cheap and stretches it up to MaxYieldEvery where they are not.
//
// The zero Pacer yields at the first Due and starts from free yields. It is not safe for concurrent use.
type Pacer struct {
	last time.Time     // when the last yield ended
	cost time.Duration // what recent yields took, smoothed
}

// Every is the spacing now: yieldShare times the recent yields' cost, within [MinYieldEvery, MaxYieldEvery].
func (p *Pacer) Every() time.Duration {
	return min(max(yieldShare*p.cost, MinYieldEvery), MaxYieldEvery)
}

// Due reports whether a yield is due at now: Every has passed since the last one ended.
func (p *Pacer) Due(now time.Time) bool {
	return now.Sub(p.last) >= p.Every()
}

// Yielded records a yield that started at start and ended at end. The cost is smoothed over about four yields,
// so that one yield that the machine's load stretched does not stretch the spacing for long.
func (p *Pacer) Yielded(start, end time.Time) {
	c := max(end.Sub(start), 0)
	p.cost += (c - p.cost) / 4
	p.last = end
}
