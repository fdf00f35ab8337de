// Package searchdefaults measures a model's own defaults for the δ-CLUE search (weights.SearchDefaults), which
// `deltaclue import` stores in the model's description: the digits' (clue.Defaults: δ 2, λx 0.03, a threshold of
// 0.3 nats) were chosen for their 16-dimensional latent space and ten classes, and on another model the inputs it
// is least sure of may reach no sure explanation with them.
//
// The rule (docs/your-model.md says it too). The items are the K test items the classifier is least sure of
// (highest H_total; Options.Items). An item reaches a sure explanation at a setting (δ, λx, threshold t) when it
// is not sure at t itself (its H_total is at least t) and one of the n restarts of a δ-CLUE search (scheme S1,
// every other parameter the digits' default) is accepted with H_total < t. A setting works when more than half
// of the items reach one.
//
//  1. The digits' defaults are searched first, on every item. If they work, they are kept: nothing is stored.
//     (If the model is sure at 0.3 nats of most of even these items, nothing is searched, and they are kept.)
//  2. Otherwise the cheapest setting of the grid that works is stored: the smallest threshold, then the smallest
//     δ, then the largest λx, in that priority. The threshold comes first because it is what "sure" means: a
//     larger δ or a smaller λx only searches further from the input for the same sureness, where a larger
//     threshold accepts less sure answers (on the PyTorch example's ten classes, δ first chose δ 1 at 1.15
//     nats, a top probability near 0.6, over the digits' δ and threshold with a larger δ). The grid: δ over
//     {1, 2, 3, 4, 6}·s, where s = max(1,
//     √(latent/16)) (a latent space of more dimensions than the digits' is wider); λx over {0.03, 0.01, 0.003,
//     0}·r, where r = min(1, 784/values) (the distance is summed over the input's values: on a larger input the
//     same λx weighs it more); the threshold over {0.3, ln C/3, ln C/2} (those from 0.3; C the classes, ln C the
//     entropy of an even guess). A threshold costs no search (it only judges the results), so each (δ, λx) is
//     one search an item, and one whose majority is out of reach stops early.
//  3. If no setting works, the most generous (the largest δ, λx 0, at the threshold where it reaches the most,
//     the smallest of those) is stored if it reaches more items than the digits' defaults, and said so; if it
//     does not, the digits' are kept.
//
// The grid is searched coarse to fine, so that a budget cut leaves an answer: first its coarsest level (δ 2s,
// 4s, 6s; λx the largest and 0), cheapest first, to the first setting that works; then every δ, then every λx,
// each only where it is cheaper than the best found. Unbounded, that is exactly the rule's choice. The budget
// (Options.Budget): a probe of a few steps estimates a search, the items shrink until the digits' defaults and
// the coarsest level fit, and a deadline stops the finer levels; Result.Lines says what was left out.
package searchdefaults

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/internal/dataset"
	"github.com/deltaclue/deltaclue/internal/plural"
	"github.com/deltaclue/deltaclue/weights"
)

// Options bound the measurement; zero values take the defaults.
type Options struct {
	Items    int           // the K test items the model is least sure of, searched at every setting (default 24)
	Restarts int           // restarts n of each search (default 24)
	Pool     int           // the least sure are picked among at most this many test items, evenly spaced (default 2000)
	Budget   time.Duration // the measurement's time at most; 0: unbounded
	Workers  int           // searches at once (default: the machine's cores)
	// Searched, when not nil, is called after each search, with the searches done so far (for progress lines).
	Searched func(done int)
}

// Defaults of Options.
const (
	DefaultItems    = 24
	DefaultRestarts = 24
	DefaultPool     = 2000
	// MinItems is the fewest items the budget shrinks the search to before it thins the grid; FloorItems the
	// fewest it searches at all.
	MinItems   = 12
	FloorItems = 4
)

// Setting is a point of the grid: a search's δ and λx, and the threshold its results are judged at (nats).
type Setting struct {
	Delta, LambdaX, HThreshold float64
}

