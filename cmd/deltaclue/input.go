package main

import (
	"errors"
	"flag"
	"fmt"
	"image"
	"image/draw"
	_ "image/jpeg"
	_ "image/png"
	"os"
	"strings"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/sharelink"
	"github.com/deltaclue/deltaclue/internal/picture"
	"github.com/deltaclue/deltaclue/mnist"
	"github.com/deltaclue/deltaclue/weights"
)

// inputFlags are the flags that say what to explain, shared by explain and sweep: the models (-models), and a
// test item, an image file or a share link; for models of rows, a test row, a row given as text or a line of a
// CSV file.
type inputFlags struct {
	fs     *flag.FlagSet // the command's flags: the search flags given apply over the models' defaults
	models *string
	digit  *int
	index  *int
	png    *string
	link   *string
	row    *string
	csv    *string
	line   *int

	// natural is the row to explain in natural units (weights.Columns' convention) when the models read rows:
	// set by load.
	natural []float64
}

// addInputFlags registers -models, -digit, -index, -png, -link, -row, -csv and -line; linkHelp says what the link
// sets.
func addInputFlags(fs *flag.FlagSet, linkHelp string) *inputFlags {
	return &inputFlags{
		fs:     fs,
		models: modelsFlag(fs),
		digit:  fs.Int("digit", -1, "explain this digit of the shipped 2,000-digit test split (0..1999), with the digits' models"),
		index:  fs.Int("index", -1, "explain the models' test item N (the digits': their test split, as -digit; a model of rows: its test row N)"),
		png:    fs.String("png", "", "explain the image in this file (PNG or JPEG, any size; made into the models' input as the page does: for the digits, preprocessed like MNIST)"),
		link:   fs.String("link", "", linkHelp),
		row:    fs.String("row", "", "a model of rows: explain this row, every column as Name=value separated by commas, numbers in their natural units and categories by their level's name ('Seniority=9,Home=rent,…')"),
		csv:    fs.String("csv", "", "a model of rows: explain a line of this CSV file, whose header names every column (in any order; the credit models' files may also hold Status)"),
		line:   fs.Int("line", 0, "with -csv: the line of data to explain, counted from 1 after the header (default: the file's only one)"),
	}
}

// problem is the search's problem for what load returned: the row in natural units for a model of rows (so that
// a number column is x0's exactly, not read back from float32), else x0.
func (in *inputFlags) problem(m *models, x0 []float32) (*clue.Problem, error) {
	if in.natural != nil {
		return clue.NewRowProblem(m.search, in.natural)
	}
	return clue.NewProblem(m.search, x0)
}

// load opens the models and returns them, the image to explain and a description of where it came from. It
// makes *p the models' defaults with the search flags given over them (modelParams); from a share link it
// replaces *p with the link's parameters instead and returns the link's state (nil otherwise).
func (in *inputFlags) load(p *clue.Params) (*models, []float32, string, *sharelink.State, error) {
	m, err := loadModels(*in.models)
	if err != nil {
		return nil, nil, "", nil, err
	}
	if err := modelParams(in.fs, p, m.Description(), nil); err != nil {
		return nil, nil, "", nil, err
	}
	given := 0
	for _, set := range []bool{*in.digit >= 0, *in.index >= 0, *in.png != "", *in.link != "", *in.row != "", *in.csv != ""} {
		if set {
			given++
		}
	}
	if given > 1 {
		if cols := m.search.Columns(); cols != nil {
			return nil, nil, "", nil, fmt.Errorf("give one of -index, -row and -csv")
		}
		return nil, nil, "", nil, fmt.Errorf("give one of -digit, -index, -png and -link")
	}
	if cols := m.search.Columns(); cols != nil {
		x0, input, err := in.loadRow(m, cols, p)
		return m, x0, input, nil, err
	}
	for _, f := range []struct {
		name string
		set  bool
	}{{"-row", *in.row != ""}, {"-csv", *in.csv != ""}, {"-line", *in.line != 0}} {
		if f.set {
			return nil, nil, "", nil, fmt.Errorf("%s: the %q models read images, not rows: give %s", f.name, m.Name(), m.whatToExplain())
		}
	}
	if *in.link == "" {
		if err := m.runs(*p, "-scheme"); err != nil {
			return nil, nil, "", nil, err
		}
		x0, input, err := loadInput(m, *in.digit, *in.index, *in.png)
		return m, x0, input, nil, err
	}
	s, err := fromLink(*in.link, m)
	if err != nil {
		return nil, nil, "", nil, err
	}
	*p = s.Params
	if err := m.runs(*p, "the link's scheme"); err != nil {
		return nil, nil, "", nil, err
	}
	return m, s.Float(), "the shared link", &s, nil
}

// loadRow is load for models of rows: the row of -index, -row or -csv and -line, flattened as the networks read
// it (and kept in natural units in in.natural).
func (in *inputFlags) loadRow(m *models, cols weights.Columns, p *clue.Params) ([]float32, string, error) {
	for _, f := range []struct {
		name string
		set  bool
	}{{"-png", *in.png != ""}, {"-link", *in.link != ""}} {
		if f.set {
			return nil, "", fmt.Errorf("%s: the %q models read rows (%ss), not images: give -index N, -row or -csv FILE -line K", f.name, m.Name(), m.noun())
		}
	}
	if *in.digit >= 0 {
		return nil, "", fmt.Errorf("-digit %d: -digit is a test digit of the shipped digits, and these are the %q models: give -index %d for their test %s", *in.digit, m.Name(), *in.digit, m.noun())
	}
	if err := m.runs(*p, "-scheme"); err != nil {
		return nil, "", err
	}
	row, input, err := rowInput(m, cols, *in.index, *in.row, *in.csv, *in.line)
	if err != nil {
		return nil, "", err
	}
	x0, err := cols.Standardise(row)
	if err != nil {
		return nil, "", err
	}
	in.natural = row
	return x0, input, nil
}

