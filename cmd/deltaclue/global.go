package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/figures"
	"github.com/deltaclue/deltaclue/engine/glam"
	"github.com/deltaclue/deltaclue/internal/plural"
	"github.com/deltaclue/deltaclue/weights"
)

// globalReport is global.json: the setting, every group's record on the test split, the totals beside
// δ-CLUE's, and every case.
type globalReport struct {
	Split     string `json:"split"`
	Uncertain int    `json:"uncertain"` // test digits with H_total above the threshold
	// Searched counts those searched, when fewer (-digits, or the import's budget): the cases are theirs.
	Searched     int                `json:"searched,omitempty"`
	Params       clue.Params        `json:"params"` // δ-CLUE's, and the answers' δ and threshold
	Ladder       []float32          `json:"ladder"` // the curves' scales k
	Cap          float32            `json:"cap"`    // the largest k of an answer
	Groups       []glam.GroupResult `json:"groups"`
	Totals       globalTotals       `json:"totals"`
	Cases        []glam.Case        `json:"cases"`
	Machine      string             `json:"machine"`
	SearchTotal  float64            `json:"search_seconds"` // δ-CLUE's time over every uncertain test digit
	AnswerTotals float64            `json:"answer_seconds"` // the amortised answers' time over every case
}

// globalTotals compares GLAM-CLUE with δ-CLUE over every (digit, b) where δ-CLUE reached b and a translation a→b
// exists: the share each makes sure of b, their mean d and latent shift, and the time per explanation.
type globalTotals struct {
	Cases              int     `json:"cases"`
	Coverage           float64 `json:"coverage"`
	MeanDistance       float64 `json:"mean_distance"`
	MeanShift          float64 `json:"mean_shift"`
	MeanSearchDistance float64 `json:"mean_search_distance"`
	MeanSearchRho      float64 `json:"mean_search_rho"`
	AnswerMs           float64 `json:"answer_ms"` // mean time of one amortised answer
	SearchMs           float64 `json:"search_ms"` // mean time of one δ-CLUE search (a whole set, every label)
}

func global(args []string) error {
	fs := flag.NewFlagSet("global", flag.ContinueOnError)
	out := fs.String("out", "global-out", "folder for groups.json, groups.csv and coverage.svg")
	spec := modelsFlag(fs)
	digits := fs.Int("digits", 0, "use only the first this many uncertain test items (0: all)")
	workers := fs.Int("workers", runtime.NumCPU(), "δ-CLUE searches run at once (the results are the same)")
	var lock clue.ColumnList
	fs.Var(lockFlag{&lock}, "lock", "a model of rows: the columns every explanation keeps at the input's value, by name, separated by commas (Age,Marital)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *workers < 1 || *digits < 0 {
		return fmt.Errorf("-workers %d, -digits %d: want at least 1 worker and no negative count", *workers, *digits)
	}
	ms, err := loadModels(*spec)
	if err != nil {
		return err
	}
	if ms.search.Columns() != nil {
		return globalRows(ms, *out, *digits, *workers, lock)
	}
	if lock != "" {
		return fmt.Errorf("-lock %s: the %q models read images, which have no columns to lock", lock, ms.Name())
	}
	return measureGlobal(ms, *out, *digits, *workers)
}

// measureGlobal measures the models' GLAM-CLUE translations on their test items beside δ-CLUE's searches (on
// the first limit uncertain items, 0: all, with that many searches at once) and writes groups.json,
// groups.csv and coverage.svg into out, from which cmd/site makes the page's global view.
func measureGlobal(ms *models, out string, limit, workers int) error {
	return measureGlobalUnder(ms, out, limit, workers, nil)
}