func (s Setting) String() string {
	return fmt.Sprintf("δ %g, λx %g, %g nats", s.Delta, s.LambdaX, s.HThreshold)
}

// Digits is the digits' setting, clue.Defaults().
func Digits() Setting {
	p := clue.Defaults()
	return Setting{p.Delta, p.LambdaX, p.HThreshold}
}

// Result is what the measurement found and chose.
type Result struct {
	// Search is what the description stores: nil keeps the digits' defaults.
	Search *weights.SearchDefaults
	Chosen Setting // the defaults the models get: Search's, or the digits'
	// Reached counts the items that reach a sure explanation at Chosen (when it was measured: else −1), and
	// Digits those at the digits' defaults (−1: not measured), each of Items.
	Reached, Digits, Items int
	Majority               bool     // Chosen works: more than half of the items reach a sure explanation
	Tried                  int      // the (δ, λx) searched, the digits' included
	LeftOut                []string // what the budget left out, in words
	Note                   string   // why nothing was measured, or why the digits' were kept though they do not work
	Seconds                float64  // the measurement's time
	PerSearch              float64  // seconds a search took on average (wall time over the searches at once)
	Restarts, Pool, Tests  int      // n; the test items the least sure were picked among, of Tests
	Noun                   string   // what one input is called
	// Picked are the test items searched, least sure first (the first Items of them; more were picked when the
	// budget shrank the items).
	Picked []int
}

// Lines says in a few lines what was measured and chosen, and why.
func (r *Result) Lines() []string {
	nouns := plural.Word(2, r.Noun)
	among := ""
	if r.Pool < r.Tests {
		among = fmt.Sprintf(", picked among %d of its %d", r.Pool, r.Tests)
	}
	lines := []string{fmt.Sprintf("search defaults: δ-CLUE (S1, n = %d) on the %d test %s the model is least sure of%s", r.Restarts, r.Items, nouns, among)}
	digits := Digits()
	switch {
	case r.Digits < 0:
		lines = append(lines, fmt.Sprintf("  kept the digits' %s: %s", digits, r.Note))
	case r.Search == nil && r.Majority:
		lines = append(lines, fmt.Sprintf("  the digits' %s: %d of %d reach a sure explanation: kept (%.1fs)", digits, r.Digits, r.Items, r.Seconds))
	case r.Search == nil:
		lines = append(lines, fmt.Sprintf("  the digits' %s: %d of %d reach a sure explanation", digits, r.Digits, r.Items),
			fmt.Sprintf("  kept them: %s (%s of δ and λx searched, %.1fs)", r.Note, plural.Count(r.Tried, "setting"), r.Seconds))
	default:
		why := "the cheapest setting searched where more than half do: the smallest threshold, then the smallest δ, then the largest λx"
		if !r.Majority {
			why = "no setting searched reaches more than half: the most generous, which reaches more than the digits'"
		}
		lines = append(lines, fmt.Sprintf("  defaults: %s: %d of %d reach a sure explanation (with the digits' %s: %d of %d)", r.Chosen, r.Reached, r.Items, digits, r.Digits, r.Items),
			fmt.Sprintf("  %s (%s of δ and λx searched, %.1fs)", why, plural.Count(r.Tried, "setting"), r.Seconds))
	}
	if len(r.LeftOut) > 0 {
		lines = append(lines, fmt.Sprintf("  left out for time (about %.2gs a search): %s", r.PerSearch, strings.Join(r.LeftOut, "; ")))
	}
	return lines
}

