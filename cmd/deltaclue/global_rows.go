package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/glam"
	"github.com/deltaclue/deltaclue/internal/dataset"
	"github.com/deltaclue/deltaclue/internal/features"
	"github.com/deltaclue/deltaclue/internal/plural"
	"github.com/deltaclue/deltaclue/weights"
)

// global on a model of rows (issue 41, part 5): GLAM-CLUE's groups without its translations. What an analyst of
// a table asks of the groups is which features the model's uncertainty hinges on for each: so each uncertain test
// row read as a joins the group a → b of every label b its δ-CLUE reaches (as GLAM-CLUE's groups are made), and
// each group says how often its members' cheapest explanations towards b change each feature, which way and by how
// much. The translations, their amortised answers and the cost–coverage curves are left out, and said so:
// translations decode a moved code without the row head, so their answers would not be valid rows (and the
// credit models ship none, which is why S6 is refused on them).

// rowGroupsReport is groups.json for a model of rows.
type rowGroupsReport struct {
	Split     string        `json:"split"`
	Uncertain int           `json:"uncertain"`          // test rows above the threshold
	Searched  int           `json:"searched,omitempty"` // those searched, when fewer (-digits)
	Unreached int           `json:"unreached"`          // searched rows without a sure explanation
	Params    clue.Params   `json:"params"`
	Note      string        `json:"note"` // why there are no translations, amortised answers nor curves
	Groups    []rowGroup    `json:"groups"`
	Rows      []rowSearched `json:"rows"`
}

// rowGroup is the uncertain rows read as From whose δ-CLUE reaches To, and what their cheapest explanations
// towards To change.
type rowGroup struct {
	From      int             `json:"from"`
	FromClass string          `json:"from_class"`
	To        int             `json:"to"`
	ToClass   string          `json:"to_class"`
	Members   []int           `json:"members"` // indices of the test rows, ascending
	MeanD     float64         `json:"mean_d"`
	MinD      float64         `json:"min_d"`
	Features  *features.Tally `json:"features"`
}

// rowSearched is one uncertain test row's search: the label read, and per label reached the cheapest explanation's
// d, changed columns and row.
type rowSearched struct {
	Index   int              `json:"index"`
	Read    int              `json:"read"`
	Reached []rowReached     `json:"reached"`
	row     []features.Value // the test row
	seconds float64
}

type rowReached struct {
	Label    int              `json:"label"`
	Distance float32          `json:"d"`
	Changed  []string         `json:"changed,omitempty"`
	Row      json.RawMessage  `json:"row"`
	values   []features.Value // Row as values
}

// noTranslations is the sentence that says why a model of rows' groups come without translations.
func noTranslations(ms *models) string {
	if len(ms.translations) == 0 {
		return fmt.Sprintf("The %q models have no GLAM-CLUE translations (%s), so there are no amortised answers nor cost–coverage curves (and S6, which starts from them, is refused): these groups are δ-CLUE's, each with the features its members' cheapest explanations change.", ms.Name(), weights.BundleGlobal)
	}
	return fmt.Sprintf("The %q models' GLAM-CLUE translations are not evaluated: a translation decodes a moved code without the row head, so its answers are not valid rows; these groups are δ-CLUE's, each with the features its members' cheapest explanations change.", ms.Name())
}

// globalRows runs δ-CLUE (the models' defaults, with the locks) on the models' uncertain test rows (the first
// limit, 0: all) on workers goroutines, and writes groups.json and groups.csv into out.
func globalRows(ms *models, out string, limit, workers int, lock clue.ColumnList) error {
	items, err := ms.test("global")
	if err != nil {
		return err
	}
	t, ok := items.(*dataset.Table)
	if !ok {
		return fmt.Errorf("global: the %q models read rows, and their test items are not a table", ms.Name())
	}
	m, cols := ms.search, t.Columns
	p := clue.DefaultsFor(ms.Description())
	p.Lock = lock
	if err := p.Validate(); err != nil {
		return err
	}
	if err := p.ValidateFor(m); err != nil {
		return fmt.Errorf("-lock %s: %w", lock, err)
	}
	idx, read := uncertainItems(m, flatten(t), p.HThreshold)
	uncertain := len(idx)
	if limit > 0 && limit < len(idx) {
		idx, read = idx[:limit], read[:limit]
	}
	fmt.Fprintf(os.Stderr, "δ-CLUE (n = %d, δ = %g, λx = %g) on %s of the test split's %s, %s…\n", p.N, p.Delta, p.LambdaX, ms.items(len(idx), ""),
		ms.items(uncertain, "uncertain"), plural.Count(workers, "worker"))
	start := time.Now()
	rs := make([]rowSearched, len(idx))
	errs := make([]error, len(idx))
	bar := newProgress(os.Stderr, len(idx), ms.noun()+"s")
	var mu sync.Mutex
	done := 0
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range next {
				rs[k], errs[k] = reachRow(m, cols, t.Rows[idx[k]], idx[k], read[k], p)
				mu.Lock()
				done++
				bar.update(done)
				mu.Unlock()
			}
		}()
	}
	for k := range idx {
		next <- k
	}
	close(next)
	wg.Wait()
	bar.finish()
	for k, err := range errs {
		if err != nil {
			return fmt.Errorf("test %s %d: %w", ms.noun(), idx[k], err)
		}
	}
	classes := ms.Description().Classes
	rep := rowGroupsReport{Split: "test", Uncertain: uncertain, Searched: len(rs), Params: p, Note: noTranslations(ms), Rows: rs}
	if rep.Searched == uncertain {
		rep.Searched = 0
	}
	if rep.Groups, rep.Unreached, err = rowGroups(cols, classes, rs); err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	if err := writeRowGroups(out, cols, rep); err != nil {
		return err
	}
	fmt.Println(noTranslations(ms))
	fmt.Printf("%s searched in %.1fs: %s reach a sure explanation, in %s:\n", ms.items(len(rs), "uncertain test"), time.Since(start).Seconds(),
		plural.Count(len(rs)-rep.Unreached, ms.noun()), plural.Count(len(rep.Groups), "group"))
	for _, g := range rep.Groups {
		fmt.Printf("  read as %s → sure of %s: %s, d %.2f on average, %.1f features changed: %s\n", g.FromClass, g.ToClass,
			plural.Count(len(g.Members), ms.noun()), g.MeanD, g.Features.Sparsity, g.Features.Words(5))
	}
	fmt.Printf("wrote %s\n", filepath.Join(out, "{groups.json,groups.csv}"))
	return nil
}

