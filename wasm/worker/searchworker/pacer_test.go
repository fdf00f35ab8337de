package searchworker

import (
	"testing"
	"time"
)

// pace runs a search of the given length with the Pacer, each step taking step and each yield cost, and returns
// the share of the time the yields took and the computing time between the last two yields.
func pace(total, step, cost time.Duration) (share float64, every time.Duration) {
	var p Pacer
	now := time.Unix(1000, 0)
	var waited, computed, sinceYield time.Duration
	for computed < total {
		now, computed, sinceYield = now.Add(step), computed+step, sinceYield+step
		if p.Due(now) {
			every, sinceYield = sinceYield, 0
			start := now
			now = now.Add(cost)
			waited += cost
			p.Yielded(start, now)
		}
	}
	return float64(waited) / float64(waited+computed), every
}

// TestPacerSpacing: where yields are nearly free (a channel message, Chromium and Firefox) the Pacer yields
// every 5 ms, so a cancel waits no longer than before; where each costs the 4 ms of a clamped timer (WebKit),
// it spaces them so that they take at most about 4 % of the search, not the 44 % of a fixed 5 ms spacing;
// however slow a yield, it yields at least every 100 ms.
func TestPacerSpacing(t *testing.T) {
	for _, c := range []struct {
		name               string
		cost               time.Duration
		minEvery, maxEvery time.Duration
		maxShare           float64
	}{
		{"free", 0, 5 * time.Millisecond, 5 * time.Millisecond, 0},
		{"channel", 100 * time.Microsecond, 5 * time.Millisecond, 5 * time.Millisecond, 0.025},
		{"timer", 4 * time.Millisecond, 99 * time.Millisecond, 100 * time.Millisecond, 0.045},
		{"stalled", 300 * time.Millisecond, 100 * time.Millisecond, 100 * time.Millisecond, 1},
	} {
		share, every := pace(10*time.Second, time.Millisecond, c.cost)
		if every < c.minEvery || every > c.maxEvery {
			t.Errorf("%s yields (%v each): every %v of computing, want %v..%v", c.name, c.cost, every, c.minEvery, c.maxEvery)
		}
		if share > c.maxShare {
			t.Errorf("%s yields (%v each) took %.1f %% of the search, want at most %.1f %%", c.name, c.cost, 100*share, 100*c.maxShare)
		}
	}
}

// TestPacerRecovers: one yield that the machine's load stretches to half a second holds the spacing at
// a longer spacing for a few dozen yields at most, then it is back to 5 ms once yields are cheap again.
func TestPacerRecovers(t *testing.T) {
	var p Pacer
	now := time.Unix(1000, 0)
	p.Yielded(now, now.Add(500*time.Millisecond))
	if p.Every() != MaxYieldEvery {
		t.Fatalf("after a 500 ms yield: every %v, want %v", p.Every(), MaxYieldEvery)
	}
	n := 0
	for ; p.Every() > MinYieldEvery && n < 100; n++ {
		p.Yielded(now, now.Add(100*time.Microsecond))
	}
	if n > 25 {
		t.Fatalf("%d cheap yields to come back to every %v, want at most 25", n, MinYieldEvery)
	}
	end := now.Add(100 * time.Microsecond) // the last yield's end
	if !p.Due(end.Add(MinYieldEvery)) || p.Due(end.Add(MinYieldEvery-time.Microsecond)) {
		t.Fatalf("due %v after the last yield: %v; want due from %v on, not before", MinYieldEvery, p.Due(end.Add(MinYieldEvery)), MinYieldEvery)
	}
}