// Grid is the measurement's grid for a model of the given latent size, input values and classes: δ ascending,
// λx descending, thresholds ascending (the package's rule).
func Grid(latent, values, classes int) (deltas, lambdas, thresholds []float64) {
	s := math.Max(1, math.Sqrt(float64(latent)/16))
	for _, d := range []float64{1, 2, 3, 4, 6} {
		deltas = append(deltas, math.Min(round(d*s, 2), clue.MaxDelta))
	}
	r := math.Min(1, 784/float64(values))
	for _, l := range []float64{0.03, 0.01, 0.003} {
		lambdas = append(lambdas, round(l*r, 2))
	}
	lambdas = append(lambdas, 0)
	top := math.Log(float64(classes))
	thresholds = []float64{Digits().HThreshold}
	for _, t := range []float64{top / 3, top / 2} {
		if t := round(t, 3); t > thresholds[0] && t <= top {
			thresholds = append(thresholds, t)
		}
	}
	return slices.Compact(deltas), slices.Compact(lambdas), slices.Compact(thresholds)
}

// round rounds v to digits significant digits.
func round(v float64, digits int) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', digits, 64), 64)
	return r
}

// cell is one (δ, λx) searched: for each item searched whole, its own H_total (h0) and the least H_total of its
// accepted explanations (minH, at the grid's largest threshold; +Inf when none is).
type cell struct {
	delta, lambda float64
	h0, minH      []float64
	stopped       bool // a majority was out of reach: the other items were not searched
}

// reached counts the items that reach a sure explanation at threshold t: one below t, from an input the model
// is not sure of at t (H_total ≥ t; of an input it is already sure of, nothing is explained).
func (c *cell) reached(t float64) int {
	n := 0
	for i, h := range c.minH {
		if h < t && c.h0[i] >= t {
			n++
		}
	}
	return n
}

// measurer runs searches on the items.
type measurer struct {
	problems []*clue.Problem
	restarts int
	top      float64 // the largest threshold: what the searches accept at
	workers  int
	searched func(done int) // told after each search
	searches int            // done so far
}

// params are the search's parameters at (δ, λx).
func (m *measurer) params(delta, lambda float64) clue.Params {
	p := clue.Defaults()
	p.N, p.Delta, p.LambdaX, p.HThreshold = m.restarts, delta, lambda, m.top
	return p
}

