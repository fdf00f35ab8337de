// Package budget bounds the costly stages of a long command (deltaclue import) by time. A stage does its items
// in an order whose every prefix is spread over them (Order), measures its own cost per item on the first ones
// (one worker's time, summed over the items done), and takes another item only while what is left of its
// share holds it at that rate (Fit): what it does is a prefix of the order, and without a budget, everything.
// While it runs it says how far it has come, with the time left, every ten seconds or so (Stage.Run).
package budget

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/bits"
	"sync"
	"time"
)

// Fit is how many of total items a stage does, when done of them are finished at perItem each (one worker's
// time, on average) and left is what remains of its share, workers at a time: done, and as many more as left
// holds at that rate, at least floor (or total, if fewer) and at most total. Before any is done (perItem 0),
// nothing is known: total.
func Fit(total, floor, done, workers int, perItem, left time.Duration) int {
	if done <= 0 || perItem <= 0 {
		return total
	}
	more := 0
	if left > 0 {
		more = int(math.Min(float64(left)*float64(max(workers, 1))/float64(perItem), float64(total)))
	}
	return min(total, max(done+more, min(floor, total)))
}

// Order is 0..n-1 in an order whose every prefix is spread over the range: the k-th is ⌊r·n/2^b⌋ for r the
// bit-reversed k over b bits (2^b ≥ n), each value at its first coming. The first 2^j are evenly spaced, so a
// stage cut short has done items from all over a list sorted by class.
func Order(n int) []int {
	if n <= 0 {
		return nil
	}
	b := bits.Len(uint(n - 1))
	if b == 0 {
		return []int{0}
	}
	out := make([]int, 0, n)
	seen := make([]bool, n)
	for i := 0; i < 1<<b; i++ {
		r := int(bits.Reverse(uint(i)) >> (bits.UintSize - b))
		if v := r * n >> b; !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// Stage is one costly stage under a budget.
type Stage struct {
	Name    string        // how its lines start: "translations"
	Unit    string        // what its items are, plural: "uncertain training images"
	Total   int           // the items it does without a budget
	Floor   int           // it does at least this many (or Total, if fewer), whatever the budget
	Chunk   int           // items a worker takes at once (1 when 0)
	Workers int           // chunks at once (1 when 0)
	Budget  time.Duration // its share of the time; 0: no bound
	Log     io.Writer     // progress lines; nil for none
	Every   time.Duration // the time between two progress lines (10 s when 0)
	Now     func() time.Time
	// From items were done before, in Spent (one worker's time over them): Run goes on from there, at their rate.
	From  int
	Spent time.Duration
}

// Report is what a stage did.
type Report struct {
	Done    int           // items done: the first Done of the order
	Elapsed time.Duration // the stage's time
	PerItem time.Duration // one worker's time an item, on average
}

// Cut says whether the budget left items out.
func (r Report) Cut(s Stage) bool { return r.Done < s.Total }

// Need is the time the stage would take for all its items at the rate measured (its workers at once).
func (r Report) Need(s Stage) time.Duration {
	return time.Duration(float64(r.PerItem) * float64(s.Total) / float64(max(s.Workers, 1)))
}

// Run does the stage's items 0, 1, … (positions in whatever order the caller chose) with do, a chunk of
// positions [from, to) at a time, Workers at once, each taken only while Fit says the share holds it; it
// prints a progress line every Every. It returns what it did, the first error of do, or ctx's.
func (s Stage) Run(ctx context.Context, do func(from, to int) error) (Report, error) {
	now := s.Now
	if now == nil {
		now = time.Now
	}
	chunk, workers := max(s.Chunk, 1), max(s.Workers, 1)
	start := now()
	var (
		mu          sync.Mutex
		taken, done = s.From, s.From
		spent       = s.Spent // one worker's time over the items done
		firstErr    error
		finished    = make(chan struct{})
		wg          sync.WaitGroup
		limitAt     = s.Total
		rate        = func() time.Duration { return spent / time.Duration(max(done, 1)) }
		limit       = func() int {
			if s.Budget <= 0 || done == 0 {
				return s.Total
			}
			return Fit(s.Total, s.Floor, done, workers, rate(), s.Budget-now().Sub(start))
		}
	)
	if s.Log != nil && s.Total > 0 {
		every := s.Every
		if every <= 0 {
			every = 10 * time.Second
		}
		tick := time.NewTicker(every)
		defer tick.Stop()
		go func() {
			for {
				select {
				case <-finished:
					return
				case <-tick.C:
					mu.Lock()
					line := Line(s.Name, s.Unit, done, limitAt, s.Total, workers, rate(), now().Sub(start))
					mu.Unlock()
					fmt.Fprintln(s.Log, line)
				}
			}
		}()
	}
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				limitAt = limit()
				from := taken
				to := min(from+chunk, limitAt)
				stop := from >= to || firstErr != nil || ctx.Err() != nil
				if !stop {
					taken = to
				}
				mu.Unlock()
				if stop {
					return
				}
				t0 := now()
				err := do(from, to)
				took := now().Sub(t0)
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				done += to - from
				spent += took
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(finished)
	r := Report{Done: done, Elapsed: now().Sub(start), PerItem: rate()}
	if firstErr != nil {
		return r, firstErr
	}
	return r, ctx.Err()
}

// Line is a progress line: "anchors: 800 of 2000 training images, about 40 s left"; when the budget holds
// only limit of its total items, "translations: 12 of 100 uncertain training images (about 30 within the
// budget), about 1 min 10 s left". Before an item is done, the time left is not known.
func Line(name, unit string, done, limit, total, workers int, perItem, elapsed time.Duration) string {
	of := fmt.Sprintf("%d of %d %s", done, total, unit)
	if limit < total {
		of += fmt.Sprintf(" (about %d within the budget)", limit)
	}
	if done == 0 || perItem <= 0 {
		return fmt.Sprintf("%s: %s, the first under way (%s)", name, of, Seconds(elapsed))
	}
	left := time.Duration(float64(perItem) * float64(max(limit-done, 0)) / float64(max(workers, 1)))
	return fmt.Sprintf("%s: %s, about %s left", name, of, Seconds(left))
}

// Seconds writes a duration for people: "40 s", "3 min 10 s", "1 h 5 min".
func Seconds(d time.Duration) string {
	s := int(d.Round(time.Second) / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%d s", s)
	case s < 3600 && s%60 == 0:
		return fmt.Sprintf("%d min", s/60)
	case s < 3600:
		return fmt.Sprintf("%d min %d s", s/60, s%60)
	}
	return fmt.Sprintf("%d h %d min", s/3600, (s%3600)/60)
}

// Suggest is a budget, rounded up to a whole minute (five above ten minutes), that gives a stage the time need
// when it started after elapsed of the command and its share was share of the left of the budget then.
func Suggest(elapsed time.Duration, fraction float64, need time.Duration) time.Duration {
	if fraction <= 0 {
		fraction = 1
	}
	d := elapsed + time.Duration(float64(need)/fraction)
	m := (d + time.Minute - 1) / time.Minute
	if m > 10 {
		m = (m + 4) / 5 * 5
	}
	return m * time.Minute
}

// Flag writes a budget as a -budget flag's value: "30m", "1h30m".
func Flag(d time.Duration) string {
	s := d.Round(time.Minute).String() // "30m0s", "1h30m0s"
	if len(s) > 2 && s[len(s)-2:] == "0s" {
		s = s[:len(s)-2]
	}
	if len(s) > 3 && s[len(s)-3:] == "h0m" {
		s = s[:len(s)-2]
	}
	return s
}
