// Package sharelink encodes an explanation's whole input (the quantised image, every search parameter and the
// seed, the δ sweep, the selected explanation and the models' fingerprint) into the URL fragment the page
// shares, and decodes it back with a clear error for anything malformed, truncated, changed, too large or from
// another version.
//
// Encode writes version 2. A v2 link's fragment is "#" + "v2." + base64url (no padding) of
//
//	DEFLATE(payload2 | CRC-32 (IEEE) of payload2 u32)
//
// where payload2 is
//
//	"DC" | version 2 | model fingerprint u32 | delta f64 | n u16 | scheme u8 | w_total f64 | w_aleatoric f64 |
//	w_epistemic f64 | lambda_x f64 | flags u8 (1 distance_mean, 2 rho = linf, 4 constraint = filter,
//	8 convergence = clue: CLUE's rule; links written before it have the bit clear, the default rule) |
//	lambda_y f64 | lambda_d f64 | learning_rate f64 | max_steps u16 | window u8 | rel_tol f64 | abs_tol f64 |
//	min_steps u16 | h_threshold f64 | dedup_l1 f64 | seed u64 | selected i16 (-1: none) |
//	ladder count u8 (0 to 12; 0: no sweep) | ladder n u16 (0 when count is 0) | count × radius f64 |
//	784 pixel bytes (intensity k/255)
//
// all little-endian: 909 + 8·count bytes, then the 4-byte checksum. Raw DEFLATE has no checksum of its own, so
// without the CRC a link with one character changed could decode to another image and run without a word;
// with it, such a link fails with "This link cannot be opened: it was changed or damaged (…)". A typical link (default parameters, a
// drawn digit, no sweep) is about 380 characters; with the default sweep and a selection, about 410.
//
// Decode also reads version 1 links, written before the sweep and the selection were shared: "v1." +
// base64url (no padding) of DEFLATE of
//
//	"DC" | version 1 | then the fields of v2 from the model fingerprint to the seed | 784 pixel bytes
//
// (904 bytes, no checksum). Nothing in a link is ever interpreted as markup or code: it decodes to numbers
// or to an error.
package sharelink

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/deltaclue/deltaclue/engine/clue"
)

// Pixels is the number of pixels in a link's image.
const Pixels = 784

// MaxLinkLength is the most characters of a fragment Decode reads.
const MaxLinkLength = 8192

// NoSelection is State.Selected when no explanation is selected.
const NoSelection = -1

// Payload sizes: the fields both versions share (model fingerprint to seed), a v1 payload, and a v2 payload
// without radii or checksum.
const (
	commonLength   = 4 + 8 + 2 + 1 + 8*4 + 1 + 8*3 + 2 + 1 + 8*2 + 2 + 8*2 + 8
	payloadLength  = 3 + commonLength + Pixels
	payload2Length = 3 + commonLength + 2 + 1 + 2 + Pixels
	crcLength      = 4
	// maxDecoded bounds what a v2 link may decompress to: the most radii a count byte can announce, so that a
	// ladder that is too long is reported as such rather than as damage.
	maxDecoded = payload2Length + 8*255 + crcLength
)

const (
	prefix  = "v1."
	prefix2 = "v2."
)

// changed is what every v2 link that fails its structural checks (base64, DEFLATE, length, checksum) says.
const changed = "it was changed or damaged"

// State is everything a link carries.
type State struct {
	Image  [Pixels]uint8 // x0 quantised: intensity = value/255
	Params clue.Params
	Model  uint32 // fingerprint of the models the explanation was made with

	// Sweep is the δ sweep the sender had planned; the zero Ladder (no radii) means no sweep, and its N is then
	// not stored. Decode checks a sweep with Ladder.Validate.
	Sweep clue.Ladder

	// Selected is the restart index of the explanation the sender had selected, from 0 to
	// Params.Restarts()-1, or NoSelection. Note that a State built without setting it selects restart 0.
	Selected int

	// Version is the link format Decode read (1 or 2). Encode ignores it and always writes version 2.
	Version int
}

// Latest is the link format Encode writes.
const Latest = 2

// Same says whether s and t make the same link (Encode ignores Version).
func (s State) Same(t State) bool {
	return s.Image == t.Image && s.Params == t.Params && s.Model == t.Model && s.Selected == t.Selected &&
		s.Sweep.N == t.Sweep.N && slices.Equal(s.Sweep.Radii, t.Sweep.Radii)
}

// Error is what Decode returns. Its text is one sentence fit to show a user: "This link cannot be opened: "
// and the Reason, a clause saying the one fault found ("its checksum does not match"), without guesses.
type Error struct{ Reason string }

func (e *Error) Error() string { return "This link cannot be opened: " + e.Reason + "." }

func fail(format string, args ...any) error { return &Error{Reason: fmt.Sprintf(format, args...)} }

// damaged is a v2 link's structural failure.
func damaged(format string, args ...any) error {
	return &Error{Reason: changed + " (" + fmt.Sprintf(format, args...) + ")"}
}

// Quantize rounds an image's intensities to the k/255 grid a link stores; the page explains the quantised
// image, so that a link reproduces its explanations exactly.
func Quantize(x []float32) [Pixels]uint8 {
	var q [Pixels]uint8
	for i, v := range x[:Pixels] {
		q[i] = uint8(math.Round(float64(min(max(v, 0), 1)) * 255))
	}
	return q
}

// Float returns the link's image as intensities in [0, 1].
func (s *State) Float() []float32 {
	x := make([]float32, Pixels)
	for i, v := range s.Image {
		x[i] = float32(v) / 255
	}
	return x
}

// AnchorsOnly maps the fingerprint of an earlier model set to that of the later one that differs from it only in
// its anchors: 59b7fce4 had the anchors made with the float32 models before compaction, 4388f9eb has them made
// with the shipped int8 models. A link made with the earlier set gives the same explanations on the later one
// unless its search starts from the anchors (scheme S2), so CheckModel accepts it; only its yNN differs.
var AnchorsOnly = map[uint32]uint32{0x59b7fce4: 0x4388f9eb}

// ErrModel is what CheckModel's error is (errors.Is).
var ErrModel = errors.New("made with other models")

// modelError is CheckModel's error: one sentence, which errors.Is matches to ErrModel.
type modelError struct{ link, page uint32 }

func (e *modelError) Error() string {
	return fmt.Sprintf("This link was made with other models (%08x) than this page runs (%08x), so its explanations would differ: "+
		"open it on the version of deltaclue that made it.", e.link, e.page)
}

func (e *modelError) Is(target error) bool { return target == ErrModel }

// CheckModel returns an error if the link was made with models other than those with this fingerprint:
// its explanations would not be the same. A link of an earlier set that differs only in its anchors
// (AnchorsOnly) passes when its scheme is not S2.
func CheckModel(s State, fingerprint uint32) error {
	if later, ok := AnchorsOnly[s.Model]; ok && later == fingerprint && s.Params.Scheme != clue.S2 {
		return nil
	}
	if s.Model != fingerprint {
		return &modelError{s.Model, fingerprint}
	}
	return nil
}
