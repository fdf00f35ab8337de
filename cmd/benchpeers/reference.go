//go:build !js

package main

// The engine's own answers to the workload, against which every peer is checked: the first step (the cost and
// its gradient at each start, from the engine's objective, engine.NewObjective, as clue.Search builds it) and
// the search's results (clue.Search natively: each restart's final point and cost).

import (
	"context"
	"fmt"
	"math"

	"github.com/deltaclue/deltaclue/engine"
	"github.com/deltaclue/deltaclue/engine/clue"
)

// Outcome is what an implementation reports for the workload: the first step of the first Checks restarts,
// and the search's final points, costs, entropies and labels, per restart.
type Outcome struct {
	FirstCost []float64   `json:"first_cost"` // L at each start
	FirstGrad [][]float64 `json:"first_grad"` // ∂L/∂z at each start
	FinalZ    [][]float64 `json:"final_z"`    // z after Steps updates
	FinalCost []float64   `json:"final_cost"` // L there
	FinalH    []float64   `json:"final_h"`    // H_total there
	Labels    []int       `json:"labels"`     // argmax p̄ there
}

// reference computes the engine's outcome: the objective at the starts (one batch, as the search's first pass),
// and the whole search natively.
func reference(ctx context.Context, w *Workload) (*Outcome, error) {
	h := w.Header
	m := w.Models
	p := w.Params
	obj, err := engine.NewObjective(m.VAE, m.BNN, h.Checks, engine.LossWeights{Total: float32(p.WTotal), LambdaX: float32(p.LambdaX)},
		w.Prob.X0, w.Prob.Pred0.Probs)
	if err != nil {
		return nil, err
	}
	if err := obj.Graph.SetBatch(h.Checks); err != nil {
		return nil, err
	}
	d := h.Latent
	copy(obj.Z.Data, w.StartsF32()[:h.Checks*d])
	obj.Forward()
	obj.Backward()
	o := &Outcome{}
	for r := range h.Checks {
		o.FirstCost = append(o.FirstCost, float64(obj.Cost.Data[r]))
		g := make([]float64, d)
		for k := range g {
			g[k] = float64(obj.Z.Grad[r*d+k])
		}
		o.FirstGrad = append(o.FirstGrad, g)
	}
	exps, err := clue.Search(ctx, w.Prob, p, nil, nil)
	if err != nil {
		return nil, err
	}
	if len(exps) != h.Search.N {
		return nil, fmt.Errorf("the engine's search gave %d explanations for %d restarts", len(exps), h.Search.N)
	}
	for _, e := range exps {
		if e.Failed != "" {
			return nil, fmt.Errorf("the engine's restart %d failed: %s", e.Restart, e.Failed)
		}
		if e.Steps != h.Search.Steps {
			return nil, fmt.Errorf("the engine's restart %d stopped after %d steps, not %d: the search must not stop early", e.Restart, e.Steps, h.Search.Steps)
		}
		z := make([]float64, len(e.Z))
		for k, v := range e.Z {
			z[k] = float64(v)
		}
		o.FinalZ = append(o.FinalZ, z)
		o.FinalCost = append(o.FinalCost, float64(e.Cost))
		o.FinalH = append(o.FinalH, float64(e.HTotal))
		o.Labels = append(o.Labels, e.Label)
	}
	return o, nil
}

// Tolerances of the checks.
const (
	// firstTol bounds the first step's disagreement: |Δcost|/|cost| and ‖Δgrad‖/‖grad‖ of each restart, float32
	// arithmetic in another order.
	firstTol = 1e-4
	// finalCostTol bounds the median over restarts of |Δcost|/|cost| after the whole search, and finalLabels the
	// share of restarts whose final label agrees: 100 Adam steps amplify float32 rounding, and a restart near a
	// ridge may end in another basin, so the results are compared as a set.
	finalCostTol = 1e-2
	finalLabels  = 0.9
	// finalMeanTol bounds the relative difference of the mean final cost over all restarts.
	finalMeanTol = 1e-2
)

// Agreement is how a peer's outcome compares with the engine's.
type Agreement struct {
	Checks        int     `json:"checks"`         // restarts whose first step was compared
	FirstCostErr  float64 `json:"first_cost_err"` // max over them of |Δcost|/|cost|
	FirstGradErr  float64 `json:"first_grad_err"` // max of ‖Δgrad‖/‖grad‖
	FinalCostMed  float64 `json:"final_cost_med"` // median over restarts of |Δcost|/|cost| after the search
	FinalCostMax  float64 `json:"final_cost_max"` // max of the same
	FinalMeanErr  float64 `json:"final_mean_err"` // |Δ mean cost| / mean cost
	FinalZMed     float64 `json:"final_z_med"`    // median of ‖Δz‖ (δ is the ball's radius)
	FinalZMax     float64 `json:"final_z_max"`    // max of ‖Δz‖
	LabelsAgree   float64 `json:"labels_agree"`   // share of restarts with the same final label
	EngineMeanL   float64 `json:"engine_mean_l"`  // the engine's mean final cost
	PeerMeanL     float64 `json:"peer_mean_l"`    // the peer's
	OK            bool    `json:"ok"`             // within every tolerance
	Disagreements string  `json:"disagreements,omitempty"`
}

