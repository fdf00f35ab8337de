package searchdefaults

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/internal/dataset"
	"github.com/deltaclue/deltaclue/internal/testbundle"
	"github.com/deltaclue/deltaclue/weights"
)

// TestGrid: the digits' grid is the package's numbers; a wider latent space scales δ by √(latent/16), a larger
// input scales λx by 784/values, and the thresholds are 0.3, ln C/3 and ln C/2 (those from 0.3).
func TestGrid(t *testing.T) {
	cases := []struct {
		latent, values, classes int
		deltas, lambdas, ts     []float64
	}{
		{16, 784, 10, []float64{1, 2, 3, 4, 6}, []float64{0.03, 0.01, 0.003, 0}, []float64{0.3, 0.768, 1.15}},
		{8, 144, 4, []float64{1, 2, 3, 4, 6}, []float64{0.03, 0.01, 0.003, 0}, []float64{0.3, 0.462, 0.693}},
		{64, 3 * 32 * 32, 4, []float64{2, 4, 6, 8, 12}, []float64{0.0077, 0.0026, 0.00077, 0}, []float64{0.3, 0.462, 0.693}},
		{4096, 784, 2, []float64{16, 20}, []float64{0.03, 0.01, 0.003, 0}, []float64{0.3, 0.347}},
	}
	for _, c := range cases {
		d, l, ts := Grid(c.latent, c.values, c.classes)
		if !slices.Equal(d, c.deltas) || !slices.Equal(l, c.lambdas) || !slices.Equal(ts, c.ts) {
			t.Errorf("latent %d, %d values, %d classes: δ %v, λx %v, thresholds %v", c.latent, c.values, c.classes, d, l, ts)
		}
	}
}

// TestPlan: the grid's levels, coarsest first, and the items a budget allows: all when they fit, fewer down
// to FloorItems, none below.
func TestPlan(t *testing.T) {
	deltas, lambdas, _ := Grid(16, 784, 10)
	levels := ladder(deltas, lambdas)
	digits := Digits()
	if len(levels) != 3 || !slices.Equal(levels[0].deltas, []float64{2, 4, 6}) || !slices.Equal(levels[0].lambdas, []float64{0.03, 0}) ||
		!slices.Equal(levels[1].deltas, deltas) || !slices.Equal(levels[1].lambdas, []float64{0.03, 0}) ||
		!slices.Equal(levels[2].deltas, deltas) || !slices.Equal(levels[2].lambdas, lambdas) {
		t.Fatalf("the levels: %+v", levels)
	}
	if a, b, c := levels[0].searches(digits), levels[1].searches(digits), levels[2].searches(digits); a != 6 || b != 10 || c != 20 {
		t.Errorf("searches an item: %d, %d, %d; want 6, 10 and 20 (the digits' defaults among each)", a, b, c)
	}
	cases := []struct {
		left  time.Duration
		items int
		fits  bool
	}{
		{1000 * time.Second, 24, true}, // 6 searches × 12 waves = 72 s
		{60 * time.Second, 20, true},   // 10 waves
		{13 * time.Second, 4, true},    // 2 waves
		{11 * time.Second, 2, false},   // 1 wave: fewer than FloorItems
	}
	for _, c := range cases {
		if items, fits := plan(levels[0].searches(digits), 24, 2, time.Second, c.left); items != c.items || fits != c.fits {
			t.Errorf("%s left: %d items, fits %v; want %d, %v", c.left, items, fits, c.items, c.fits)
		}
	}
	if got := notSearched([]cell{{delta: 1, lambda: 0.01}, {delta: 1, lambda: 0.003}, {delta: 3, lambda: 0.01}}); got != "the deadline came before δ 1 (λx 0.01, 0.003), δ 3 (λx 0.01)" {
		t.Errorf("left out: %q", got)
	}
}