// measureGlobalUnder is measureGlobal, its searches bounded by the import's share of its budget when share is
// not nil: as many as it holds, spread over the uncertain items (searchUnderBudget).
func measureGlobalUnder(ms *models, out string, limit, workers int, share *stageBudget) error {
	ts := ms.translations
	if len(ts) == 0 {
		return fmt.Errorf("the %q models have no GLAM-CLUE translations (%s): global evaluates them", ms.Name(), weights.BundleGlobal)
	}
	set, err := ms.test("global")
	if err != nil {
		return err
	}
	m := ms.search
	images := flatten(set)
	p := clue.DefaultsFor(ms.Description())
	idx, read := uncertainItems(m, images, p.HThreshold)
	uncertain := len(idx)
	if limit > 0 && limit < len(idx) {
		idx, read = idx[:limit], read[:limit]
	}
	fmt.Fprintf(os.Stderr, "δ-CLUE (n = %d, δ = %g) on %s of the test split's %s, %s…\n", p.N, p.Delta, ms.items(len(idx), ""), ms.items(uncertain, "uncertain"), plural.Count(workers, "worker"))
	var reached []glam.Reached
	if share == nil {
		reached, err = glam.Reach(context.Background(), m, images, idx, read, p, workers)
	} else {
		reached, _, err = searchUnderBudget(m, images, idx, read, p, *share, "uncertain test "+plural.Word(2, ms.Description().Input.Noun), false)
	}
	if err != nil {
		return err
	}
	cases := glam.Evaluate(m, ts, images, reached, p.HThreshold)
	rep := globalReport{Split: "test", Uncertain: uncertain, Searched: len(reached), Params: p, Ladder: glam.CurveLadder, Cap: glam.Ladder[len(glam.Ladder)-1], Groups: glam.Results(ts, cases), Cases: cases,
		Machine: fmt.Sprintf("%s, %s, %s", runtime.GOOS+"/"+runtime.GOARCH, plural.Count(runtime.NumCPU(), "CPU"), runtime.Version())}
	if rep.Searched == uncertain {
		rep.Searched = 0 // every one
	}
	for _, r := range reached {
		rep.SearchTotal += r.Seconds
	}
	for _, c := range cases {
		rep.AnswerTotals += c.Seconds
	}
	var members []glam.Case
	for _, c := range cases {
		if c.Member {
			members = append(members, c)
		}
	}
	all := glam.TallyOf(members)
	t := &rep.Totals
	t.Cases, t.Coverage, t.MeanDistance, t.MeanShift = all.Members, all.Coverage, all.MeanDistance, all.MeanShift
	t.MeanSearchDistance, t.MeanSearchRho = all.MeanSearchDistance, all.MeanSearchRho
	if len(cases) > 0 {
		t.AnswerMs = 1000 * rep.AnswerTotals / float64(len(cases))
	}
	if len(reached) > 0 {
		t.SearchMs = 1000 * rep.SearchTotal / float64(len(reached))
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	if err := writeGlobal(out, rep); err != nil {
		return err
	}
	fmt.Println(globalSummary(len(ts), ms.items(len(reached), "uncertain test"), *t))
	fmt.Printf("wrote %s\n", filepath.Join(out, "{groups.json,groups.csv,coverage.svg}"))
	return nil
}

// globalSummary is the totals in a sentence. With none of the cases made sure, the answers have no mean d nor
// ‖k·t‖ (the totals' 0 is for want of answers): it says so rather than "mean d 0.0".
func globalSummary(translations int, items string, t globalTotals) string {
	cost := fmt.Sprintf("mean d %.1f against δ-CLUE's %.1f, ‖k·t‖ %.2f against ρ %.2f", t.MeanDistance, t.MeanSearchDistance, t.MeanShift, t.MeanSearchRho)
	if t.Coverage <= 0 {
		cost = fmt.Sprintf("none made sure, so no mean d (δ-CLUE's %.1f, ρ %.2f)", t.MeanSearchDistance, t.MeanSearchRho)
	}
	return fmt.Sprintf("GLAM-CLUE: %d translations; on %s (%s where δ-CLUE reached b): coverage %.0f %% (δ-CLUE: 100 %%), %s; %.2f ms per answer against %.0f ms per search",
		translations, items, plural.Count(t.Cases, "case"), 100*t.Coverage, cost, t.AnswerMs, t.SearchMs)
}

// writeGlobal writes groups.json (the whole report), groups.csv (a row per group) and coverage.svg (the
// cost–coverage curves of the groups with at least 5 members on this split).
func writeGlobal(dir string, rep globalReport) error {
	b, err := json.MarshalIndent(rep, "", " ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "groups.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	fh, err := os.Create(filepath.Join(dir, "groups.csv"))
	if err != nil {
		return err
	}
	w := csv.NewWriter(fh)
	w.Write([]string{"from", "to", "train_members", "test_read", "test_members", "coverage", "coverage_read", "mean_distance", "mean_search_distance", "mean_shift"})
	g3 := func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
	for _, g := range rep.Groups {
		w.Write([]string{strconv.Itoa(g.From), strconv.Itoa(g.To), strconv.Itoa(g.Train), strconv.Itoa(g.Read), strconv.Itoa(g.Members),
			g3(g.Coverage), g3(g.CoverageRead), g3(g.MeanDistance), g3(g.MeanSearchDistance), g3(g.MeanShift)})
	}
	w.Flush()
	if err := errors.Join(w.Error(), fh.Close()); err != nil {
		return err
	}
	var lines []figures.CoverageLine
	for _, g := range rep.Groups {
		if g.Members < 5 {
			continue
		}
		l := figures.CoverageLine{From: g.From, To: g.To, Members: g.Members, SearchCost: g.MeanSearchDistance}
		for _, pt := range g.Curve {
			l.K, l.Coverage, l.Cost = append(l.K, float64(pt.K)), append(l.Coverage, pt.Coverage), append(l.Cost, pt.MeanDistance)
		}
		lines = append(lines, l)
	}
	svg := figures.CostCoverage(figures.CostCoverageChart{Lines: lines,
		Title: fmt.Sprintf("Cost against coverage: %s with 5+ test members", plural.Count(len(lines), "group"))})
	return os.WriteFile(filepath.Join(dir, "coverage.svg"), []byte(svg), 0o644)
}

// uncertainItems is glam.Uncertain on a few images at a time (rows are independent: the same answer), so that a
// big model's graph holds a few of them, not the whole test split.
func uncertainItems(m *clue.Models, images []float32, hThreshold float64) (idx, read []int) {
	size := m.BNN.Input.Size()
	const chunk = 64
	for lo := 0; lo*size < len(images); lo += chunk {
		hi := min(lo+chunk, len(images)/size)
		i, r := glam.Uncertain(m, images[lo*size:hi*size], hThreshold)
		for k := range i {
			idx, read = append(idx, lo+i[k]), append(read, r[k])
		}
	}
	return idx, read
}