// compare measures a peer's outcome against the engine's.
func compare(ref, got *Outcome, n, checks int) Agreement {
	a := Agreement{Checks: checks}
	var bad []string
	badf := func(format string, args ...any) { bad = append(bad, fmt.Sprintf(format, args...)) }
	if len(got.FirstCost) < checks || len(got.FirstGrad) < checks {
		badf("reported the first step of %d restarts, not %d", len(got.FirstCost), checks)
	} else {
		for r := range checks {
			a.FirstCostErr = math.Max(a.FirstCostErr, relErr(got.FirstCost[r], ref.FirstCost[r]))
			a.FirstGradErr = math.Max(a.FirstGradErr, vecRelErr(got.FirstGrad[r], ref.FirstGrad[r]))
		}
		if !(a.FirstCostErr <= firstTol) {
			badf("first-step cost differs by %.2g (relative), more than %g", a.FirstCostErr, firstTol)
		}
		if !(a.FirstGradErr <= firstTol) {
			badf("first-step gradient differs by %.2g (relative norm), more than %g", a.FirstGradErr, firstTol)
		}
	}
	if len(got.FinalCost) != n || len(got.FinalZ) != n || len(got.Labels) != n {
		badf("reported %d final costs, %d points and %d labels for %d restarts", len(got.FinalCost), len(got.FinalZ), len(got.Labels), n)
	} else {
		costErrs, zErrs := make([]float64, n), make([]float64, n)
		same := 0
		for r := range n {
			costErrs[r] = relErr(got.FinalCost[r], ref.FinalCost[r])
			zErrs[r] = vecDist(got.FinalZ[r], ref.FinalZ[r])
			a.EngineMeanL += ref.FinalCost[r] / float64(n)
			a.PeerMeanL += got.FinalCost[r] / float64(n)
			if got.Labels[r] == ref.Labels[r] {
				same++
			}
		}
		a.FinalCostMed, a.FinalCostMax = median(costErrs), maxOf(costErrs)
		a.FinalZMed, a.FinalZMax = median(zErrs), maxOf(zErrs)
		a.FinalMeanErr = relErr(a.PeerMeanL, a.EngineMeanL)
		a.LabelsAgree = float64(same) / float64(n)
		if !(a.FinalCostMed <= finalCostTol) {
			badf("final costs differ by %.2g (median relative), more than %g", a.FinalCostMed, finalCostTol)
		}
		if !(a.FinalMeanErr <= finalMeanTol) {
			badf("the mean final cost differs by %.2g (relative), more than %g", a.FinalMeanErr, finalMeanTol)
		}
		if !(a.LabelsAgree >= finalLabels) {
			badf("only %.0f%% of the restarts end with the engine's label (want %.0f%%)", 100*a.LabelsAgree, 100*finalLabels)
		}
	}
	a.OK = len(bad) == 0
	if !a.OK {
		a.Disagreements = joinSemi(bad)
	}
	return a
}

func relErr(got, want float64) float64 {
	if got == want {
		return 0
	}
	return math.Abs(got-want) / math.Max(math.Abs(want), 1e-12)
}

func vecRelErr(got, want []float64) float64 {
	if len(got) != len(want) {
		return math.Inf(1)
	}
	var d, n float64
	for i := range want {
		d += (got[i] - want[i]) * (got[i] - want[i])
		n += want[i] * want[i]
	}
	if d == 0 {
		return 0
	}
	return math.Sqrt(d) / math.Max(math.Sqrt(n), 1e-12)
}

func vecDist(a, b []float64) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	var d float64
	for i := range a {
		d += (a[i] - b[i]) * (a[i] - b[i])
	}
	return math.Sqrt(d)
}

func maxOf(xs []float64) float64 {
	m := 0.0
	for _, x := range xs {
		if x > m || math.IsNaN(x) {
			m = x
		}
	}
	return m
}

func joinSemi(xs []string) string {
	s := ""
	for i, x := range xs {
		if i > 0 {
			s += "; "
		}
		s += x
	}
	return s
}