// reachRow searches one row and keeps, per label reached, its nearest accepted explanation (glam.Nearest).
func reachRow(m *clue.Models, cols weights.Columns, row []float64, index, read int, p clue.Params) (rowSearched, error) {
	prob, err := clue.NewRowProblem(m, row)
	if err != nil {
		return rowSearched{}, err
	}
	start := time.Now()
	exps, err := clue.Search(context.Background(), prob, p, nil, nil)
	if err != nil {
		return rowSearched{}, err
	}
	r := rowSearched{Index: index, Read: read, Reached: []rowReached{}, row: features.Row(cols, row), seconds: time.Since(start).Seconds()}
	best := glam.Nearest(exps)
	labels := make([]int, 0, len(best))
	for l := range best {
		labels = append(labels, l)
	}
	sort.Ints(labels)
	for _, l := range labels {
		e := best[l]
		x, err := prob.ExplanationRow(e.Image)
		if err != nil {
			return rowSearched{}, err
		}
		js, err := cols.RowJSON(x)
		if err != nil {
			return rowSearched{}, err
		}
		r.Reached = append(r.Reached, rowReached{Label: l, Distance: e.Distance, Changed: e.Changed, Row: js, values: features.Row(cols, x)})
	}
	return r, nil
}

// rowGroups makes the groups a → b of the rows' searches (ordered by a, then b) with their feature tallies, and
// counts the rows that reached nothing.
func rowGroups(cols weights.Columns, classes []string, rs []rowSearched) ([]rowGroup, int, error) {
	byPair := map[[2]int]*rowGroup{}
	unreached := 0
	for _, r := range rs {
		if len(r.Reached) == 0 {
			unreached++
		}
		for _, re := range r.Reached {
			g := byPair[[2]int{r.Read, re.Label}]
			if g == nil {
				g = &rowGroup{From: r.Read, FromClass: classes[r.Read], To: re.Label, ToClass: classes[re.Label], MinD: float64(re.Distance), Features: features.New(cols)}
				byPair[[2]int{r.Read, re.Label}] = g
			}
			g.Members = append(g.Members, r.Index)
			g.MeanD += float64(re.Distance)
			g.MinD = min(g.MinD, float64(re.Distance))
			if err := g.Features.Add(r.row, re.values); err != nil {
				return nil, 0, fmt.Errorf("row %d: %w", r.Index, err)
			}
		}
	}
	var gs []rowGroup
	for _, g := range byPair {
		g.MeanD /= float64(len(g.Members))
		gs = append(gs, *g)
	}
	sort.Slice(gs, func(i, j int) bool {
		if gs[i].From != gs[j].From {
			return gs[i].From < gs[j].From
		}
		return gs[i].To < gs[j].To
	})
	return gs, unreached, nil
}

// writeRowGroups writes groups.json (the whole report) and groups.csv: a line per group with its members, d and
// sparsity, and per feature the share of its members' cheapest explanations that change it.
func writeRowGroups(dir string, cols weights.Columns, rep rowGroupsReport) error {
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
	head := []string{"from", "to", "from_class", "to_class", "members", "mean_d", "min_d", "sparsity"}
	for _, n := range cols.Names() {
		head = append(head, "changes_"+n)
	}
	w.Write(head)
	g3 := func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
	for _, g := range rep.Groups {
		rec := []string{strconv.Itoa(g.From), strconv.Itoa(g.To), g.FromClass, g.ToClass, strconv.Itoa(len(g.Members)), g3(g.MeanD), g3(g.MinD), g3(g.Features.Sparsity)}
		for _, c := range g.Features.Columns {
			rec = append(rec, g3(c.Share))
		}
		w.Write(rec)
	}
	w.Flush()
	return errors.Join(w.Error(), fh.Close())
}
