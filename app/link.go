// Share links: opening one (from the address, a pasted fragment, the loader's early run), and writing the
// page's state back into the address.

package app

import (
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/app/core"
	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/sharelink"
)

// rowFits says whether a link's row fits the served table, and if not says why.
func (e *Explainer) rowFits(q []uint8) bool {
	err := served().input().Check(q)
	if err != nil {
		e.links.Err = "This link cannot be opened: " + err.Error() + "."
		e.workers.dropEarly()
		e.publish()
	}
	return err == nil
}

// openPendingLink runs a shared link once every worker is up, so that it gets the whole pool.
func (e *Explainer) openPendingLink(ctx app.Context) {
	if e.workers.pool == nil {
		return
	}
	link, due, refused := e.links.Due(&e.work, e.models.name, e.models.fingerprint)
	if refused != nil {
		e.workers.dropEarly()
	}
	if !due {
		return
	}
	if !tablesLeftOut && served().IsTable() && !e.rowFits(link.Image) { // an image's size was checked as the link was read
		return
	}
	if e.openEarly(ctx, link) {
		return
	}
	e.setInput(ctx, link.Image, "the shared link")
	e.showInEntry() // the link's input, where it is entered (models that offer their test items first open on them)
	if e.askCostly(ctx, link) {
		return
	}
	e.links.Restore = &link
	e.run(ctx)
}

// onHashChange opens a link pasted into the address bar of an open page (the page's own updates of the
// fragment use replaceState, which fires no hashchange). A fragment the guard had to drop leaves the page as
// it was, its own link back in the address, and says what was wrong.
func (e *Explainer) onHashChange(ctx app.Context) {
	addr := currentAddress()
	if addr.Problem != "" {
		e.links.Err, e.links.Note = addr.Problem, ""
		e.updateLink()
		e.publish()
		return
	}
	if addr.Link == "" {
		return
	}
	e.openFragment(ctx, addr.Link)
}

// openFragment opens a share link (what follows # in its address) in place of what the page shows: from the
// address bar or from a host page's message.
func (e *Explainer) openFragment(ctx app.Context, fragment string) {
	e.links.Err, e.links.Note = "", ""
	e.dropRun()
	e.dropSweep()
	e.clearResults(ctx)
	e.openLink(fragment)
	e.openPendingLink(ctx)
	e.publish()
}

// openLink reads a share link: its parameters now, its image once the workers say which models they run.
func (e *Explainer) openLink(fragment string) {
	s, ok := e.links.Read(fragment)
	if !ok {
		return
	}
	// A link in the format Encode writes stays in the address as it came: once open, the page's state is the
	// link's, and encoding it again took the task that opens it 15–20 ms of a cold page's CPU. (An older link
	// is written again in the current format.)
	if hash := app.Window().Get("location").Get("hash").String(); s.Version == sharelink.Latest && hash == "#"+fragment {
		addressWritten.state, addressWritten.fragment = s, hash
	}
	e.settings.Show(s.Params)
	if len(s.Sweep.Radii) > 0 {
		e.sweep.radiiIn, e.sweep.nIn = clue.FormatRadii(s.Sweep.Radii), strconv.Itoa(s.Sweep.N)
	}
}

// updateLink writes the current input and parameters into the URL, without reloading.
func (e *Explainer) updateLink() {
	var sweep *clue.Ladder
	if l, bad := e.ladderInput(); e.sweep.inLink && bad == "" {
		sweep = &l
	}
	st, ok := core.Shared(e.in, e.settings, e.sel, e.linkModels(), sweep)
	if !ok {
		return
	}
	// Opening a link or starting a run writes the address more than once with the same state: compressing the
	// link and replacing the history entry again cost the page's thread several ms each time.
	if addressWritten.fragment != "" && addressWritten.state.Same(st) && app.Window().Get("location").Get("hash").String() == addressWritten.fragment {
		return
	}
	fragment := "#" + sharelink.Encode(st)
	app.Window().Get("history").Call("replaceState", nil, "", fragment)
	addressWritten.state, addressWritten.fragment = st, fragment
}

// addressWritten is the share state the page last wrote into the address, and the fragment it wrote: the
// address is written again only when the state changed, or when something else changed the address.
var addressWritten struct {
	state    sharelink.State
	fragment string
}

// linkModels are the models as a share link names them: the workers' name and fingerprint, the description's
// input shape.
func (e *Explainer) linkModels() core.Models {
	m := served()
	h, w, c := m.Height, m.Width, m.Channels
	if !tablesLeftOut && m.IsTable() { // a row: the bytes its kind carries it in, as one line
		h, w, c = 1, len(m.input().Carry(make([]float32, m.Size()))), 1
	}
	return core.Models{Name: e.models.name, Fingerprint: e.models.fingerprint, Height: h, Width: w, Channels: c, Kind: m.input()}
}
