package app

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/app/core"
	"github.com/deltaclue/deltaclue/app/raster"
	"github.com/deltaclue/deltaclue/app/sharelink"
	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/weights"

	"github.com/deltaclue/deltaclue/internal/plural"
)

// The models the site serves, as their description says (weights.Description): the input's shape and how it
// is drawn, the classes' names, what one input is called. cmd/site passes the description's page part (not its
// networks) in go-app's environment, so that the page is laid out for the models before their bundle arrives;
// the workers then report the name of what they run, and a mismatch is refused (pool.go).

// ModelEnv is the environment variable (go-app's, set by Handler) holding the served models' description.
const ModelEnv = "DELTACLUE_MODEL"

// pageDescription is the part of a description the page reads, as cmd/site writes it into go-app's environment.
type pageDescription struct {
	Format      int           `json:"format"`
	Name        string        `json:"name"`
	Title       string        `json:"title"`
	Input       weights.Input `json:"input"`
	Classes     []string      `json:"classes"`
	Uncertainty string        `json:"uncertainty"`
	Samples     int           `json:"samples"`
	Gallery     bool          `json:"gallery,omitempty"` // the site serves a gallery of the models' test items
}

// PageDescription is the part of d the page reads: the models' name, title, input and classes, and whether the
// site serves a gallery of their test items (GalleryFile).
func PageDescription(d *weights.Description, gallery bool) string {
	b, _ := json.Marshal(pageDescription{d.Format, d.Name, d.Title, d.Input, d.Classes, d.Classifier.Uncertainty, d.Classifier.Samples, gallery})
	return string(b)
}

// pageModel is the served models as the page shows them.
type pageModel struct {
	weights.Input
	name, title string
	classes     []string
	uncertainty string // the classifier's: weights.UncertaintyMCDropout or UncertaintyEnsemble
	samples     int    // its dropout masks or members
	gallery     bool   // the site serves a gallery of their test items
	err         string // why the environment's description could not be read ("" if it was)
}

var (
	servedOnce sync.Once
	servedDesc pageModel
)

// served is the models the site serves, as the environment's description says (cmd/site and Handler put it
// there; the tests' TestMain too).
func served() *pageModel {
	servedOnce.Do(func() { servedDesc = readModel(app.Getenv(ModelEnv)) })
	return &servedDesc
}

// readModel reads a page description. One that is missing or not sound gives a 1×1 stand-in, so that the page
// still lays out, with the reason why (err), which the page shows and nothing runs on. The page does not fall
// back on the digits' description: it would link their whole description and its checks (20 KB gzipped).
func readModel(s string) pageModel {
	m := pageModel{Input: weights.Input{Height: 1, Width: 1, Channels: 1, Range: [2]float64{0, 1}, Drawing: weights.DrawInk},
		name: "unknown", classes: []string{"?", "?"}}
	if s == "" {
		m.err = "The page was built without the description of its models: the site is damaged; rebuild it with cmd/site."
		return m
	}
	var got pageModel
	var raw pageDescription
	err := json.Unmarshal([]byte(s), &raw)
	if err == nil {
		got = pageModel{Input: raw.Input, name: raw.Name, title: raw.Title, classes: raw.Classes, uncertainty: raw.Uncertainty, samples: raw.Samples, gallery: raw.Gallery}
		err = got.check()
	}
	if err != nil {
		m.err = "The page's description of its models is damaged (" + err.Error() + "): reload the page; if this persists, the site is damaged."
		return m
	}
	return got
}

// check is what the page relies on of a description (weights.Description.Check has checked the whole of it
// when the site was built).
func (m pageModel) check() error {
	in := m.Input
	switch {
	case !weights.ValidName(m.name):
		return fmt.Errorf("the name %q", m.name)
	case in.Height < 1 || in.Width < 1 || in.Height > weights.MaxInputSide || in.Width > weights.MaxInputSide:
		return fmt.Errorf("an input of %d×%d", in.Height, in.Width)
	case in.Channels != 1 && in.Channels != 3:
		return fmt.Errorf("%d channels", in.Channels)
	case len(m.classes) < 2:
		return fmt.Errorf("%d classes", len(m.classes))
	}
	return nil
}

// class is class k's name.
func (m *pageModel) class(k int) string {
	if k >= 0 && k < len(m.classes) {
		return m.classes[k]
	}
	return fmt.Sprint(k)
}

// noun is what one input is called ("digit"); nouns is its plural.
func (m *pageModel) noun() string {
	if m.Noun == "" {
		return "image"
	}
	return m.Noun
}

func (m *pageModel) nouns() string { return plural.Word(2, m.noun()) }

// aNoun is the noun with its article: "a digit", "an image".
func (m *pageModel) aNoun() string { return plural.A(m.noun()) }

// colour says whether inputs are drawn in colour (three channels) rather than as ink.
func (m *pageModel) colour() bool { return m.Channels == 3 }

// magnification is the whole factor that shows an input about side px on its longer side (at least 1).
func (m *pageModel) magnification(side int) int {
	return max(1, (side+max(m.Height, m.Width)/2)/max(m.Height, m.Width))
}

// words are the models' words for clue's sentences.
func (m *pageModel) words() clue.Words { return clue.NewWords(m.classes, m.noun()) }

// hasGallery says whether the site serves a gallery of the models' test items (none when they have none).
func (m *pageModel) hasGallery() bool { return m.gallery }

// hasGlobal says whether the page has a global view: its groups (web/global.json) are the digits'.
func (m *pageModel) hasGlobal() bool { return m.name == sharelink.DigitsModels }

// classifier says in words how the classifier knows its uncertainty.
func (m *pageModel) classifier() string {
	if m.uncertainty == weights.UncertaintyEnsemble {
		return fmt.Sprintf("a deep ensemble of %d networks", m.samples)
	}
	return fmt.Sprintf("MC dropout with %d fixed dropout masks", m.samples)
}

// linkModels are the models as a share link names them: the workers' name and fingerprint, the description's
// input shape.
func (e *Explainer) linkModels() core.Models {
	m := served()
	return core.Models{Name: e.models.name, Fingerprint: e.models.fingerprint, Height: m.Height, Width: m.Width, Channels: m.Channels}
}

// rasterShape is the input's shape for package raster.
func (m *pageModel) rasterShape() raster.Shape {
	return raster.Shape{Height: m.Height, Width: m.Width, Channels: m.Channels}
}
