package clue

import (
	"fmt"

	"github.com/deltaclue/deltaclue/engine"
)

// Frame is one point of a restart's path, decoded and measured as the search saw it.
type Frame struct {
	Step     int       `json:"step"`     // updates taken before this point (0: the start)
	Z        []float32 `json:"z"`        // the latent point
	Image    []float32 `json:"image"`    // μθ(z)
	Label    int       `json:"label"`    // the BNN's most probable class on Image
	HTotal   float32   `json:"h_total"`  // its predictive entropy
	Distance float32   `json:"distance"` // summed L1 distance from x0
	Cost     float32   `json:"cost"`     // L(z)
}

// Trajectory is how one restart found its explanation: every latent point its objective was evaluated at,
// from its start to its result, and a few of them decoded (the paper's figure 5 strips).
type Trajectory struct {
	Restart     int         `json:"restart"`
	Explanation Explanation `json:"explanation"` // the restart's result, as Search gives it
	Path        [][]float32 `json:"path"`        // the latent point at each step: Path[0] the start, the last Explanation.Z
	Frames      []Frame     `json:"frames"`      // about `frames` evenly spaced points of Path, always its first and last
}

// Trace reruns one restart recording its path, which an ordinary search does not pay for, and decodes `frames`
// evenly spaced points of it. Restarts are independent, so it runs the restart alone and gets the same bits as
// the full search (with the diversity term, which couples them, it reruns them all).
func Trace(ctx Stopper, prob *Problem, p Params, restart, frames int) (Trajectory, error) {
	if err := p.Validate(); err != nil {
		return Trajectory{}, err
	}
	if restart < 0 || restart >= p.Restarts() {
		return Trajectory{}, fmt.Errorf("restart %d is outside 0..%d", restart, p.Restarts()-1)
	}
	starts, err := Starts(prob, p)
	if err != nil {
		return Trajectory{}, err
	}
	restarts := []int{restart}
	if p.LambdaD > 0 {
		restarts = make([]int, p.Restarts())
		for i := range restarts {
			restarts[i] = i
		}
	}
	paths := map[int][][]float32{}
	exps, err := run(ctx, prob, p, restarts, starts, nil, paths)
	if err != nil {
		return Trajectory{}, err
	}
	t := Trajectory{Restart: restart, Path: paths[restart]}
	for _, e := range exps {
		if e.Restart == restart {
			t.Explanation = e
		}
	}
	if t.Explanation.Failed != "" || len(t.Path) == 0 {
		return t, nil
	}
	t.Frames, err = prob.frames(p, t.Path, evenly(len(t.Path), frames))
	return t, err
}

// evenly picks about k evenly spaced indices of 0..n-1, always the first and the last.
func evenly(n, k int) []int {
	k = min(max(k, 2), n)
	if n == 1 {
		return []int{0}
	}
	out := make([]int, k)
	for i := range out {
		out[i] = (i*(n-1) + (k-1)/2) / (k - 1) // rounded
	}
	return out
}

// frames evaluates the objective at the chosen points of a path, as the search did.
func (prob *Problem) frames(p Params, path [][]float32, steps []int) ([]Frame, error) {
	obj, release, err := prob.objective(p, len(steps))
	if err != nil {
		return nil, err
	}
	defer release()
	if err := obj.Graph.SetBatch(len(steps)); err != nil {
		return nil, err
	}
	for r, s := range steps {
		copy(obj.Z.Row(r), path[s])
	}
	obj.Forward()
	out := make([]Frame, len(steps))
	for r, s := range steps {
		probs := obj.Pred.ProbsRow(r)
		out[r] = Frame{Step: s, Z: append([]float32(nil), path[s]...), Image: append([]float32(nil), obj.Image.Row(r)...),
			Label: engine.Uncertainty{Probs: probs}.Label(), HTotal: obj.Pred.Total.Data[r], Distance: obj.Distance.Data[r],
			Cost: obj.Cost.Data[r]}
	}
	return out, nil
}
