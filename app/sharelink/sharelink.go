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
	"bytes"
	"compress/flate"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"slices"
	"strings"
	"sync"

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

// u8 and u16 store a whole number, or all ones when it does not fit: every count, n and step limit a link
// stores has a valid range well below that, so Encode never turns an invalid state into a valid other one.
func u8(v int) uint8 {
	if v < 0 || v > math.MaxUint8 {
		return math.MaxUint8
	}
	return uint8(v)
}

func u16(v int) uint16 {
	if v < 0 || v > math.MaxUint16 {
		return math.MaxUint16
	}
	return uint16(v)
}

// Encode returns the fragment (without "#") for s, in version 2. It does not check s: Decode rejects a link
// made from an invalid state.
func Encode(s State) string {
	le := binary.LittleEndian
	f64 := func(b []byte, v float64) []byte { return le.AppendUint64(b, math.Float64bits(v)) }
	p := s.Params
	b := make([]byte, 0, payload2Length+8*len(s.Sweep.Radii)+crcLength)
	b = append(b, 'D', 'C', 2)
	b = le.AppendUint32(b, s.Model)
	b = f64(b, p.Delta)
	b = le.AppendUint16(b, u16(p.N))
	b = append(b, u8(int(p.Scheme)))
	b = f64(b, p.WTotal)
	b = f64(b, p.WAleatoric)
	b = f64(b, p.WEpistemic)
	b = f64(b, p.LambdaX)
	var flags uint8
	if p.DistanceMean {
		flags |= 1
	}
	if p.Rho == clue.LInf {
		flags |= 2
	}
	if p.Constraint == clue.Filter {
		flags |= 4
	}
	if p.Convergence == clue.CLUERule {
		flags |= 8
	}
	b = append(b, flags)
	b = f64(b, p.LambdaY)
	b = f64(b, p.LambdaD)
	b = f64(b, p.LearningRate)
	b = le.AppendUint16(b, u16(p.MaxSteps))
	b = append(b, u8(p.Window))
	b = f64(b, p.RelTol)
	b = f64(b, p.AbsTol)
	b = le.AppendUint16(b, u16(p.MinSteps))
	b = f64(b, p.HThreshold)
	b = f64(b, p.DedupL1)
	b = le.AppendUint64(b, p.Seed)
	sel := s.Selected
	if sel < math.MinInt16 || sel > math.MaxInt16 {
		sel = math.MinInt16 // out of range either way
	}
	b = le.AppendUint16(b, uint16(int16(sel)))
	radii := s.Sweep.Radii[:min(len(s.Sweep.Radii), math.MaxUint8)]
	b = append(b, uint8(len(radii)))
	if len(radii) == 0 {
		b = le.AppendUint16(b, 0)
	} else {
		b = le.AppendUint16(b, u16(s.Sweep.N))
	}
	for _, r := range radii {
		b = f64(b, r)
	}
	b = append(b, s.Image[:]...)
	b = le.AppendUint32(b, crc32.ChecksumIEEE(b))
	var z bytes.Buffer
	deflater.Lock()
	deflater.make()
	deflater.w.Reset(&z)
	deflater.w.Write(b)
	deflater.w.Close()
	deflater.Unlock()
	return prefix2 + base64.RawURLEncoding.EncodeToString(z.Bytes())
}

// deflater is the compressor kept for every link: a new one at BestCompression allocates and clears about a
// megabyte of tables, which made writing the address after every change of the page's input take it tens of
// ms (and start a collection) in WebAssembly. A reset one writes the same bytes. (Not a sync.Pool: a pool is
// emptied by every other collection, and the page would make the megabyte again.)
var deflater keptWriter

type keptWriter struct {
	sync.Mutex
	w *flate.Writer
}

func (k *keptWriter) make() {
	if k.w == nil {
		k.w, _ = flate.NewWriter(nil, flate.BestCompression)
	}
}