// whatToExplain lists the flags that say what the models explain.
func (m *models) whatToExplain() string {
	if m.ShippedDigits {
		return "-digit N (a test digit), -png FILE or -link LINK"
	}
	return fmt.Sprintf("-index N (a test %s), -png FILE or -link LINK", m.noun())
}

// runs refuses, in one sentence, parameters the models cannot search with (clue's ValidateFor: scheme S2 on
// models without anchors), naming where the scheme came from (from: "-scheme" or "the link's scheme"); of
// parameters they can, it says on stderr what S2 leaves out (the classes without anchors), and goes on.
func (m *models) runs(p clue.Params, from string) error {
	err := p.ValidateFor(m.search)
	var pe *clue.ParamError
	if errors.As(err, &pe) && pe.Field == "scheme" {
		return fmt.Errorf("%s %s cannot run on the %q models: %s", from, p.Scheme, m.Name(), pe.Reason)
	}
	if errors.As(err, &pe) && pe.Field == "lock" {
		return fmt.Errorf("-lock %s: %s", p.Lock, pe.Reason)
	}
	if err != nil {
		return err
	}
	if p.Scheme == clue.S2 {
		if note := m.words().Unanchored(m.search.UnanchoredClasses()); note != "" {
			fmt.Fprintf(os.Stderr, "%s.\n", strings.ToUpper(note[:1])+note[1:])
		}
	}
	return nil
}

// loadInput returns the image to explain (one of a test digit, a test item and an image file) and a
// description of where it came from.
func loadInput(m *models, digit, index int, pngPath string) ([]float32, string, error) {
	switch {
	case digit >= 0 && !m.ShippedDigits:
		return nil, "", fmt.Errorf("-digit %d: -digit is a test digit of the shipped digits, and these are the %q models: give -index %d for their test item", digit, m.Name(), digit)
	case digit >= 0:
		return testDigit(digit)
	case index >= 0:
		items, err := m.test(fmt.Sprintf("-index %d", index))
		if err != nil {
			return nil, "", err
		}
		if index >= items.Len() {
			return nil, "", fmt.Errorf("-index %d: the %q models' test items are 0..%d", index, m.Name(), items.Len()-1)
		}
		label := items.Label(index)
		return items.Float(index, nil), fmt.Sprintf("test %s %d (true label %s)", m.noun(), index, m.class(label)), nil
	case pngPath != "":
		return readImage(pngPath, m.input())
	}
	return nil, "", fmt.Errorf("say what to explain: %s", m.whatToExplain())
}

// testDigit is the shipped test split's digit i and its description.
func testDigit(i int) ([]float32, string, error) {
	set, err := mnist.HeldOut()
	if err != nil {
		return nil, "", err
	}
	if i >= set.Len() {
		return nil, "", fmt.Errorf("-digit %d: the test split has digits 0..%d", i, set.Len()-1)
	}
	return set.Float(i, nil), fmt.Sprintf("test digit %d (true label %d)", i, set.Labels[i]), nil
}

// readImage reads an image file (PNG or JPEG, any size) as the models' input in, as the page makes an upload
// into one (picture.Fit).
func readImage(path string, in weights.Input) ([]float32, string, error) {
	rgba, err := decodeRGBA(path, in)
	if err != nil {
		return nil, "", err
	}
	b := rgba.Bounds()
	x, err := picture.Fit(rgba.Pix, b.Dx(), b.Dy(), in)
	if err != nil {
		return nil, "", &mnist.FileError{Name: path, Err: err, Noun: in.Noun}
	}
	return x, path, nil
}

// fromLink decodes a share link and checks it was made for these models and their input's shape.
func fromLink(link string, m *models) (sharelink.State, error) {
	s, err := sharelink.Decode(link)
	if err != nil {
		return sharelink.State{}, err
	}
	if err := sharelink.CheckModel(s, m.Name(), m.Bundle.Fingerprint()); err != nil {
		return sharelink.State{}, err
	}
	in := m.input()
	if h, w, c := s.Shape(); h != in.Height || w != in.Width || c != in.Channels {
		return sharelink.State{}, fmt.Errorf("this link's image is %d×%d with %d channels, and the %q models take %d×%d with %d: it is damaged",
			h, w, c, m.Name(), in.Height, in.Width, in.Channels)
	}
	return s, nil
}

// unreadable is an image decoder's error (image.ErrFormat, a png.FormatError …) said without the decoder's
// package prefix ("png: invalid format: …"); errors.Is and errors.As still reach it.
type unreadable struct{ err error }

func (u unreadable) Error() string {
	return "it is damaged, or not an image this command reads (PNG or JPEG)"
}

func (u unreadable) Unwrap() error { return u.err }

// decodeRGBA decodes an image file (PNG, JPEG or GIF) into RGBA pixels from (0, 0); an error names the file.
func decodeRGBA(path string, in weights.Input) (*image.RGBA, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	img, _, err := image.Decode(f)
	if err != nil {
		return nil, &mnist.FileError{Name: path, Err: unreadable{err}, Noun: in.Noun}
	}
	b := img.Bounds()
	rgba := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(rgba, rgba.Bounds(), img, b.Min, draw.Src)
	return rgba, nil
}
