// The search's settings as the reader typed them: the parameter form, the pool size, and the fold they sit in.

package core

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/deltaclue/deltaclue/engine/clue"
)

// Field is one control of the parameter form: how to show it, read it and write it.
type Field struct {
	Key      string // also the input's id
	Label    string
	Help     string
	Kind     string   // "number", "select" or "checkbox"
	Options  []string // for selects
	Advanced bool
	Rows     bool // shown only for a model of rows
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

func numberField(key, label, help string, advanced bool, get func(*clue.Params) *float64) Field {
	g, s := float(get)
	return Field{Key: key, Label: label, Help: help, Kind: "number", Advanced: advanced, get: g, set: s}
}

func intField(key, label, help string, advanced bool, get func(*clue.Params) *int) Field {
	g, s := integer(get)
	return Field{Key: key, Label: label, Help: help, Kind: "number", Advanced: advanced, get: g, set: s}
}

// Fields are the form's controls, in order; Key matches the parameter's JSON name.
var Fields = []Field{
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
		// No set: choosing a loss rewrites λx in the form (see Settings.Set), and λx is what is read.
	},
	numberField("lambda_x", "λx (distance weight)", "Weight of the L1 distance to the input (0.03 in the paper; summed over pixels unless 'mean per pixel' is on).", false, func(p *clue.Params) *float64 { return &p.LambdaX }),
	{Key: "scheme", Label: "starting points", Help: "S1 random radius · S2 towards the nearest confident training digit of each class · S3 half-normal radius · S4 uniform in the ball · S5 along the gradient of each class's probability · S6 from the amortised answers (GLAM-CLUE's learned moves from the label read), with jitter.",
		Kind: "select", Options: []string{"S1", "S2", "S3", "S4", "S5", "S6"},
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
	{Key: "distance_mean", Label: "distance as mean per pixel", Help: "CLUE's code divides the L1 distance by the number of pixels (784 for the digits); the paper sums it.", Kind: "checkbox", Advanced: true,
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

// LockField is the columns every explanation keeps (clue.Params.Lock), a field of a page for models of rows
// (which adds it to Fields): set beside the input's fields, not in the settings' form (Kind "hidden").
func LockField() Field {
	return Field{Key: "lock", Label: "locked columns", Kind: "hidden",
		get: func(p *clue.Params) string { return string(p.Lock) },
		set: func(p *clue.Params, v string) error { p.Lock = clue.ColumnList(v); return nil }}
}

// SparseField is clue.Params.Sparse, a field of a page for models of rows (which adds it to Fields), shown
// only while the served models read rows.
func SparseField() Field {
	return Field{Key: "sparse", Label: "only the changes that matter", Kind: "checkbox", Rows: true,
		Help: "Give back each explanation's changes the model stays sure without, the smallest first: off, every column the search moved is shown.",
		get:  func(p *clue.Params) string { return strconv.FormatBool(p.Sparse) },
		set:  func(p *clue.Params, v string) error { p.Sparse = v == "true"; return nil }}
}

// AtHand are the parameters shown beside the Explain button; the others are folded under Search settings.
var AtHand = map[string]bool{"delta": true, "n": true}

// MaxPool is the most workers the pool-size field accepts.
const MaxPool = 8

// Settings are the search's settings as the reader typed them, and what they make: the parameters, what is
// wrong with them, the pool size asked for, and whether the fold they sit in is open.
type Settings struct {
	Values map[string]string // by field key, as typed
	Errors map[string]string // by field key: why a value is refused
	Params clue.Params       // what the values make (valid when OK)
	OK     bool

	WorkersIn   string // the pool size, as typed
	WorkersNote string // why a ?workers= in the address was not used
	Open        bool   // the Search settings fold is open

	// defaults are the models' default parameters (clue.DefaultsFor their description), once ShowDefaults has
	// given them: what the form starts from, and the λx that choosing the distance loss restores.
	defaults    clue.Params
	hasDefaults bool
}

// ShowDefaults puts the models' default parameters into the form (the page opened, "Use the defaults") and keeps
// them as the form's defaults.
func (s *Settings) ShowDefaults(d clue.Params) {
	s.defaults, s.hasDefaults = d, true
	s.Show(d)
}

// Defaults are the models' default parameters the form was given (ShowDefaults), or clue.Defaults() before.
func (s *Settings) Defaults() clue.Params {
	if !s.hasDefaults {
		return clue.Defaults()
	}
	return s.defaults
}

// NewSettings is a form showing p.
func NewSettings(p clue.Params) Settings {
	s := Settings{Values: map[string]string{}, Errors: map[string]string{}}
	for _, fl := range Fields {
		s.Values[fl.Key] = fl.get(&p)
	}
	s.read()
	return s
}

// Show puts p into the form (a link opened), keeping the pool size, the fold and the defaults.
func (s *Settings) Show(p clue.Params) {
	t := NewSettings(p)
	s.Values, s.Errors, s.Params, s.OK = t.Values, t.Errors, t.Params, t.OK
	s.Open = s.Open || s.FoldedError()
}

// read reads the values into parameters, filling Errors (by field key) for anything refused; OK is false when
// there is any error.
func (s *Settings) read() {
	p := s.Defaults()
	clear(s.Errors)
	for _, fl := range Fields {
		if fl.set == nil {
			continue
		}
		if err := fl.set(&p, s.Values[fl.Key]); err != nil {
			s.Errors[fl.Key] = err.Error()
		}
	}
	s.Params, s.OK = p, len(s.Errors) == 0
	if !s.OK {
		return
	}
	if err := p.Validate(); err != nil {
		key := "delta"
		if pe, ok := err.(*clue.ParamError); ok {
			key = pe.Field
		}
		s.Errors[key] = err.Error()
		s.OK = false
	}
}

// Set records a value typed into a field and reads the form again. Choosing a loss sets λx: 0 for
// uncertainty; for distance, the models' default λx, or the paper's 0.03 where that is 0 (unless λx is
// already positive); typing λx chooses the loss. A refused setting under the fold opens it.
func (s *Settings) Set(key, value string) {
	s.Values[key] = value
	switch key {
	case "loss":
		if value == "uncertainty" {
			s.Values["lambda_x"] = "0"
		} else if v, err := strconv.ParseFloat(s.Values["lambda_x"], 64); err != nil || v == 0 {
			lambda := s.Defaults().LambdaX
			if lambda == 0 {
				lambda = clue.Defaults().LambdaX
			}
			s.Values["lambda_x"] = strconv.FormatFloat(lambda, 'g', -1, 64)
		}
	case "lambda_x":
		if v, err := strconv.ParseFloat(value, 64); err == nil {
			s.Values["loss"] = map[bool]string{true: "uncertainty", false: "distance"}[v == 0]
		}
	}
	s.read()
	if s.FoldedError() {
		s.Open = true
	}
}

// FoldedError says whether a setting under the fold is refused (the fold must show it).
func (s *Settings) FoldedError() bool {
	for key, msg := range s.Errors {
		if msg != "" && !AtHand[key] {
			return true
		}
	}
	return false
}

// Toggled records the reader opening or closing the fold, and says whether it is open: a refused setting
// inside keeps it open.
func (s *Settings) Toggled(open bool) bool {
	s.Open = open || s.FoldedError()
	return s.Open
}

// Workers is the pool size typed, if it is one (a whole number from 1 to MaxPool).
func (s *Settings) Workers() (int, bool) {
	w, err := strconv.Atoi(strings.TrimSpace(s.WorkersIn))
	return w, err == nil && w >= 1 && w <= MaxPool
}

// WorkersFromQuery reads ?workers=: a whole number from 1 to MaxPool, else the default n with a sentence
// saying so (maxDefault is the most the page starts on its own).
func WorkersFromQuery(v string, n, maxDefault int) (int, string) {
	w, err := strconv.Atoi(strings.TrimSpace(v))
	if err == nil && w >= 1 && w <= MaxPool {
		return w, ""
	}
	shown := v
	if len(shown) > 20 {
		shown = shown[:20] + "…"
	}
	return n, fmt.Sprintf("The address asks for %q workers, which is not a whole number from 1 to %d: using %d "+
		"(this device's cores, at most %d). Change it under Search settings, Advanced options.", shown, MaxPool, n, maxDefault)
}