// search searches the first k items at (δ, λx), W at once. With mayStop, it stops once more than half of the
// k cannot reach a sure explanation at any threshold (none below the largest). It returns ctx's error if ctx
// ends first.
func (m *measurer) search(ctx context.Context, delta, lambda float64, k int, mayStop bool) (*cell, error) {
	c := &cell{delta: delta, lambda: lambda}
	p := m.params(delta, lambda)
	cellCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex
	next, done, reachedTop := 0, 0, 0
	var firstErr error
	var wg sync.WaitGroup
	for range min(m.workers, k) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				stop := i >= k || c.stopped || firstErr != nil
				mu.Unlock()
				if stop {
					return
				}
				exps, err := clue.Search(cellCtx, m.problems[i], p, nil, nil)
				h := math.Inf(1)
				for _, e := range exps {
					if e.Accepted {
						h = math.Min(h, float64(e.HTotal))
					}
				}
				mu.Lock()
				switch {
				case c.stopped:
				case err != nil:
					if firstErr == nil {
						firstErr = err
					}
				default:
					c.h0, c.minH = append(c.h0, float64(m.problems[i].Pred0.Total)), append(c.minH, h)
					done++
					if m.searches++; m.searched != nil {
						m.searched(m.searches)
					}
					if h < m.top {
						reachedTop++
					}
					if mayStop && reachedTop+(k-done) <= k/2 {
						c.stopped = true
						cancel()
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if c.stopped {
		return c, nil
	}
	if firstErr != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, firstErr
	}
	return c, nil
}

// Measure measures the defaults of the bundle's models on their test items, by the package's rule, within
// opt's bounds.
func Measure(ctx context.Context, b *weights.Bundle, test dataset.Items, opt Options) (*Result, error) {
	start := time.Now()
	if opt.Items <= 0 {
		opt.Items = DefaultItems
	}
	if opt.Restarts <= 0 {
		opt.Restarts = DefaultRestarts
	}
	if opt.Pool <= 0 {
		opt.Pool = DefaultPool
	}
	if opt.Workers <= 0 {
		opt.Workers = runtime.NumCPU()
	}
	d := b.Description
	r := &Result{Chosen: Digits(), Reached: -1, Digits: -1, Restarts: opt.Restarts, Noun: d.Input.Noun}
	if test == nil || test.Len() == 0 {
		r.Note = "the models have no test items to measure them on"
		return r, nil
	}
	models, err := clue.LoadBundle(b)
	if err != nil {
		return nil, err
	}
	deltas, lambdas, thresholds := Grid(d.VAE.Latent, d.Input.Size(), len(d.Classes))
	m := &measurer{restarts: opt.Restarts, top: thresholds[len(thresholds)-1], workers: opt.Workers, searched: opt.Searched}
	m.problems, r.Picked, r.Pool = leastSure(models, test, opt.Pool, opt.Items)
	r.Tests = test.Len()
	k := len(m.problems)
	r.Items = k
	if k == 0 {
		r.Note = "the test items are all blank"
		return r, nil
	}
	digits := Digits()
	unsure := 0
	for _, prob := range m.problems {
		if float64(prob.Pred0.Total) >= digits.HThreshold {
			unsure++
		}
	}
	if unsure <= k/2 {
		r.Note = fmt.Sprintf("the model is sure (H below %g nats) of %d of even the %d test %s it is least sure of: there is little to explain",
			digits.HThreshold, k-unsure, k, plural.Word(2, r.Noun))
		return r, nil
	}
	levels := ladder(deltas, lambdas)
	order := levels[len(levels)-1].cells() // the full grid, cheapest first
	generous := order[len(order)-1]

	// The plan: a probe estimates a search, and the items shrink until the digits' defaults and the coarsest
	// grid fit the budget; the finer grids use what is left, until the deadline.
	if opt.Budget > 0 {
		perSearch, err := probe(ctx, m, digits)
		if err != nil {
			return nil, err
		}
		r.PerSearch = perSearch.Seconds()
		n, ok := plan(levels[0].searches(digits), k, opt.Workers, perSearch, opt.Budget-time.Since(start))
		if !ok {
			r.Note = fmt.Sprintf("a search of n = %d takes up to about %.2gs here, and the budget of %s is too short for the digits' defaults and the coarsest grid on %d items (raise the budget)",
				opt.Restarts, perSearch.Seconds(), opt.Budget, min(FloorItems, k))
			r.Seconds = time.Since(start).Seconds()
			return r, nil
		}
		if n < k {
			r.LeftOut = append(r.LeftOut, fmt.Sprintf("items: the %d least sure, not %d", n, k))
			k, r.Items = n, n
		}
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, start.Add(opt.Budget))
		defer cancel()
	}

	// 1. The digits' defaults, on every item.
	t0 := time.Now()
	searched := map[[2]float64]*cell{}
	dc, err := m.search(ctx, digits.Delta, digits.LambdaX, k, false)
	if errors.Is(err, context.DeadlineExceeded) {
		r.Note, r.Seconds = "the budget ran out while they were searched", time.Since(start).Seconds()
		return r, nil
	} else if err != nil {
		return nil, err
	}
	searched[[2]float64{digits.Delta, digits.LambdaX}] = dc
	r.Tried = 1
	r.PerSearch = (time.Since(t0) / time.Duration((k+opt.Workers-1)/opt.Workers)).Seconds()
	r.Digits = dc.reached(digits.HThreshold)
	if r.Digits > k/2 {
		r.Reached, r.Majority = r.Digits, true
		r.Seconds = time.Since(start).Seconds()
		return r, nil
	}

	// 2. The grid, cheapest first: the coarsest level, then each finer one where it is cheaper than the best found.
	full := levels[len(levels)-1].settings(thresholds)
	best, bestN := len(full), 0
	var gone []cell // the (δ, λx) the deadline left out
levels:
	for _, g := range levels {
		for _, s := range g.settings(thresholds) {
			i := slices.Index(full, s)
			if i >= best {
				break
			}
			key := [2]float64{s.Delta, s.LambdaX}
			c := searched[key]
			if c == nil {
				c, err = m.search(ctx, s.Delta, s.LambdaX, k, s.Delta != generous.delta || s.LambdaX != generous.lambda)
				if errors.Is(err, context.DeadlineExceeded) {
					for _, later := range full[i:best] { // what might have been cheaper than what is chosen
						if key := [2]float64{later.Delta, later.LambdaX}; searched[key] == nil && !slices.ContainsFunc(gone, func(c cell) bool { return [2]float64{c.delta, c.lambda} == key }) {
							gone = append(gone, cell{delta: later.Delta, lambda: later.LambdaX})
						}
					}
					break levels
				} else if err != nil {
					return nil, err
				}
				searched[key] = c
				r.Tried++
			}
			if n := c.reached(s.HThreshold); n > k/2 {
				best, bestN = i, n
				break
			}
		}
	}
	if len(gone) > 0 {
		slices.SortFunc(gone, func(a, b cell) int {
			if a.delta != b.delta {
				return cmp.Compare(a.delta, b.delta)
			}
			return cmp.Compare(b.lambda, a.lambda)
		})
		r.LeftOut = append(r.LeftOut, notSearched(gone))
	}
	r.Seconds = time.Since(start).Seconds()
	if best < len(full) {
		r.choose(full[best], bestN, true)
		return r, nil
	}

	// 3. No setting works: the most generous, if it reaches more than the digits'.
	last := searched[[2]float64{generous.delta, generous.lambda}]
	if last == nil {
		r.Note = "no setting searched reaches more than half, and the most generous was not searched"
		return r, nil
	}
	t, n := thresholds[0], last.reached(thresholds[0])
	for _, u := range thresholds[1:] {
		if last.reached(u) > n {
			t, n = u, last.reached(u)
		}
	}
	if n <= r.Digits {
		r.Note = fmt.Sprintf("no setting searched reaches more than half, and the most generous (%s) reaches no more than they do (%d)",
			Setting{generous.delta, generous.lambda, t}, n)
		return r, nil
	}
	r.choose(Setting{generous.delta, generous.lambda, t}, n, false)
	return r, nil
}

