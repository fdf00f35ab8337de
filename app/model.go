package app

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/app/inputkind"
	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/figures"
	"github.com/deltaclue/deltaclue/engine/clue/sharelink"
	"github.com/deltaclue/deltaclue/weights"

	"github.com/deltaclue/deltaclue/internal/plural"
)

// The models the site serves, as their descriptions say (weights.Description): the input's shape and how it is
// drawn, the classes' names, what one input is called. cmd/site passes each description's page part (not its
// networks) in go-app's environment, so that the page is laid out for the models before their bundle arrives;
// the workers then report the name of what they run, and a mismatch is refused (pool.go).
//
// A site may serve several models (the digits and Fashion-MNIST's clothes): the first is the default, its files
// in web/, each other's in web/<name>/. A page runs one of them, the one its address names (?models=fashion;
// none: the default), and a visitor who chooses another loads the page again with its name: each model's
// state is the page's whole state, and a first visit downloads only the chosen model's files.

// ModelsEnv is the environment variable (go-app's, set by Handler) holding the served models' descriptions.
const ModelsEnv = "DELTACLUE_MODELS"

// ModelsQuery is the address's query parameter that names the models a page runs.
const ModelsQuery = "models"

// pageDescription is the part of a description the page reads, as cmd/site writes it into go-app's environment,
// with where the site serves the models' files.
type pageDescription struct {
	Format      int           `json:"format"`
	Name        string        `json:"name"`
	Title       string        `json:"title"`
	Input       weights.Input `json:"input"`
	Classes     []string      `json:"classes"`
	Uncertainty string        `json:"uncertainty"`
	Samples     int           `json:"samples"`
	Gallery     bool          `json:"gallery,omitempty"` // the site serves a gallery of the models' test items
	Global      bool          `json:"global,omitempty"`  // the site serves the global view's groups
	Dir         string        `json:"dir,omitempty"`     // the models' files are under web/<dir> ("" or "name/")
	SHA256      string        `json:"sha256,omitempty"`  // the bundle's (models.bin) SHA-256, which the page checks
	Bytes       int           `json:"bytes,omitempty"`   // and its size
	App         bool          `json:"app,omitempty"`     // the site serves a page of their own (app.wasm in their folder)
	// Search are the models' own search defaults (weights.Description.Search; none: the digits').
	Search *weights.SearchDefaults `json:"search,omitempty"`
	// Regression is a predictor's target (weights.Description.Regression; none for a classifier).
	Regression *weights.Regression `json:"regression,omitempty"`
}

// SiteModels is one of the models a site serves, as Handler describes it to the page.
type SiteModels struct {
	Description *weights.Description
	Gallery     bool   // the site serves a gallery of their test items (gallery.File)
	Global      bool   // the site serves their global view's groups (GlobalFile)
	SHA256      string // their bundle's SHA-256, hex
	Bytes       int    // their bundle's size
	// App says the site serves a page of their own (app.wasm in their folder): models of rows on a site whose
	// default models read images, whose page leaves the table's kind out.
	App bool
}

// Dir is where the site serves the i-th models' files, under web/: the default (first) in web/ itself.
func (s SiteModels) Dir(i int) string {
	if i == 0 {
		return ""
	}
	return s.Description.Name + "/"
}

// PageDescriptions is what the page reads of the served models (ModelsEnv): each one's name, title, input and
// classes, what the site serves of them and where.
//
// Models whose page is their own (App) are described there in full (OwnDescription), and here only as the
// choice of models needs them: a first visit's app.js does not carry a table's columns.
func PageDescriptions(models []SiteModels) string {
	var list []pageDescription
	for i, m := range models {
		d := m.pageDescription(i)
		if m.App {
			d = pageDescription{Format: d.Format, Name: d.Name, Title: d.Title, Input: weights.Input{Kind: d.Input.Kind, Noun: d.Input.Noun},
				Classes: d.Classes, Dir: d.Dir, App: true}
		}
		list = append(list, d)
	}
	b, _ := json.Marshal(list)
	return string(b)
}

// OwnDescription is the full page description of the i-th models, whose page is their own, as cmd/site builds it
// into that page (-X …/app.ownModels=…): JSON, base64 (a linker flag's value has no quotes or spaces).
func OwnDescription(m SiteModels, i int) string {
	b, _ := json.Marshal(m.pageDescription(i))
	return base64.StdEncoding.EncodeToString(b)
}

func (m SiteModels) pageDescription(i int) pageDescription {
	d := m.Description
	return pageDescription{d.Format, d.Name, d.Title, d.Input, d.Classes, d.Classifier.Uncertainty,
		d.Classifier.Samples, m.Gallery, m.Global, m.Dir(i), m.SHA256, m.Bytes, m.App, d.Search, d.Regression}
}

