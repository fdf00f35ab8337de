package main

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/deltaclue/deltaclue/engine/clue"
)

// ruleCounts compares the two convergence rules on a group of restarts, accepting at the models' default
// threshold (sure).
type ruleCounts struct {
	sure                            float64
	restarts, changed, labelChanged int
	accepted, converged, steps      [2]int // [Spread, CLUERule]
}

func (c *ruleCounts) add(spread, clueRule []clue.Explanation) {
	ok := func(e clue.Explanation) bool { return e.Accepted && float64(e.HTotal) < c.sure }
	for i := range spread {
		c.restarts++
		if ok(spread[i]) != ok(clueRule[i]) {
			c.changed++
		}
		if spread[i].Label != clueRule[i].Label {
			c.labelChanged++
		}
		for k, e := range []clue.Explanation{spread[i], clueRule[i]} {
			if ok(e) {
				c.accepted[k]++
			}
			if e.Converged {
				c.converged[k]++
			}
			c.steps[k] += e.Steps
		}
	}
}

// compareConvergence runs every search of the experiment under both convergence rules and writes, per variant,
// per radius and in all, how many restarts change acceptance (at the explainer's H < sure, the models' default
// threshold: the digits' 0.3) or label, and how many converge after how many steps: the measurement in
// docs/experiments.md.
func compareConvergence(w io.Writer, problems []*clue.Problem, ds []float64, chosen []variant, p clue.Params, sure float64, workers int) error {
	type task struct{ digit, delta, variant int }
	var tasks []task
	for d := range ds {
		for v := range chosen {
			for k := range problems {
				tasks = append(tasks, task{k, d, v})
			}
		}
	}
	perVariant, perDelta := make([]ruleCounts, len(chosen)), make([]ruleCounts, len(ds))
	all := ruleCounts{sure: sure}
	for i := range perVariant {
		perVariant[i].sure = sure
	}
	for i := range perDelta {
		perDelta[i].sure = sure
	}
	var mu sync.Mutex
	var firstErr error
	next := make(chan task)
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := range next {
				q := p
				q.Delta, q.LambdaX, q.Scheme = ds[t.delta], chosen[t.variant].LambdaX, chosen[t.variant].Scheme
				q.Convergence = clue.Spread
				a, err1 := clue.Search(context.Background(), problems[t.digit], q, nil, nil)
				q.Convergence = clue.CLUERule
				b, err2 := clue.Search(context.Background(), problems[t.digit], q, nil, nil)
				mu.Lock()
				if err := firstError(err1, err2); err != nil && firstErr == nil {
					firstErr = err
				} else if err == nil {
					perVariant[t.variant].add(a, b)
					perDelta[t.delta].add(a, b)
					all.add(a, b)
				}
				mu.Unlock()
			}
		}()
	}
	for _, t := range tasks {
		next <- t
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	fmt.Fprintln(w, "| set | restarts | acceptance changed | accepted (Spread / CLUE) | label changed | converged (Spread / CLUE) | mean steps of the result (Spread / CLUE) |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|")
	show := func(name string, c ruleCounts) {
		n := float64(max(c.restarts, 1))
		fmt.Fprintf(w, "| %s | %d | %d | %d / %d | %d | %d / %d | %.1f / %.1f |\n", name, c.restarts, c.changed, c.accepted[0], c.accepted[1],
			c.labelChanged, c.converged[0], c.converged[1], float64(c.steps[0])/n, float64(c.steps[1])/n)
	}
	for v, c := range perVariant {
		show(chosen[v].Name, c)
	}
	for d, c := range perDelta {
		show(fmt.Sprintf("δ = %g", ds[d]), c)
	}
	show("all", all)
	return nil
}

func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
