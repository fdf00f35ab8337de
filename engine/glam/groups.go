package glam

import (
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/deltaclue/deltaclue/engine/clue"
)

// Reached is what δ-CLUE made of one uncertain input: the label the BNN reads on it and the labels its accepted
// explanations reach (ascending, each once).
type Reached struct {
	Index  int   `json:"index"` // the input's index in its set
	Read   int   `json:"read"`
	Labels []int `json:"labels"`
	// Distance and Rho are, for each of Labels, the L1 distance d and the latent distance ρ of the cheapest
	// (smallest d) accepted explanation of that label.
	Distance []float32 `json:"distance"`
	Rho      []float32 `json:"rho"`
	Seconds  float64   `json:"seconds"` // how long the search took (wall clock; not part of the answer)
}

// Best is the d and ρ of the cheapest accepted explanation of label b, and whether there is one.
func (r Reached) Best(b int) (distance, rho float32, ok bool) {
	for i, l := range r.Labels {
		if l == b {
			return r.Distance[i], r.Rho[i], true
		}
	}
	return 0, 0, false
}

// Uncertain returns the indices of the images (of the models' input, one after another) whose predictive entropy H_total is above hThreshold,
// with the label the BNN reads on each.
func Uncertain(m *clue.Models, images []float32, hThreshold float64) (idx, read []int) {
	for i, u := range m.BNN.Classify(images) {
		if float64(u.Total) > hThreshold {
			idx, read = append(idx, i), append(read, u.Label())
		}
	}
	return idx, read
}

// Spread returns at most n of the uncertain inputs idx (with their labels read, read), evenly spaced over the
// list: the k-th of n is at position ⌊k·len/n⌋. A training split that lists its items class by class (as
// mnist.StratifiedSplit's does) then gives every class its share, where the first n by index would all be of the
// first classes. With n ≤ 0 or n ≥ len(idx), everything is returned.
func Spread(idx, read []int, n int) ([]int, []int) {
	if n <= 0 || n >= len(idx) {
		return idx, read
	}
	outIdx, outRead := make([]int, n), make([]int, n)
	for k := range n {
		at := k * len(idx) / n
		outIdx[k], outRead[k] = idx[at], read[at]
	}
	return outIdx, outRead
}

// Reach runs δ-CLUE with p on each image idx[i] of images (of the models' input, one after another) (read[i] is the label read on it) on up to
// workers goroutines, and returns what each reached, in the order of idx. Each search's result depends only on
// its image and p, so the answer does not depend on workers.
func Reach(ctx clue.Stopper, m *clue.Models, images []float32, idx, read []int, p clue.Params, workers int) ([]Reached, error) {
	out := make([]Reached, len(idx))
	errs := make([]error, len(idx))
	size := m.BNN.Input.Size()
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < max(workers, 1); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i], errs[i] = reach(ctx, m, images[idx[i]*size:(idx[i]+1)*size], idx[i], read[i], p)
			}
		}()
	}
	for i := range idx {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("input %d: %w", idx[i], err)
		}
	}
	return out, ctx.Err()
}

func reach(ctx clue.Stopper, m *clue.Models, x0 []float32, index, read int, p clue.Params) (Reached, error) {
	prob, err := clue.NewProblem(m, x0)
	if err != nil {
		return Reached{}, err
	}
	restarts := make([]int, p.N)
	for k := range restarts {
		restarts[k] = k
	}
	start := time.Now()
	xs, err := clue.Search(ctx, prob, p, restarts, nil)
	if err != nil {
		return Reached{}, err
	}
	r := Reached{Index: index, Read: read, Seconds: time.Since(start).Seconds()}
	best := Nearest(xs)
	for l := range best {
		r.Labels = append(r.Labels, l)
	}
	sort.Ints(r.Labels)
	for _, l := range r.Labels {
		r.Distance, r.Rho = append(r.Distance, best[l].Distance), append(r.Rho, best[l].Rho)
	}
	return r, nil
}

// Nearest is, for each label with an accepted explanation among xs, its nearest one: the smallest d, the first
// of equals in the order of xs.
func Nearest(xs []clue.Explanation) map[int]clue.Explanation {
	best := map[int]clue.Explanation{}
	for _, x := range xs {
		if b, ok := best[x.Label]; x.Accepted && (!ok || x.Distance < b.Distance) {
			best[x.Label] = x
		}
	}
	return best
}

// Group is the inputs (their indices in their set) that read as From and whose δ-CLUEs reach To.
type Group struct {
	From    int   `json:"from"`
	To      int   `json:"to"`
	Members []int `json:"members"`
}

// Groups collects the groups a→b of what δ-CLUE reached, an input in every group of a label it reached, and keeps
// those with at least min members, ordered by a, then b.
func Groups(rs []Reached, min int) []Group {
	byPair := map[[2]int][]int{}
	for _, r := range rs {
		for _, b := range r.Labels {
			byPair[[2]int{r.Read, b}] = append(byPair[[2]int{r.Read, b}], r.Index)
		}
	}
	var gs []Group
	for pair, members := range byPair {
		if len(members) >= min {
			gs = append(gs, Group{From: pair[0], To: pair[1], Members: members})
		}
	}
	sort.Slice(gs, func(i, j int) bool {
		if gs[i].From != gs[j].From {
			return gs[i].From < gs[j].From
		}
		return gs[i].To < gs[j].To
	})
	return gs
}

// MinMembers is the fewest members a group needs to get a translation, and MaxMembers the most a translation is
// learned on (the first by index): the shipped file's choices (cmd/translations).
const (
	MinMembers = 10
	MaxMembers = 64
)