// pageModel is the served models as the page shows them.
type pageModel struct {
	weights.Input
	name, title string
	classes     []string
	uncertainty string                  // the classifier's: weights.UncertaintyMCDropout or UncertaintyEnsemble
	samples     int                     // its dropout masks or members
	gallery     bool                    // the site serves a gallery of their test items
	global      bool                    // the site serves their global view's groups
	dir         string                  // their files are under web/<dir>
	sha256      string                  // their bundle's SHA-256 ("": not checked)
	bytes       int                     // its size
	app         bool                    // the site serves a page of their own (app.wasm in their folder)
	isDefault   bool                    // the site's first models, which an address without ?models= runs
	err         string                  // why the environment's description could not be read ("" if it was)
	search      *weights.SearchDefaults // their own search defaults (nil: the digits')
	regression  *weights.Regression     // a predictor's target (nil for a classifier)
	kind        inputkind.Kind          // their kind of input, made when first asked for (input)
}

var (
	servedOnce sync.Once
	servedDesc pageModel
	// servedAll is every model the site serves, in its order; servedNote says why the page runs another than
	// its address asked for ("" when it runs those).
	servedAll  []pageModel
	servedNote string
)

// served is the models the page runs: those of the site (its environment's descriptions, which cmd/site and
// Handler put there; the tests' TestMain too) that its address names, or the default.
func served() *pageModel {
	servedOnce.Do(func() { servedDesc = chooseModels(app.Getenv(ModelsEnv), modelsInAddress()) })
	return &servedDesc
}

// modelsInAddress is the models the page's address names (?models=), "" for none or on the server.
func modelsInAddress() string {
	if app.IsServer {
		return ""
	}
	// The browser's own parser: net/url's query parser would cost app.wasm 3 KB.
	v := app.Window().Get("URLSearchParams").New(app.Window().Get("location").Get("search")).Call("get", ModelsQuery)
	if v.Type() != app.TypeString {
		return ""
	}
	return v.String()
}

// chooseModels reads the site's descriptions and picks the models named want ("": the default). Models the
// site does not serve give the default, and servedNote says so.
func chooseModels(env, want string) pageModel {
	servedAll, servedNote = readModels(env), ""
	if want != "" {
		for _, m := range servedAll {
			if m.name == want && !(m.IsTable() && len(m.Columns) == 0) { // a table listed, not described: not this page's
				return m
			}
		}
		if servedAll[0].err == "" {
			servedNote = fmt.Sprintf("This page cannot run %q models (the site serves %s): it runs the %s.", want, servedNames(), servedAll[0].title)
		}
	}
	return servedAll[0]
}

// servedNames lists the served models' names in words: "digits and fashion".
func servedNames() string {
	var names []string
	for _, m := range servedAll {
		names = append(names, strconv.Quote(m.name))
	}
	return plural.List(names)
}

// readModels reads the site's page descriptions. One that is missing or not sound gives a 1×1 stand-in, so that
// the page still lays out, with the reason why (err), which the page shows and nothing runs on. The page does
// not fall back on the digits' description: it would link their whole description and its checks (20 KB
// gzipped).
func readModels(s string) []pageModel {
	m := pageModel{Input: weights.Input{Height: 1, Width: 1, Channels: 1, Range: [2]float64{0, 1}, Drawing: weights.DrawInk},
		name: "unknown", classes: []string{"?", "?"}, isDefault: true}
	if s == "" {
		m.err = "The page was built without the description of its models: the site is damaged; rebuild it with cmd/site."
		return []pageModel{m}
	}
	var raw []pageDescription
	err := json.Unmarshal([]byte(s), &raw)
	if err == nil && len(raw) == 0 {
		err = fmt.Errorf("no models")
	}
	var all []pageModel
	for i, r := range raw {
		if err != nil {
			break
		}
		if !tablesLeftOut && r.App {
			r, err = ownDescription(r)
		}
		got := pageModel{Input: r.Input, name: r.Name, title: r.Title, classes: r.Classes, uncertainty: r.Uncertainty, samples: r.Samples,
			gallery: r.Gallery, global: r.Global, dir: r.Dir, sha256: r.SHA256, bytes: r.Bytes, app: r.App, isDefault: i == 0, search: r.Search,
			regression: r.Regression}
		if err = got.check(); err == nil && (i == 0) != (r.Dir == "") {
			err = fmt.Errorf("the files of %q under web/%s", r.Name, r.Dir)
		}
		all = append(all, got)
	}
	if err != nil {
		m.err = "The page's description of its models is damaged (" + err.Error() + "): reload the page; if this persists, the site is damaged."
		return []pageModel{m}
	}
	return all
}

// file is where the site serves one of the models' files (name: "models.bin"), as a path under the site's root.
func (m *pageModel) file(name string) string { return "/web/" + m.dir + name }