// Warm makes the compressor that links are written with, so that the first link written does not pay for it:
// the page calls it while it loads, not when a link is opened.
func Warm() {
	deflater.Lock()
	deflater.make()
	deflater.Unlock()
}

// inflate decompresses a link's bytes read from in, at most limit+1 of them (so that a caller tells a stream
// longer than limit). A decompressor is a few tens of KB and a link is read once, when opened: it is not kept.
func inflate(in io.Reader, limit int) ([]byte, error) {
	return io.ReadAll(io.LimitReader(flate.NewReader(in), int64(limit)+1))
}

// Decode reads a link of version 1 or 2: a whole URL, a fragment with or without "#". Every failure is an
// *Error; for a v2 link whose characters were changed, cut or added to, its text says "it was changed or
// damaged". A v1 link decodes with Version 1, no sweep and Selected = NoSelection.
func Decode(link string) (State, error) {
	if i := strings.IndexByte(link, '#'); i >= 0 {
		link = link[i+1:]
	}
	switch {
	case link == "":
		return State{}, fail("it holds no explanation")
	case len(link) > MaxLinkLength:
		return State{}, fail("it is %d characters long, more than a deltaclue link can be (%d)", len(link), MaxLinkLength)
	case strings.HasPrefix(link, prefix):
		return decodeV1(link[len(prefix):])
	case strings.HasPrefix(link, prefix2):
		return decodeV2(link[len(prefix2):])
	}
	if v, ok := versionOf(link); ok {
		return State{}, fail("it was made by another version of deltaclue (%s), this page reads v1 and v2", v)
	}
	return State{}, fail("it is not a deltaclue link")
}

// versionOf returns a link's "vN" when it starts with "v", one to nine digits and ".".
func versionOf(link string) (string, bool) {
	dot := strings.IndexByte(link, '.')
	if dot < 2 || dot > 10 || link[0] != 'v' {
		return "", false
	}
	for _, c := range link[1:dot] {
		if c < '0' || c > '9' {
			return "", false
		}
	}
	return link[:dot], true
}

func decodeV1(body string) (State, error) {
	s := State{Version: 1, Selected: NoSelection}
	raw, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		return s, fail("it is damaged (it is not URL-safe base64)")
	}
	payload, err := inflate(bytes.NewReader(raw), payloadLength)
	if err != nil {
		return s, fail("it is damaged (%s)", inflateFault(err))
	}
	if len(payload) != payloadLength {
		return s, fail("it is damaged: %d bytes where a v1 link holds %d", len(payload), payloadLength)
	}
	if string(payload[:2]) != "DC" || payload[2] != 1 {
		return s, fail("it is damaged (bad header)")
	}
	r := reader{b: payload[3:]}
	flags := r.common(&s)
	copy(s.Image[:], r.next(Pixels))
	if err := check(&s, flags); err != nil {
		return s, err
	}
	return s, nil
}

func decodeV2(body string) (State, error) {
	s := State{Version: Latest}
	raw, err := base64.RawURLEncoding.Strict().DecodeString(body)
	if err != nil {
		return s, damaged("it is not URL-safe base64")
	}
	in := bytes.NewReader(raw) // an io.ByteReader: flate reads no further than its stream's end
	data, err := inflate(in, maxDecoded)
	switch {
	case err != nil:
		return s, damaged("%s", inflateFault(err))
	case len(data) > maxDecoded:
		return s, damaged("it decompresses to more than %d bytes", maxDecoded)
	case len(data) < payload2Length+crcLength:
		return s, damaged("%d bytes where a v2 link holds at least %d", len(data), payload2Length+crcLength)
	case in.Len() != 0:
		return s, damaged("it has %d bytes after its end", in.Len())
	}
	payload := data[:len(data)-crcLength]
	if crc32.ChecksumIEEE(payload) != binary.LittleEndian.Uint32(data[len(payload):]) {
		return s, damaged("its checksum does not match")
	}
	if string(payload[:2]) != "DC" || payload[2] != 2 {
		return s, damaged("bad header")
	}
	r := reader{b: payload[3:]}
	flags := r.common(&s)
	// Flag 8, CLUE's convergence rule, is v2's alone: check knows the flags both versions share.
	clueRule := flags&8 != 0
	flags &^= 8
	s.Selected = int(int16(r.u16()))
	count := int(r.u8())
	n := int(r.u16())
	if want := payload2Length + 8*count; len(payload) != want {
		return s, damaged("%d bytes where a v2 link with %d radii holds %d", len(payload), count, want)
	}
	if count > 0 {
		s.Sweep = clue.Ladder{Radii: make([]float64, count), N: n}
		for i := range s.Sweep.Radii {
			s.Sweep.Radii[i] = r.f64()
		}
	} else if n != 0 {
		return s, fail("its δ sweep is invalid (it has no radii but n = %d)", n)
	}
	copy(s.Image[:], r.next(Pixels))
	if err := check(&s, flags); err != nil {
		return s, err
	}
	if clueRule {
		s.Params.Convergence = clue.CLUERule
	}
	return s, nil
}