// reaches counts the items (of test, by index) that reach a sure explanation at s, searched here from scratch
// as the rule says: an item not sure at t itself, S1 with n restarts, every other parameter the digits'
// default, accepted with H_total < t.
func reaches(t *testing.T, m *clue.Models, test dataset.Items, items []int, n int, s Setting) int {
	t.Helper()
	p := clue.Defaults()
	p.N, p.Delta, p.LambdaX, p.HThreshold = n, s.Delta, s.LambdaX, s.HThreshold
	count := 0
	for _, i := range items {
		prob, err := clue.NewProblem(m, test.Float(i, nil))
		if err != nil {
			t.Fatal(err)
		}
		if float64(prob.Pred0.Total) < s.HThreshold {
			continue // sure of it already: nothing is explained
		}
		exps, err := clue.Search(context.Background(), prob, p, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range exps {
			if e.Accepted {
				count++
				break
			}
		}
	}
	return count
}

// TestMeasurePicksByTheRule: on small test models with seeded weights and items, the measurement picks what the
// rule says, checked against searches made here: the digits' defaults when more than half of the least sure
// items reach a sure explanation with them; else the first setting in the order of cost (threshold ascending,
// δ ascending, λx descending) where more than half do, every cheaper one failing; else the most generous,
// if it reaches more than the digits'. The result does not depend on how many searches run at once.
func TestMeasurePicksByTheRule(t *testing.T) {
	const items, restarts = 16, 12
	makers := map[string]func(uint64) (*testbundle.Bundle, error){"grey": testbundle.Grey, "colour": testbundle.Colour, "peers": testbundle.Peers}
	seen := map[string]bool{}
	for _, c := range []struct {
		model string
		seed  uint64
	}{{"grey", 1}, {"grey", 4}, {"peers", 3}, {"colour", 4}, {"colour", 2}, {"colour", 3}} {
		name := fmt.Sprintf("%s %d", c.model, c.seed)
		tb, err := makers[c.model](c.seed)
		if err != nil {
			t.Fatal(err)
		}
		b, err := weights.OpenBundleFiles(tb.Bytes, false)
		if err != nil {
			t.Fatal(err)
		}
		test := tb.Items(200, c.seed+10)
		r, err := Measure(context.Background(), b, test, Options{Items: items, Restarts: restarts, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range r.Lines() {
			t.Logf("%s: %s", name, l)
		}
		again, err := Measure(context.Background(), b, test, Options{Items: items, Restarts: restarts, Workers: 3})
		if err != nil {
			t.Fatal(err)
		}
		if again.Chosen != r.Chosen || again.Reached != r.Reached || again.Digits != r.Digits || again.Tried != r.Tried || !slices.Equal(again.Picked, r.Picked) ||
			(again.Search == nil) != (r.Search == nil) {
			t.Errorf("%s: with 3 searches at once: %+v, with 1: %+v", name, again, r)
		}
		m, err := clue.LoadBundle(b)
		if err != nil {
			t.Fatal(err)
		}
		// The items: the 16 the classifier is least sure of.
		all := make([]float32, 0, test.Len()*test.Size())
		for i := range test.Len() {
			all = append(all, test.Float(i, nil)...)
		}
		if want := clue.MostUncertain(m.BNN, all, items); !slices.Equal(r.Picked, want) || r.Items != items {
			t.Errorf("%s: searched items %v (%d), want %v", name, r.Picked, r.Items, want)
		}
		digits := Digits()
		k := r.Items
		if n := reaches(t, m, test, r.Picked, restarts, digits); n != r.Digits {
			t.Errorf("%s: the digits' defaults reach %d here, the measurement says %d", name, n, r.Digits)
		}
		deltas, lambdas, ts := Grid(tb.Description.VAE.Latent, tb.Description.Input.Size(), len(tb.Description.Classes))
		var order []Setting // the order of cost: the threshold ascending, then δ ascending, then λx descending
		for _, h := range ts {
			for _, d := range deltas {
				for _, l := range lambdas {
					order = append(order, Setting{d, l, h})
				}
			}
		}
		switch {
		case r.Search == nil && r.Majority:
			seen["kept"] = true
			if r.Digits <= k/2 || r.Chosen != digits {
				t.Errorf("%s: kept the digits' defaults, which reach %d of %d", name, r.Digits, k)
			}
		case r.Search != nil && r.Majority:
			seen["chosen"] = true
			if r.Digits > k/2 {
				t.Errorf("%s: the digits' defaults work (%d of %d), and %s was stored", name, r.Digits, k, r.Chosen)
			}
			if s := r.Search; *s.Delta != r.Chosen.Delta || *s.LambdaX != r.Chosen.LambdaX || *s.HThreshold != r.Chosen.HThreshold {
				t.Errorf("%s: stored %+v for %s", name, s, r.Chosen)
			}
			at := slices.Index(order, r.Chosen)
			if at < 0 {
				t.Fatalf("%s: %s is not in the grid", name, r.Chosen)
			}
			if n := reaches(t, m, test, r.Picked, restarts, r.Chosen); n != r.Reached || n <= k/2 {
				t.Errorf("%s: %s reaches %d here, the measurement says %d", name, r.Chosen, n, r.Reached)
			}
			for _, s := range order[:at] {
				if n := reaches(t, m, test, r.Picked, restarts, s); n > k/2 {
					t.Errorf("%s: the cheaper %s works too (%d of %d), and %s was chosen", name, s, n, k, r.Chosen)
				}
			}
		case r.Search != nil:
			seen["generous"] = true
			generous := order[len(order)-1]
			for _, s := range order {
				if n := reaches(t, m, test, r.Picked, restarts, s); n > k/2 {
					t.Errorf("%s: %s works (%d of %d), and none was said to", name, s, n, k)
				}
			}
			best, at := -1, 0.0 // the most items the most generous reaches, at the smallest threshold
			for _, h := range ts {
				if n := reaches(t, m, test, r.Picked, restarts, Setting{generous.Delta, 0, h}); n > best {
					best, at = n, h
				}
			}
			if r.Chosen != (Setting{generous.Delta, 0, at}) || r.Reached != best || best <= r.Digits {
				t.Errorf("%s: the most generous chosen as %s reaching %d, want δ %g, λx 0, %g nats reaching %d", name, r.Chosen, r.Reached, generous.Delta, at, best)
			}
		default:
			seen["none better"] = true
			if r.Note == "" || r.Digits > k/2 {
				t.Errorf("%s: kept the digits' defaults (%d of %d) without a reason", name, r.Digits, k)
			}
		}
	}
	for _, want := range []string{"kept", "chosen", "generous"} {
		if !seen[want] {
			t.Errorf("no model here made the measurement take its %q branch: the test checks less than it says", want)
		}
	}
}

// TestMeasureWithinBudget: a budget too small for a single item's searches measures nothing, keeps the digits'
// defaults and says why; the lines say what was chosen.
func TestMeasureWithinBudget(t *testing.T) {
	tb, err := testbundle.Grey(4)
	if err != nil {
		t.Fatal(err)
	}
	b, err := weights.OpenBundleFiles(tb.Bytes, false)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Measure(context.Background(), b, tb.Items(50, 14), Options{Items: 16, Restarts: 12, Budget: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Join(r.Lines(), "\n")
	if r.Search != nil || r.Digits != -1 || !strings.Contains(lines, "raise the budget") || !strings.Contains(lines, "kept the digits' δ 2, λx 0.03, 0.3 nats") {
		t.Errorf("a budget of 1 ns: %+v\n%s", r, lines)
	}
	r, err = Measure(context.Background(), b, tb.Items(50, 14), Options{Items: 16, Restarts: 12, Budget: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	lines = strings.Join(r.Lines(), "\n")
	if r.Search == nil || !strings.Contains(lines, "defaults: "+r.Chosen.String()) || !strings.Contains(lines, fmt.Sprintf("%d of 16 reach a sure explanation", r.Reached)) ||
		!strings.Contains(lines, "test sketches the model is least sure of") || len(r.LeftOut) > 0 || math.IsNaN(r.Seconds) {
		t.Errorf("an hour's budget: %+v\n%s", r, lines)
	}
	t.Log("\n" + lines)
	if r, err := Measure(context.Background(), b, tb.Items(0, 1), Options{}); err != nil || r.Search != nil || !strings.Contains(strings.Join(r.Lines(), "\n"), "no test items") {
		t.Errorf("no test items: %+v, %v", r, err)
	}
}
