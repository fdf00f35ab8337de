package core

import (
	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/kind"
	"github.com/deltaclue/deltaclue/engine/clue/sharelink"
)

// Links is the share link the page is opening: read from the address (or a fragment pasted into it), waiting
// for the workers, and what it still has to restore once its run is done.
type Links struct {
	Pending *sharelink.State // read, waiting for every worker to start (it needs their models' fingerprint)
	Restore *sharelink.State // opened: its selection and sweep are restored once its run is done
	Err     string           // why the last link could not be opened, in a sentence
	Note    string           // a quiet remark about the opened link (a v1 link has no checksum)
}

// Read decodes a link's fragment and holds it until the workers are up; a damaged link says why (Err) and is
// not held. It returns the link.
func (l *Links) Read(fragment string) (sharelink.State, bool) {
	s, err := sharelink.Decode(fragment)
	if err != nil {
		l.Err = err.Error()
		return sharelink.State{}, false
	}
	if s.Version == 1 {
		l.Note = "This link is in the older format v1, which carries no checksum: a change to it cannot be detected."
	}
	l.Pending = &s
	return s, true
}

// Due takes the held link once it may open: every worker that will start has said ready (so that it gets the
// whole pool) and no run is under way. A link made for other models than the workers' (their name and
// fingerprint) is not
// opened: it returns the error, also in Err, and the caller drops whatever it had started for the link.
func (l *Links) Due(p *Pool, models string, fingerprint uint32) (link sharelink.State, due bool, err error) {
	if l.Pending == nil || !p.AllStarted() || p.Run.Active() {
		return sharelink.State{}, false, nil
	}
	link = *l.Pending
	l.Pending = nil
	if err := sharelink.CheckModel(link, models, fingerprint); err != nil {
		l.Err = err.Error()
		return sharelink.State{}, false, err
	}
	return link, true, nil
}

// Models are the models the page runs, as a link names them: their name and fingerprint (as the workers say),
// and their input's shape and kind, which carries it in the link (as their description says).
type Models struct {
	Name                    string
	Fingerprint             uint32
	Height, Width, Channels int
	Kind                    kind.Kind
}

// Shared is the share link's state for the page as it is: the input, the parameters and the models, the chosen
// restart if the parameters' set has it, and the sweep's ladder if one was run on this input (sweep, nil
// otherwise). ok is false when there is nothing to share yet: no input, refused parameters, or models not yet
// known (fingerprint 0).
func Shared(in Input, s Settings, sel Selection, m Models, sweep *clue.Ladder) (st sharelink.State, ok bool) {
	if in.X0 == nil || !s.OK || m.Fingerprint == 0 {
		return sharelink.State{}, false
	}
	st = sharelink.State{Models: m.Name, Image: m.Kind.Carry(in.X0), Params: s.Params, Model: m.Fingerprint, Selected: sharelink.NoSelection,
		Height: m.Height, Width: m.Width, Channels: m.Channels}
	if sel.Restart >= 0 && sel.Restart < s.Params.Restarts() {
		st.Selected = sel.Restart
	}
	if sweep != nil {
		st.Sweep = *sweep
	}
	return st, true
}