// choose stores setting s, which n items reach.
func (r *Result) choose(s Setting, n int, majority bool) {
	r.Chosen, r.Reached, r.Majority = s, n, majority
	delta, lambda, t := s.Delta, s.LambdaX, s.HThreshold
	r.Search = &weights.SearchDefaults{Delta: &delta, LambdaX: &lambda, HThreshold: &t}
}

// leastSure returns the problems of the k test items the classifier is least sure of (highest H_total, ties by
// index), picked among at most pool of them evenly spaced, leaving out blank ones, with their indices and the
// number of items looked at.
func leastSure(m *clue.Models, test dataset.Items, pool, k int) ([]*clue.Problem, []int, int) {
	n := test.Len()
	look := make([]int, min(n, pool))
	for j := range look {
		look[j] = j * n / len(look)
	}
	h := make([]float64, len(look))
	const chunk = 64
	size := test.Size()
	buf := make([]float32, chunk*size)
	for from := 0; from < len(look); from += chunk {
		to := min(from+chunk, len(look))
		for j := from; j < to; j++ {
			test.Float(look[j], buf[(j-from)*size:(j-from+1)*size])
		}
		for j, u := range m.BNN.Classify(buf[:(to-from)*size]) {
			h[from+j] = float64(u.Total)
		}
	}
	order := make([]int, len(look))
	for j := range order {
		order[j] = j
	}
	sort.SliceStable(order, func(a, b int) bool { return h[order[a]] > h[order[b]] })
	var probs []*clue.Problem
	var picked []int
	for _, j := range order {
		if len(probs) == k {
			break
		}
		prob, err := clue.NewProblem(m, test.Float(look[j], nil))
		if err != nil {
			continue // a blank item: nothing to explain
		}
		probs, picked = append(probs, prob), append(picked, look[j])
	}
	return probs, picked, len(look)
}

