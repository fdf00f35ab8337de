// The global view's data: GLAM-CLUE's groups measured on the test split (docs/global), with a strip per group
// and the member digits, served beside the page as web/global.json and fetched when the visitor asks for it.

package app

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
)

// GlobalFile is where the site serves the global view's data.
const GlobalFile = "/web/global.json"

// GlobalData is web/global.json: what `deltaclue global` measured (docs/global/groups.json) with, for each
// group, one member moved along k·t, and the members' digits. global_test.go makes it from the shipped models
// and checks the committed file against them (and rewrites it with -update-global).
type GlobalData struct {
	Uncertain          int           `json:"uncertain"`          // uncertain test digits (H_total above the threshold)
	Searched           int           `json:"searched,omitempty"` // those searched, when fewer (the import's budget)
	Cases              int           `json:"cases"`              // (digit, group) pairs whose δ-CLUE reached the group's label
	Coverage           float64       `json:"coverage"`           // share of the cases the amortised answer makes sure
	MeanDistance       float64       `json:"mean_distance"`
	MeanSearchDistance float64       `json:"mean_search_distance"`
	AnswerMs           float64       `json:"answer_ms"` // per amortised answer
	SearchMs           float64       `json:"search_ms"` // per δ-CLUE search
	Delta              float64       `json:"delta"`
	Ks                 []float32     `json:"ks"` // the strips' scales
	Groups             []GlobalGroup `json:"groups"`
	Digits             []GlobalDigit `json:"digits"` // every member, by test index
}

// GlobalGroup is one group a→b on the test split.
type GlobalGroup struct {
	From               int          `json:"from"`
	To                 int          `json:"to"`
	Train              int          `json:"train"`   // training digits its translation was learned on
	Members            int          `json:"members"` // test digits read as a whose δ-CLUE reached b
	Coverage           float64      `json:"coverage"`
	MeanDistance       float64      `json:"mean_distance"`        // d of the sure answers
	MeanSearchDistance float64      `json:"mean_search_distance"` // d of δ-CLUE's cheapest b, same members
	MeanShift          float64      `json:"mean_shift"`           // ‖k·t‖ of the sure answers
	Strip              GlobalStrip  `json:"strip"`
	Cases              []GlobalCase `json:"cases"`
}

// GlobalStrip is one member moved along the group's translation: μθ(z0 + k·t) for each k of GlobalData.Ks.
type GlobalStrip struct {
	Digit  int       `json:"digit"`
	Frames []string  `json:"frames"` // PNG data URLs, dark on light
	Labels []int     `json:"labels"` // the BNN's label on each frame
	H      []float32 `json:"h"`      // its H_total
}

// GlobalCase is one member's amortised answer.
type GlobalCase struct {
	Digit    int     `json:"digit"`
	Sure     bool    `json:"sure"`
	K        float32 `json:"k"`
	Distance float32 `json:"distance"`
}

// GlobalDigit is a member digit of the test split.
type GlobalDigit struct {
	Index  int     `json:"index"`
	Label  int     `json:"label"` // the true label
	Read   int     `json:"read"`  // the BNN's
	H      float32 `json:"h"`
	Pixels string  `json:"pixels"` // the digit's mnist.Pixels bytes (k/255), base64
	Thumb  string  `json:"thumb"`  // PNG data URL
}

// ParseGlobal reads web/global.json, checking what the page relies on.
func ParseGlobal(b []byte) (*GlobalData, error) {
	var g GlobalData
	if err := json.Unmarshal(b, &g); err != nil {
		return nil, fmt.Errorf("the groups' data is not valid JSON: %v", err)
	}
	digits := map[int]bool{}
	size := served().Size()
	for _, d := range g.Digits {
		if px, err := base64.StdEncoding.DecodeString(d.Pixels); err != nil || len(px) != size {
			return nil, fmt.Errorf("the groups' data: item %d has not %d values", d.Index, size)
		}
		digits[d.Index] = true
	}
	for _, gr := range g.Groups {
		if len(gr.Strip.Frames) != len(g.Ks) || len(gr.Strip.Labels) != len(g.Ks) || len(gr.Strip.H) != len(g.Ks) {
			return nil, fmt.Errorf("the groups' data: group %d→%d has a strip of %d frames for %d scales", gr.From, gr.To, len(gr.Strip.Frames), len(g.Ks))
		}
		for _, c := range append([]GlobalCase{{Digit: gr.Strip.Digit}}, gr.Cases...) {
			if !digits[c.Digit] {
				return nil, fmt.Errorf("the groups' data: group %d→%d names digit %d, which it does not hold", gr.From, gr.To, c.Digit)
			}
		}
	}
	return &g, nil
}

// digit returns the member digit with a test index.
func (g *GlobalData) digit(index int) *GlobalDigit {
	for i := range g.Digits {
		if g.Digits[i].Index == index {
			return &g.Digits[i]
		}
	}
	return nil
}