// inflateFault says why DEFLATE data did not decompress: it ends before the stream does (a link cut short), or
// it is not a valid stream.
func inflateFault(err error) string {
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return "its compressed data ends early, as if it was cut short"
	}
	return "its compressed data is not valid DEFLATE"
}

// check validates a decoded state: flags, parameters, sweep, selection and image.
func check(s *State, flags uint8) error {
	if flags&^7 != 0 {
		return fail("it is damaged (unknown flags)")
	}
	p := &s.Params
	p.DistanceMean = flags&1 != 0
	if flags&2 != 0 {
		p.Rho = clue.LInf
	}
	if flags&4 != 0 {
		p.Constraint = clue.Filter
	}
	if err := p.Validate(); err != nil {
		return fail("its parameters are invalid (%v)", err)
	}
	if len(s.Sweep.Radii) > 0 {
		if err := s.Sweep.Validate(); err != nil {
			return fail("its δ sweep is invalid (%v)", err)
		}
	}
	if n := p.Restarts(); s.Selected < NoSelection || s.Selected >= n {
		return fail("its selected explanation %d is not one of its %d restarts (0 to %d, or -1 for none)", s.Selected, n, n-1)
	}
	ink := 0
	for _, v := range s.Image {
		ink += int(v)
	}
	if ink < 255 {
		return fail("its image is empty")
	}
	return nil
}

// reader reads little-endian fields; past its end it reads zeros (callers check lengths first).
type reader struct{ b []byte }

func (r *reader) next(n int) []byte {
	if n > len(r.b) {
		r.b = nil
		return make([]byte, n)
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

func (r *reader) u8() uint8    { return r.next(1)[0] }
func (r *reader) u16() uint16  { return binary.LittleEndian.Uint16(r.next(2)) }
func (r *reader) u32() uint32  { return binary.LittleEndian.Uint32(r.next(4)) }
func (r *reader) u64() uint64  { return binary.LittleEndian.Uint64(r.next(8)) }
func (r *reader) f64() float64 { return math.Float64frombits(r.u64()) }

// common reads the fields both versions share, from the model fingerprint to the seed, and returns the flags
// for check to apply.
func (r *reader) common(s *State) (flags uint8) {
	p := &s.Params
	s.Model = r.u32()
	p.Delta = r.f64()
	p.N = int(r.u16())
	p.Scheme = clue.Scheme(r.u8())
	p.WTotal = r.f64()
	p.WAleatoric = r.f64()
	p.WEpistemic = r.f64()
	p.LambdaX = r.f64()
	flags = r.u8()
	p.LambdaY = r.f64()
	p.LambdaD = r.f64()
	p.LearningRate = r.f64()
	p.MaxSteps = int(r.u16())
	p.Window = int(r.u8())
	p.RelTol = r.f64()
	p.AbsTol = r.f64()
	p.MinSteps = int(r.u16())
	p.HThreshold = r.f64()
	p.DedupL1 = r.f64()
	p.Seed = r.u64()
	return flags
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