// probe times searches of 2 and 8 steps on the first item, every restart taking every step, and returns the
// time of a search of max_steps steps at that rate (the difference of the two is the steps' cost without the
// search's setting up).
func probe(ctx context.Context, m *measurer, s Setting) (time.Duration, error) {
	p := m.params(s.Delta, s.LambdaX)
	full := p.MaxSteps
	took := func(steps int) (time.Duration, error) {
		q := p
		q.MaxSteps, q.MinSteps, q.RelTol, q.AbsTol = steps, min(p.MinSteps, steps), 0, 0
		t0 := time.Now()
		_, err := clue.Search(ctx, m.problems[0], q, nil, nil)
		return time.Since(t0), err
	}
	if _, err := took(2); err != nil { // warms up
		return 0, err
	}
	short, err := took(2)
	if err != nil {
		return 0, err
	}
	long, err := took(8)
	if err != nil {
		return 0, err
	}
	perStep := max(long-short, 0) / 6
	return max(short-2*perStep, 0) + perStep*time.Duration(full), nil
}

// grid is a level of the grid: its δ and λx, in the package's order.
type grid struct {
	deltas, lambdas []float64
}

// cells lists the (δ, λx) in the order they are searched: δ ascending, then λx descending.
func (g grid) cells() []cell {
	var out []cell
	for _, d := range g.deltas {
		for _, l := range g.lambdas {
			out = append(out, cell{delta: d, lambda: l})
		}
	}
	return out
}

// settings lists the grid's settings at the thresholds in the order of cost: the threshold ascending, then δ
// ascending, then λx descending.
func (g grid) settings(thresholds []float64) []Setting {
	var out []Setting
	for _, t := range thresholds {
		for _, c := range g.cells() {
			out = append(out, Setting{c.delta, c.lambda, t})
		}
	}
	return out
}

// searches counts the searches an item gets at the grid and the digits' defaults.
func (g grid) searches(digits Setting) int {
	n := 1
	for _, c := range g.cells() {
		if c.delta != digits.Delta || c.lambda != digits.LambdaX {
			n++
		}
	}
	return n
}

// ladder lists the levels of the grid, the coarsest first: δ only the 2nd, 4th and 5th (2s, 4s, 6s) and λx only
// the largest and 0; every δ with those λx; the full grid, last.
func ladder(deltas, lambdas []float64) []grid {
	full := grid{deltas: deltas, lambdas: lambdas}
	ends := slices.Compact([]float64{lambdas[0], lambdas[len(lambdas)-1]})
	var few []float64
	for i, d := range deltas {
		if i == 1 || i >= 3 {
			few = append(few, d)
		}
	}
	if len(few) == 0 {
		few = deltas
	}
	return []grid{{deltas: slices.Compact(few), lambdas: ends}, {deltas: deltas, lambdas: ends}, full}
}

// plan returns the most items (at most k, at least MinItems when that fits) on which searches searches an
// item, workers at once, at perSearch a search, fit in left: fewer than k only when k do not; false when not
// even FloorItems do.
func plan(searches, k, workers int, perSearch, left time.Duration) (int, bool) {
	waves := int(left / (time.Duration(searches) * max(perSearch, time.Nanosecond)))
	n := min(k, waves*workers)
	return n, n >= min(FloorItems, k)
}

// notSearched says which (δ, λx) the deadline left out: "δ 1 (λx 0.01, 0.003), δ 3 (λx 0.01)".
func notSearched(cells []cell) string {
	var parts []string
	for i := 0; i < len(cells); {
		j := i
		var ls []string
		for ; j < len(cells) && cells[j].delta == cells[i].delta; j++ {
			ls = append(ls, strconv.FormatFloat(cells[j].lambda, 'g', -1, 64))
		}
		parts = append(parts, fmt.Sprintf("δ %g (λx %s)", cells[i].delta, strings.Join(ls, ", ")))
		i = j
	}
	if len(parts) == 0 {
		return "nothing cheaper than the choice, though the deadline came"
	}
	return "the deadline came before " + strings.Join(parts, ", ")
}
