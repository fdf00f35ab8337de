// Package inputkind is the seam between the page and the kind of input it explains: Kind is all the page's
// core and panels know of an input (how it is entered, shown, carried in a link and in a host page's messages,
// drawn in the figures), and Host is all a kind knows of the page. Images (package imagekind) are its one
// kind today; a table's row is the next. docs/input-kinds.md walks through it.
package inputkind

import (
	"math"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/app/hostmsg"
	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/kind"
)

// Kind is a kind of input as the page knows it. Its methods run on the page's goroutine.
type Kind interface {
	// Kind carries an input in a share link (Carry, Carried) and draws it in the PNG figures, as the CLI does.
	kind.Kind

	// Tabs are the ways to enter an input, the one to open first first.
	Tabs() []Tab
	// Open is told that a tab was opened (on the page's mount too): the images' gallery loads its items.
	Open(ctx app.Context, tab string)
	// Entry is the tabs' bodies, the open one shown (the others hidden, kept: a pad keeps its drawing). Their
	// events tell the page of a new input through host.
	Entry(host Host, open string) []app.UI
	// EntryState is what the entry shows beyond the input itself (strokes to undo, the gallery's items), a
	// value compared with ==: the input panel renders again when it changes.
	EntryState() any
	// Show puts an input that came from elsewhere (a share link, a host page) where it is entered, to be seen
	// and edited, and says which tab shows it.
	Show(x []float32) (tab string)
	// Blank draws the entry blank (the page's mount).
	Blank()

	// Placeholder is an element that shows an input (or a change) of about size s, with an accessible label
	// ("" for none); PlaceholderHTML is the same as HTML, for the parts of the page written as HTML.
	Placeholder(id string, s Size, label string) app.UI
	PlaceholderHTML(id string, s Size, label string) string
	// Fill shows input x in the placeholder id, FillDiff what e changes in x0; each says whether it drew (it
	// does not when the placeholder shows it already, or is not on the page).
	Fill(id string, x []float32, s Size) bool
	FillDiff(id string, x0, e []float32, s Size) bool
	// Cell is the size an explanation takes in the grid of the whole set; DrawCell draws e (an explanation of
	// x0) there, at (x, y) of a canvas's 2-D context (c2d), faded when the explanation was not accepted.
	Cell() (w, h int)
	DrawCell(c2d app.Value, x, y int, x0, e []float32, faded bool)

	// Phrase is one of the page's sentences that say how an input is entered or what a change shows.
	Phrase(p Phrase) string

	// ReadHost reads a host page's message (the embed's): a link to open, or an input of this kind, carried as
	// a link carries it (Message.Input). forFrame and err are hostmsg.Read's.
	ReadHost(text string) (m hostmsg.Message, forFrame bool, err error)
}

// Tab is a way to enter an input: its id (the tab's element is tab-ID) and its label.
type Tab struct{ ID, Label string }

// Size is how large an input is shown, about so many px on its longer side for an image.
type Size int

// The page's sizes.
const (
	Thumb  Size = 56  // a step of the trajectory, a label's reach in the sweep
	Card   Size = 112 // the cards, the models' view
	Detail Size = 140 // the selected explanation
)

// Phrase names a sentence of the page's that depends on the kind of input.
type Phrase int

// The page's phrases.
const (
	AnswerHint   Phrase = iota // where the answer will come, before there is an input ("Draw a digit, … : the answer comes here.")
	ModelHint                  // in the models' view, before there is an input ("Draw a digit, pick one or upload one.")
	WhileLoading               // what a visitor can do while the models load ("draw, pick or upload a digit")
	ChangeLegend               // what the change's colours mean ("ink added in blue, removed in orange")
)

// Host is the page as a kind sees it: what an entry tells it.
type Host interface {
	// Take makes x the input (came from source, in words) and asks the models for their view of it.
	Take(ctx app.Context, x []float32, source string)
	// Edited follows Take when the input was edited by hand (a stroke): the live preview, the answers first.
	Edited(ctx app.Context)
	// Drop says there is no input any more (a pad cleared).
	Drop(ctx app.Context)
	// Fault says why what was entered cannot be the input ("" for nothing); Note says what was done to it to
	// make it the input (after Take, which clears it).
	Fault(msg string)
	Note(msg string)
	// LiveSwitch is the page's switch for a live preview after every edit, for the entry to place.
	LiveSwitch() []app.UI
}

// Locker is a host that keeps columns of a row as they are in every explanation (clue.Params.Lock): the page
// for models of rows, whose kind shows and sets them beside its fields (a page for images has none).
type Locker interface {
	Locks() clue.ColumnList
	SetLocks(ctx app.Context, l clue.ColumnList)
}

// Hash names an input by its bits (FNV-1a; not its address, which a later input may reuse): what an element
// shows, so that it is not drawn again.
func Hash(x []float32) uint64 {
	h := uint64(14695981039346656037)
	for _, v := range x {
		h = (h ^ uint64(math.Float32bits(v))) * 1099511628211
	}
	return h
}

// Served is what a kind needs to know of the served models beyond their input.
type Served struct {
	Noun    string           // what one input is called ("digit", "applicant")
	Classes int              // how many classes they tell apart
	Class   func(int) string // a class's name
	Gallery string           // the gallery's file (web/…/gallery.json), "" when the site serves none
	// Regression says the classes are ranges of a predicted number, and uncertainty its σ, not an entropy.
	Regression bool
}