// address is the page's address for the models: its own with ?models=name (none for the default), no fragment.
func (m *pageModel) address() string {
	if m.isDefault {
		return "."
	}
	return "?" + ModelsQuery + "=" + m.name
}

// check is what the page relies on of a description (weights.Description.Check has checked the whole of it
// when the site was built).
func (m pageModel) check() error {
	in := m.Input
	switch {
	case !weights.ValidName(m.name):
		return fmt.Errorf("the name %q", m.name)
	case len(m.classes) < 2:
		return fmt.Errorf("%d classes", len(m.classes))
	case in.IsTable() && (tablesLeftOut || len(in.Columns) == 0): // listed, for the choice of models; another page runs them
		return nil
	case in.IsTable():
		return checkTable(in)
	case in.Height < 1 || in.Width < 1 || in.Height > weights.MaxInputSide || in.Width > weights.MaxInputSide:
		return fmt.Errorf("an input of %d×%d", in.Height, in.Width)
	case in.Channels != 1 && in.Channels != 3:
		return fmt.Errorf("%d channels", in.Channels)
	case len(m.classes) < 2:
		return fmt.Errorf("%d classes", len(m.classes))
	}
	return nil
}

// defaults are the models' default parameters, clue.DefaultsFor their description (the page holds its search
// defaults, not its networks): what the form starts from, "Use the defaults" puts back and a costly link is
// measured against.
func (m *pageModel) defaults() clue.Params {
	return clue.DefaultsFor(&weights.Description{Input: weights.Input{Kind: m.Kind}, Classes: m.classes, Search: m.search, Regression: m.regression})
}

// uncertaintyName is what the models' uncertainty is called: H (an entropy, nats), or a regression's σ (in the
// target's unit).
func (m *pageModel) uncertaintyName() string {
	if m.regression != nil {
		return "σ"
	}
	return "H"
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

// words are the models' words for clue's sentences.
func (m *pageModel) words() clue.Words {
	return clue.Words{Classes: m.classes, Noun: m.noun(), Regression: m.regression}
}

// hasGallery says whether the site serves a gallery of the models' test items (none when they have none).
func (m *pageModel) hasGallery() bool { return m.gallery }

// hasGlobal says whether the page has a global view: the site serves its groups (global.json).
func (m *pageModel) hasGlobal() bool { return m.global }

// classifier says in words how the classifier knows its uncertainty.
func (m *pageModel) classifier() string {
	if m.uncertainty == weights.UncertaintyEnsemble {
		return fmt.Sprintf("a deep ensemble of %d networks", m.samples)
	}
	return fmt.Sprintf("MC dropout with %d fixed dropout masks", m.samples)
}

// openModelsOfLink loads the page again for the models a share link was made with, when the site serves them
// and the page runs others (a link made on the Fashion page, opened without its ?models=): it says whether it
// did. A link for models the site does not serve is left to the page, which refuses it in a sentence.
func openModelsOfLink(fragment string) bool {
	s, err := sharelink.Decode(fragment)
	if err != nil || s.Models == served().name {
		return false
	}
	for _, m := range servedAll {
		if m.name == s.Models && m.err == "" {
			// The address's other parameters (?workers=2) kept, ?models= set (none for the default).
			u := app.Window().Get("URL").New(app.Window().Get("location").Get("href"))
			if q := u.Get("searchParams"); m.isDefault {
				q.Call("delete", ModelsQuery)
			} else {
				q.Call("set", ModelsQuery, m.name)
			}
			app.Window().Get("location").Call("replace", u.Call("toString"))
			return true
		}
	}
	return false
}

// modelsChoice is the choice of the served models on the page's first screen: a link to each one's page, the
// page's own marked as current (in words and weight, not colour alone). A visitor who follows one loads the page
// for those models (the browser's own navigation, not go-app's, whose handler on window the link's own stops:
// each models' state is a page's whole state). It is HTML made here: go-app's elements for it cost app.wasm 5 KB.
func modelsChoice() app.UI {
	cur := served()
	var b strings.Builder
	b.WriteString(`<nav id="models-choice" aria-label="Models"><span class="models-choice-label">Model:</span>`)
	for _, m := range servedAll {
		current := ""
		if m.name == cur.name {
			current = ` aria-current="page"`
		}
		b.WriteString(`<a class="models-choice-item" href="` + figures.Escape(m.address()) + `" title="` + figures.Escape(m.title) + `"` + current +
			` onclick="event.stopPropagation()">` + figures.Escape(m.label()) + `</a>`)
	}
	b.WriteString(`</nav>`)
	return app.Raw(b.String())
}

// label is what the choice of models calls them: their name, capitalised ("Digits", "Fashion").
func (m *pageModel) label() string {
	if m.name == "" {
		return m.name
	}
	return strings.ToUpper(m.name[:1]) + m.name[1:]
}
