package sharelink

import "github.com/deltaclue/deltaclue/engine/clue"

// CostlyRatio is how many times the default's work a link may ask for before the page asks first, and before
// which a search worker runs a link on its own as the page loads (searchworker.Worker.EarlyLink).
const CostlyRatio = 10

// Work is a search's size in restart-steps at most (each restart runs at most max_steps steps), a sweep's
// searches included.
func Work(p clue.Params, sweep clue.Ladder) float64 {
	w := float64(p.Restarts()) * float64(p.MaxSteps)
	for i := range sweep.Radii {
		w += float64(sweep.AtRadius(p, i).Restarts()) * float64(p.MaxSteps)
	}
	return w
}

// WorkRatio is the link's work over the default's: the models' default parameters (clue.DefaultsFor their
// description), and the default sweep if the link has a sweep.
func (s State) WorkRatio(defaults clue.Params) float64 {
	var base clue.Ladder
	if len(s.Sweep.Radii) > 0 {
		base = clue.DefaultLadder()
	}
	return Work(s.Params, s.Sweep) / Work(defaults, base)
}

// Costly reports whether the link asks for more than CostlyRatio times the work of the models' defaults.
func (s State) Costly(defaults clue.Params) bool { return s.WorkRatio(defaults) > CostlyRatio }
