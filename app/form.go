package app

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/deltaclue/deltaclue/engine/clue"
)

// field is one control of the parameter form: how to show it, read it and write it.
type field struct {
	Key      string // also the input's id
	Label    string
	Help     string
	Kind     string   // "number", "select" or "checkbox"
	Options  []string // for selects
	Advanced bool
	get      func(p *clue.Params) string
	set      func(p *clue.Params, v string) error
}

func float(get func(*clue.Params) *float64) (func(*clue.Params) string, func(*clue.Params, string) error) {
	return func(p *clue.Params) string { return strconv.FormatFloat(*get(p), 'g', -1, 64) },
		func(p *clue.Params, v string) error {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				return fmt.Errorf("%q is not a number", v)
			}
			*get(p) = f
			return nil
		}
}

func integer(get func(*clue.Params) *int) (func(*clue.Params) string, func(*clue.Params, string) error) {
	return func(p *clue.Params) string { return strconv.Itoa(*get(p)) },
		func(p *clue.Params, v string) error {
			i, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				return fmt.Errorf("%q is not a whole number", v)
			}
			*get(p) = i
			return nil
		}
}

func numberField(key, label, help string, advanced bool, get func(*clue.Params) *float64) field {
	g, s := float(get)
	return field{Key: key, Label: label, Help: help, Kind: "number", Advanced: advanced, get: g, set: s}
}

func intField(key, label, help string, advanced bool, get func(*clue.Params) *int) field {
	g, s := integer(get)
	return field{Key: key, Label: label, Help: help, Kind: "number", Advanced: advanced, get: g, set: s}
}

// fields are the form's controls, in order; Key matches the parameter's JSON name.
var fields = []field{
	numberField("delta", "δ (radius)", "How far in latent space an explanation may move from the input's code. Larger: lower uncertainty, more labels, less like the input.", false, func(p *clue.Params) *float64 { return &p.Delta }),
	intField("n", "n (restarts)", "How many searches start from different points; each gives one explanation.", false, func(p *clue.Params) *int { return &p.N }),
	{Key: "loss", Label: "loss", Help: "Uncertainty only, or uncertainty plus λx times the distance to the input.", Kind: "select",
		Options: []string{"distance", "uncertainty"},
		get: func(p *clue.Params) string {
			if p.LambdaX == 0 {
				return "uncertainty"
			}
			return "distance"
		},
		// No set: choosing a loss rewrites λx in the form (see form.set), and λx is what is read.
	},
	numberField("lambda_x", "λx (distance weight)", "Weight of the L1 distance to the input (0.03 in the paper; summed over pixels unless 'mean per pixel' is on).", false, func(p *clue.Params) *float64 { return &p.LambdaX }),
	{Key: "scheme", Label: "starting points", Help: "S1 random radius · S2 towards the nearest confident training digit of each class · S3 half-normal radius · S4 uniform in the ball · S5 along the gradient of each class's probability.",
		Kind: "select", Options: []string{"S1", "S2", "S3", "S4", "S5"},
		get: func(p *clue.Params) string { return p.Scheme.String() },
		set: func(p *clue.Params, v string) error { return p.Scheme.UnmarshalText([]byte(v)) }},
	numberField("h_threshold", "H threshold (nats)", "Keep an explanation only if the model's predictive entropy on it is below this.", false, func(p *clue.Params) *float64 { return &p.HThreshold }),
	intField("max_steps", "max steps", "Most gradient steps per restart.", false, func(p *clue.Params) *int { return &p.MaxSteps }),
	{Key: "seed", Label: "seed", Help: "Same input, parameters and seed: the same explanations, bit for bit.", Kind: "number",
		get: func(p *clue.Params) string { return strconv.FormatUint(p.Seed, 10) },
		set: func(p *clue.Params, v string) error {
			s, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
			if err != nil {
				return fmt.Errorf("%q is not a whole number ≥ 0", v)
			}
			p.Seed = s
			return nil
		}},
	numberField("w_total", "weight of total H", "The loss's weight on the total predictive entropy.", true, func(p *clue.Params) *float64 { return &p.WTotal }),
	numberField("w_aleatoric", "weight of aleatoric H", "Weight on the aleatoric part (mean entropy of the MC samples).", true, func(p *clue.Params) *float64 { return &p.WAleatoric }),
	numberField("w_epistemic", "weight of epistemic H", "Weight on the epistemic part (mutual information).", true, func(p *clue.Params) *float64 { return &p.WEpistemic }),
	{Key: "distance_mean", Label: "distance as mean per pixel", Help: "CLUE's code divides the L1 distance by 784; the paper sums it.", Kind: "checkbox", Advanced: true,
		get: func(p *clue.Params) string { return strconv.FormatBool(p.DistanceMean) },
		set: func(p *clue.Params, v string) error { p.DistanceMean = v == "true"; return nil }},
	numberField("lambda_y", "λy (prediction weight)", "Weight of the cross-entropy to the model's prediction on the input.", true, func(p *clue.Params) *float64 { return &p.LambdaY }),
	numberField("lambda_d", "λ_D (diversity)", "Joint diversity term −λ_D·log det K over the set (∇-CLUE); couples the restarts, so the search runs in one worker.", true, func(p *clue.Params) *float64 { return &p.LambdaD }),
	{Key: "rho", Label: "latent distance ρ", Help: "L2 (the paper) or L∞.", Kind: "select", Options: []string{"l2", "linf"}, Advanced: true,
		get: func(p *clue.Params) string { b, _ := p.Rho.MarshalText(); return string(b) },
		set: func(p *clue.Params, v string) error { return p.Rho.UnmarshalText([]byte(v)) }},
	{Key: "constraint", Label: "constraint", Help: "project: back onto the ball after every step (the paper); filter: search freely, keep results inside the ball.", Kind: "select", Options: []string{"project", "filter"}, Advanced: true,
		get: func(p *clue.Params) string { b, _ := p.Constraint.MarshalText(); return string(b) },
		set: func(p *clue.Params, v string) error { return p.Constraint.UnmarshalText([]byte(v)) }},
	numberField("learning_rate", "learning rate", "Adam's step size.", true, func(p *clue.Params) *float64 { return &p.LearningRate }),
	{Key: "convergence", Label: "convergence rule", Help: "spread: stop when the last window+1 costs lie within the tolerance, keep that point · clue: CLUE's code, compare only the costs window steps apart, keep the point window−1 steps back.", Kind: "select", Options: []string{"spread", "clue"}, Advanced: true,
		get: func(p *clue.Params) string { return p.Convergence.String() },
		set: func(p *clue.Params, v string) error { return p.Convergence.UnmarshalText([]byte(v)) }},
	intField("window", "convergence window", "Steps over which the cost must have settled.", true, func(p *clue.Params) *int { return &p.Window }),
	numberField("rel_tol", "relative tolerance", "Settled: moved less than this fraction of the initial cost …", true, func(p *clue.Params) *float64 { return &p.RelTol }),
	numberField("abs_tol", "absolute tolerance", "… or less than this.", true, func(p *clue.Params) *float64 { return &p.AbsTol }),
	intField("min_steps", "min steps", "Steps before convergence is checked.", true, func(p *clue.Params) *int { return &p.MinSteps }),
	numberField("dedup_l1", "duplicate distance", "Explanations within this L1 image distance of a cheaper one count as duplicates.", true, func(p *clue.Params) *float64 { return &p.DedupL1 }),
}

