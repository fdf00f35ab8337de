package budget

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestFit: the items a stage does, for a cost per item and what is left of its share: all of them without a
// measure or when they fit, else those done and what the rest holds at that rate, workers at a time, never
// below the floor nor above the total.
func TestFit(t *testing.T) {
	s := time.Second
	for _, c := range []struct {
		total, floor, done, workers int
		perItem, left               time.Duration
		want                        int
	}{
		{100, 0, 0, 2, 0, 10 * s, 100},      // nothing measured yet
		{100, 0, 2, 2, 6 * s, 300 * s, 100}, // 2 + 100 fit: all
		{100, 0, 2, 2, 6 * s, 60 * s, 22},   // 2 + 60·2/6
		{100, 0, 2, 1, 6 * s, 60 * s, 12},   // one worker: 2 + 10
		{100, 30, 2, 2, 6 * s, 60 * s, 30},  // the floor
		{20, 30, 2, 2, 6 * s, 0, 20},        // a floor above the total is the total
		{100, 0, 40, 2, 6 * s, -5 * s, 40},  // overrun: what is done
		{996, 0, 2, 2, 12 * s, 170 * s, 30}, // 2 + ⌊170·2/12⌋ = 2 + 28
		{400, 64, 64, 2, 20 * time.Millisecond, 30 * s, 400},
	} {
		if got := Fit(c.total, c.floor, c.done, c.workers, c.perItem, c.left); got != c.want {
			t.Errorf("Fit(%d, floor %d, done %d, %d workers, %s an item, %s left) = %d, want %d", c.total, c.floor, c.done, c.workers, c.perItem, c.left, got, c.want)
		}
	}
}

// TestOrder: every n gets a permutation of 0..n-1, and a prefix of 2^k holds one item of every run of n/2^k.
func TestOrder(t *testing.T) {
	for n := 0; n <= 70; n++ {
		o := Order(n)
		sorted := slices.Sorted(slices.Values(o))
		if len(o) != n {
			t.Fatalf("Order(%d) has %d items", n, len(o))
		}
		for i, v := range sorted {
			if v != i {
				t.Fatalf("Order(%d) is no permutation: %v", n, o)
			}
		}
	}
	if got := Order(8); !slices.Equal(got, []int{0, 4, 2, 6, 1, 5, 3, 7}) {
		t.Errorf("Order(8) = %v", got)
	}
	// 400 items sorted by class, 100 a class: the first 16 hold four of each.
	perClass := make([]int, 4)
	for _, i := range Order(400)[:16] {
		perClass[i/100]++
	}
	if !slices.Equal(perClass, []int{4, 4, 4, 4}) {
		t.Errorf("the first 16 of Order(400) by class of 100: %v", perClass)
	}
}

// fakeClock is a clock that moves only when told.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// TestRunCutsToTheBudget: on a fake clock, a stage of items of 3 s each with a share of 30 s does the first
// ten (a prefix of the order), in chunks; without a share, all; a floor is done whatever the share; an error
// stops it.
func TestRunCutsToTheBudget(t *testing.T) {
	run := func(s Stage, cost time.Duration) (Report, []int, error) {
		clock := &fakeClock{now: time.Unix(0, 0)}
		s.Now = clock.Now
		var mu sync.Mutex
		var did []int
		r, err := s.Run(context.Background(), func(from, to int) error {
			for i := from; i < to; i++ {
				clock.add(cost)
				mu.Lock()
				did = append(did, i)
				mu.Unlock()
			}
			return nil
		})
		return r, did, err
	}
	r, did, err := run(Stage{Total: 100, Budget: 30 * time.Second}, 3*time.Second)
	if err != nil || r.Done != 10 || !slices.Equal(did, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}) || r.PerItem != 3*time.Second {
		t.Errorf("a 30 s share at 3 s an item: %+v, did %v, %v", r, did, err)
	}
	if !r.Cut(Stage{Total: 100}) || r.Need(Stage{Total: 100}) != 300*time.Second {
		t.Errorf("the cut %v, the need %s", r.Cut(Stage{Total: 100}), r.Need(Stage{Total: 100}))
	}
	if r, _, _ := run(Stage{Total: 100, Budget: 30 * time.Second, Chunk: 4}, 3*time.Second); r.Done != 10 {
		t.Errorf("in chunks of 4: %d done, want 10 (the last chunk cut to the budget)", r.Done)
	}
	if r, _, _ := run(Stage{Total: 100}, 3*time.Second); r.Done != 100 {
		t.Errorf("no share: %d done", r.Done)
	}
	if r, _, _ := run(Stage{Total: 100, Budget: 30 * time.Second, Floor: 25}, 3*time.Second); r.Done != 25 {
		t.Errorf("a floor of 25: %d done", r.Done)
	}
	if r, _, _ := run(Stage{Total: 100, Budget: 30 * time.Second, From: 4, Spent: 12 * time.Second}, 3*time.Second); r.Done != 14 {
		t.Errorf("going on from 4 items done: %d done, want 4 + 10", r.Done)
	}
	s := Stage{Total: 5, Now: time.Now}
	if _, err := s.Run(context.Background(), func(from, to int) error {
		if from == 2 {
			return context.Canceled
		}
		return nil
	}); err != context.Canceled {
		t.Errorf("an error: %v", err)
	}
}

// TestLines: the progress line, the durations for people, and a budget suggested as a flag's value.
func TestLines(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Line("anchors", "training images", 800, 2000, 2000, 2, 100*time.Millisecond, 8*time.Second), "anchors: 800 of 2000 training images, about 1 min left"},
		{Line("translations", "uncertain training images", 12, 30, 100, 2, 12*time.Second, time.Minute), "translations: 12 of 100 uncertain training images (about 30 within the budget), about 1 min 48 s left"},
		{Line("global", "uncertain test images", 0, 50, 50, 2, 0, 7*time.Second), "global: 0 of 50 uncertain test images, the first under way (7 s)"},
		{Seconds(40 * time.Second), "40 s"},
		{Seconds(3*time.Minute + 10*time.Second), "3 min 10 s"},
		{Seconds(65 * time.Minute), "1 h 5 min"},
		{Flag(Suggest(3*time.Minute, 0.5, 10*time.Minute)), "25m"},       // 3 + 20 → 23 → 25
		{Flag(Suggest(time.Minute, 1, 5*time.Minute+time.Second)), "7m"}, // 6:01 → 7
		{Flag(Suggest(10*time.Minute, 0.25, time.Hour)), "4h10m"},
		{Flag(time.Hour), "1h"},
	} {
		if c.got != c.want {
			t.Errorf("%q, want %q", c.got, c.want)
		}
	}
}
