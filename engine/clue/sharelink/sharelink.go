// Package sharelink encodes an explanation's whole input (the quantised image, every search parameter and the
// seed, the δ sweep, the selected explanation and the models' fingerprint) into the URL fragment the page
// shares, and decodes it back with a clear error for anything malformed, truncated, changed, too large or from
// another version.
//
// Encode writes version 2 for the digits' models (weights/digits.json) and their 28×28 grey image, so that
// their links stay what they have been, and version 3 for any other model. A v2 link's fragment is "#" + "v2." +
// base64url (no padding) of
//
//	DEFLATE(payload2 | CRC-32 (IEEE) of payload2 u32)
//
// where payload2 is
//
//	"DC" | version 2 | model fingerprint u32 | delta f64 | n u16 | scheme u8 | w_total f64 | w_aleatoric f64 |
//	w_epistemic f64 | lambda_x f64 | flags u8 (1 distance_mean, 2 rho = linf, 4 constraint = filter,
//	8 convergence = clue: CLUE's rule; links written before it have the bit clear, the default rule; 16 sparse,
//	v3 only: a model of rows gives back needless changes, clear in links written before it) |
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
// A v3 link is "v3." + base64url (no padding) of DEFLATE(payload3 | CRC-32 of payload3 u32), where payload3 is
//
//	"DC" | version 3 | name length u8 | the models' name (a model description's: 1 to 32 of a–z, 0–9, "-") |
//	the fields of v2 from the model fingerprint to the radii | channels u8 (1 or 3) | height u16 | width u16 |
//	channels·height·width pixel bytes (channel by channel, row by row; intensity k/255)
//
// then, only when the search locks columns of a model of rows (Params.Lock), "L" | length u16 (1 to 4096) | the
// locked columns' names joined by commas; so that a link names the models it was made for: opened where others
// are served, it is refused by their name (CheckModel), in one sentence. (A digits link that locks columns is
// written as v3: v2 has no room for them; the page then refuses the lock on an image model by name.) An 8×8 colour image's link is about 410 characters.
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
	"github.com/deltaclue/deltaclue/weights"
)

// Pixels is the number of values of a v1 or v2 link's image: the digits' 28×28.
const Pixels = digitsHeight * digitsWidth * digitsChannels

// DigitsModels is the name of the models v1 and v2 links were made for (weights/digits.json).
const DigitsModels = "digits"

// The digits' image, which v1 and v2 links hold.
const digitsHeight, digitsWidth, digitsChannels = 28, 28, 1

// MaxSide bounds a v3 link's image (as a model description bounds its input).
const MaxSide = weights.MaxInputSide

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
	prefix3 = "v3."
)

// maxDecoded3 bounds what a v3 link may decompress to: its header with the longest name, the most radii, and
// the largest image a link of MaxLinkLength characters could carry compressed 250 to 1 (more is a damaged or
// hostile stream, refused before it fills memory).
const maxDecoded3 = 4 + 255 + payload2Length - Pixels + 8*255 + 5 + MaxLinkLength*250 + 3 + maxLock + crcLength

// maxLock bounds a link's list of locked columns (their names joined by commas).
const maxLock = 4096

// changed is what every v2 link that fails its structural checks (base64, DEFLATE, length, checksum) says.
const changed = "it was changed or damaged"

// State is everything a link carries.
type State struct {
	// Models names the models the link was made for (a model description's name; DigitsModels for v1 and v2
	// links), and Model is their fingerprint.
	Models string
	Model  uint32
	// The image, x0 quantised (value = byte/255), channel by channel, each row by row: Height·Width·Channels
	// bytes. A State whose Height is 0 is the digits' 28×28 grey image (what v1 and v2 links hold).
	Height, Width, Channels int
	Image                   []uint8
	Params                  clue.Params

	// Sweep is the δ sweep the sender had planned; the zero Ladder (no radii) means no sweep, and its N is then
	// not stored. Decode checks a sweep with Ladder.Validate.
	Sweep clue.Ladder

	// Selected is the restart index of the explanation the sender had selected, from 0 to
	// Params.Restarts()-1, or NoSelection. Note that a State built without setting it selects restart 0.
	Selected int

	// Version is the link format Decode read (1, 2 or 3). Encode ignores it: it writes version 2 for the digits'
	// models and image, so that their links stay what they were, and version 3 for any other.
	Version int
}

// Latest is the link format Encode writes for the digits; any other model's links are version 3.
const Latest = 2

// Shape is the image's height, width and channels, the digits' when Height is 0.
func (s State) Shape() (h, w, c int) {
	if s.Height == 0 {
		return digitsHeight, digitsWidth, digitsChannels
	}
	return s.Height, s.Width, s.Channels
}

// ModelsName is the models' name, the digits' when Models is empty.
func (s State) ModelsName() string {
	if s.Models == "" {
		return DigitsModels
	}
	return s.Models
}

// isDigits says whether a v2 link can hold s: the digits' models and a 28×28 grey image.
func (s State) isDigits() bool {
	h, w, c := s.Shape()
	return s.ModelsName() == DigitsModels && h == digitsHeight && w == digitsWidth && c == digitsChannels && len(s.Image) == Pixels
}

// Same says whether s and t make the same link (Encode ignores Version).
func (s State) Same(t State) bool {
	sh, sw, sc := s.Shape()
	th, tw, tc := t.Shape()
	return slices.Equal(s.Image, t.Image) && sh == th && sw == tw && sc == tc && s.ModelsName() == t.ModelsName() &&
		s.Params == t.Params && s.Model == t.Model && s.Selected == t.Selected &&
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
func Quantize(x []float32) []uint8 {
	q := make([]uint8, len(x))
	for i, v := range x {
		q[i] = uint8(math.Round(float64(min(max(v, 0), 1)) * 255))
	}
	return q
}

// Float returns the link's image as intensities in [0, 1].
func (s *State) Float() []float32 {
	x := make([]float32, len(s.Image))
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
type modelError struct {
	linkName, pageName string
	link, page         uint32
}

func (e *modelError) Error() string {
	if e.linkName != e.pageName {
		return fmt.Sprintf("This link was made for the %q models, and this page runs the %q models: open it where %q is served.",
			e.linkName, e.pageName, e.linkName)
	}
	return fmt.Sprintf("This link was made with other models (%08x) than this page runs (%08x), so its explanations would differ: "+
		"open it on the version of deltaclue that made it.", e.link, e.page)
}

func (e *modelError) Is(target error) bool { return target == ErrModel }

// CheckModel returns an error if the link was made for models other than those with this name and
// fingerprint: its explanations would not be the same (a link for other models altogether is told so by name).
// A link of an earlier set that differs only in its anchors (AnchorsOnly) passes when its scheme is not S2.
func CheckModel(s State, models string, fingerprint uint32) error {
	if s.ModelsName() != models {
		return &modelError{s.ModelsName(), models, s.Model, fingerprint}
	}
	if later, ok := AnchorsOnly[s.Model]; ok && later == fingerprint && s.Params.Scheme != clue.S2 {
		return nil
	}
	if s.Model != fingerprint {
		return &modelError{models, models, s.Model, fingerprint}
	}
	return nil
}