// form is the parameter form's state: what the user typed, and what is wrong with it.
type form struct {
	values map[string]string
	errors map[string]string
}

func newForm(p clue.Params) form {
	f := form{values: map[string]string{}, errors: map[string]string{}}
	for _, fl := range fields {
		f.values[fl.Key] = fl.get(&p)
	}
	return f
}

// params reads the form into parameters, filling f.errors (by field key) for anything refused; ok is false
// when there is any error.
func (f *form) params() (clue.Params, bool) {
	p := clue.Defaults()
	clear(f.errors)
	for _, fl := range fields {
		if fl.set == nil {
			continue
		}
		if err := fl.set(&p, f.values[fl.Key]); err != nil {
			f.errors[fl.Key] = err.Error()
		}
	}
	if len(f.errors) > 0 {
		return p, false
	}
	if err := p.Validate(); err != nil {
		key := "delta"
		if pe, ok := err.(*clue.ParamError); ok {
			key = pe.Field
		}
		f.errors[key] = err.Error()
		return p, false
	}
	return p, true
}

// set records a value typed into a field. Choosing a loss sets λx: 0 for uncertainty, the paper's 0.03 for
// distance (unless λx already has a non-zero value); the loss shown always follows λx.
func (f *form) set(key, value string) {
	f.values[key] = value
	switch key {
	case "loss":
		if value == "uncertainty" {
			f.values["lambda_x"] = "0"
		} else if v, err := strconv.ParseFloat(f.values["lambda_x"], 64); err != nil || v == 0 {
			f.values["lambda_x"] = "0.03"
		}
	case "lambda_x":
		if v, err := strconv.ParseFloat(value, 64); err == nil {
			f.values["loss"] = map[bool]string{true: "uncertainty", false: "distance"}[v == 0]
		}
	}
}
