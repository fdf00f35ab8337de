package main

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	"github.com/deltaclue/deltaclue/internal/budget"
)

// The import's time budget (-budget): the costly stages share it. Each gets, when it starts, a share of what is
// left in proportion to its weight among the stages still to run, so that what one does not use goes to those
// after it; it measures its cost per item on its first ones and does as many as its share holds
// (internal/budget), and says what it left out. A reserve (a twentieth, at least 5 s) is kept for writing the
// folder and for the last item of a stage running over. Without a budget (-budget 0) every stage does everything.

// The stages, in the order they run, and their weights.
const (
	stageQuality      = "quality"
	stageDefaults     = "defaults"
	stageAnchors      = "anchors"
	stageTranslations = "translations"
	stageGlobal       = "global"
)

var stageWeights = map[string]float64{stageQuality: 1, stageDefaults: 1.5, stageAnchors: 1, stageTranslations: 3, stageGlobal: 3}

// importBudget shares the import's budget among the stages still to run.
type importBudget struct {
	total  time.Duration // 0: no bound
	start  time.Time
	now    func() time.Time
	stages []string // the stages still to run, in order
	out    io.Writer
	cuts   *[]string // what the stages left out, in words
}

// newImportBudget is a budget of total (0: none) from start for the stages given, in the order they run.
func newImportBudget(total time.Duration, start time.Time, out io.Writer, stages ...string) *importBudget {
	return &importBudget{total: total, start: start, now: time.Now, stages: stages, out: out, cuts: new([]string)}
}

// recap says, at the end, what the budget left out: "the budget of 10m left out: …" (nothing when it left
// nothing out).
func (b *importBudget) recap() string {
	if len(*b.cuts) == 0 {
		return ""
	}
	return fmt.Sprintf("the budget of %s left out: %s", budget.Flag(b.total), strings.Join(*b.cuts, "; "))
}

// stageBudget is one stage's share.
type stageBudget struct {
	name     string
	Budget   time.Duration // 0: no bound
	fraction float64       // of what was left when the stage started
	elapsed  time.Duration // the import's time when it started
	out      io.Writer
	cuts     *[]string
}

// share returns the stage's share of what is left (0 without a budget, and at least a second with one), and
// takes it off the stages still to run.
func (b *importBudget) share(stage string) stageBudget {
	elapsed := b.now().Sub(b.start)
	s := stageBudget{name: stage, elapsed: elapsed, out: b.out, cuts: b.cuts}
	var sum float64
	found := false
	var rest []string
	for _, n := range b.stages {
		if n == stage {
			found = true
		}
		if found {
			sum += stageWeights[n]
		}
		if n != stage {
			rest = append(rest, n)
		}
	}
	b.stages = rest
	if b.total <= 0 || !found {
		return s
	}
	left := b.total - elapsed - max(5*time.Second, b.total/20)
	s.fraction = stageWeights[stage] / sum
	s.Budget = max(time.Duration(float64(left)*s.fraction), time.Second)
	return s
}

// stage is a budget.Stage of this share, printing progress on the import's output, on every core.
func (s stageBudget) stage(unit string, total, floor, chunk int) budget.Stage {
	return budget.Stage{Name: s.name, Unit: unit, Total: total, Floor: floor, Chunk: chunk, Workers: runtime.NumCPU(), Budget: s.Budget, Log: s.out}
}

// leftOut prints, when the budget cut a stage, what it did and the budget that would have done all of it
// (at the rate measured, need in all): "translations: 30 of 100 uncertain training images (the budget;
// -budget 30m for more)". It says whether it cut.
func (s stageBudget) leftOut(what string, done, total int, need time.Duration) bool {
	if done >= total || s.Budget <= 0 {
		return false
	}
	fmt.Fprintln(s.out, s.cutLine(what, done, total, need))
	s.note(fmt.Sprintf("%s %d of %d %s", s.name, done, total, what))
	return true
}

// note adds what the stage left out to the recap.
func (s stageBudget) note(what string) {
	if s.cuts != nil {
		*s.cuts = append(*s.cuts, what)
	}
}

// cutLine is leftOut's line.
func (s stageBudget) cutLine(what string, done, total int, need time.Duration) string {
	return fmt.Sprintf("%s: %d of %d %s (the budget; -budget %s for more)", s.name, done, total, what,
		budget.Flag(budget.Suggest(s.elapsed, s.fraction, need)))
}
