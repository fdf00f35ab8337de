package sharelink

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"math"
	"strings"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/weights"
)

// inflate decompresses a link's bytes read from in, at most limit+1 of them (so that a caller tells a stream
// longer than limit). A decompressor is a few tens of KB and a link is read once, when opened: it is not kept.
func inflate(in io.Reader, limit int) ([]byte, error) {
	return io.ReadAll(io.LimitReader(flate.NewReader(in), int64(limit)+1))
}

// Decode reads a link of version 1, 2 or 3: a whole URL, a fragment with or without "#". Every failure is an
// *Error; for a v2 or v3 link whose characters were changed, cut or added to, its text says "it was changed or
// damaged". A v1 link decodes with Version 1, no sweep and Selected = NoSelection; v1 and v2 links are the
// digits' (Models DigitsModels, a 28×28 grey image: Height 0).
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
	case strings.HasPrefix(link, prefix3):
		return decodeV3(link[len(prefix3):])
	}
	if v, ok := versionOf(link); ok {
		return State{}, fail("it was made by another version of deltaclue (%s), this page reads v1 to v3", v)
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

func decodeV2(body string) (State, error) {
	s := State{Version: 2, Models: DigitsModels}
	payload, err := unpack(body, 2, maxDecoded, payload2Length)
	if err != nil {
		return s, err
	}
	r := reader{b: payload[3:]}
	flags, clueRule, count, n := r.head(&s)
	if want := payload2Length + 8*count; len(payload) != want {
		return s, damaged("%d bytes where a v2 link with %d radii holds %d", len(payload), count, want)
	}
	if err := r.ladder(&s, count, n); err != nil {
		return s, err
	}
	s.Image = bytes.Clone(r.next(Pixels))
	return checked(s, flags, clueRule)
}

// decodeV3 reads a v3 link: the models' name, the fields v2 has, then the image's shape and its bytes.
func decodeV3(body string) (State, error) {
	s := State{Version: 3}
	payload, err := unpack(body, 3, maxDecoded3, 4)
	if err != nil {
		return s, err
	}
	nameLen := int(payload[3])
	fixed := 4 + nameLen + payload2Length - 3 - Pixels + 5 // header, name, the shared fields without radii, the shape
	if len(payload) < fixed {
		return s, damaged("%d bytes where a v3 link holds at least %d", len(payload), fixed)
	}
	s.Models = string(payload[4 : 4+nameLen])
	if !validModels(s.Models) {
		return s, fail("its models' name %q is not one a model can have", s.Models)
	}
	r := reader{b: payload[4+nameLen:]}
	flags, clueRule, count, n := r.head(&s)
	s.Params.Sparse, flags = flags&16 != 0, flags&^16 // (v3 only: a v2 link's is an unknown flag)
	if len(r.b) < 8*count+5 {
		return s, damaged("it ends inside its δ sweep")
	}
	if err := r.ladder(&s, count, n); err != nil {
		return s, err
	}
	s.Channels, s.Height, s.Width = int(r.u8()), int(r.u16()), int(r.u16())
	if s.Channels != 1 && s.Channels != 3 || s.Height < 1 || s.Width < 1 || s.Height > MaxSide || s.Width > MaxSide {
		return s, fail("its image is %d×%d with %d channels: 1 to %d pixels a side, 1 or 3 channels", s.Height, s.Width, s.Channels, MaxSide)
	}
	size := s.Height * s.Width * s.Channels
	if len(r.b) < size {
		return s, damaged("its image has %d bytes where a %d×%d image of %d channels has %d", len(r.b), s.Height, s.Width, s.Channels, size)
	}
	s.Image = bytes.Clone(r.next(size))
	if len(r.b) > 0 { // the locked columns, for a model of rows
		if len(r.b) < 3 || r.b[0] != 'L' {
			return s, damaged("it has %d bytes after its image that are not a list of locked columns", len(r.b))
		}
		r.next(1)
		n := int(r.u16())
		if n == 0 || n > maxLock || len(r.b) != n {
			return s, damaged("its list of locked columns holds %d bytes where it says %d (1 to %d)", len(r.b), n, maxLock)
		}
		s.Params.Lock = clue.ColumnList(r.next(n))
	}
	return checked(s, flags, clueRule)
}

// head reads the fields v2 and v3 share up to their δ sweep: the common ones, the selection, and the sweep's
// number of radii and restarts per radius. Flag 8, CLUE's convergence rule, is taken out of flags (clueRule):
// check knows the flags v1 shares.
func (r *reader) head(s *State) (flags uint8, clueRule bool, count, n int) {
	flags = r.common(s)
	clueRule, flags = flags&8 != 0, flags&^8
	s.Selected = int(int16(r.u16()))
	return flags, clueRule, int(r.u8()), int(r.u16())
}

// checked is s once check accepts it with flags, with CLUE's convergence rule if the link asked for it.
func checked(s State, flags uint8, clueRule bool) (State, error) {
	if err := check(&s, flags); err != nil {
		return s, err
	}
	if clueRule {
		s.Params.Convergence = clue.CLUERule
	}
	return s, nil
}

// validModels says whether a name is one a model description may give.
func validModels(s string) bool { return weights.ValidName(s) }

// unpack reads a v2 or v3 link's body: base64, then DEFLATE (at most limit bytes), then the checksum and the
// header "DC" and the version; the payload, without its checksum, holds at least least bytes.
func unpack(body string, version byte, limit, least int) ([]byte, error) {
	raw, err := base64.RawURLEncoding.Strict().DecodeString(body)
	if err != nil {
		return nil, damaged("it is not URL-safe base64")
	}
	in := bytes.NewReader(raw) // an io.ByteReader: flate reads no further than its stream's end
	data, err := inflate(in, limit)
	switch {
	case err != nil:
		return nil, damaged("%s", inflateFault(err))
	case len(data) > limit:
		return nil, damaged("it decompresses to more than %d bytes", limit)
	case len(data) < least+crcLength:
		return nil, damaged("%d bytes where a v%d link holds at least %d", len(data), version, least+crcLength)
	case in.Len() != 0:
		return nil, damaged("it has %d bytes after its end", in.Len())
	}
	payload := data[:len(data)-crcLength]
	if crc32.ChecksumIEEE(payload) != binary.LittleEndian.Uint32(data[len(payload):]) {
		return nil, damaged("its checksum does not match")
	}
	if string(payload[:2]) != "DC" || payload[2] != version {
		return nil, damaged("bad header")
	}
	return payload, nil
}

// ladder reads a sweep's count radii (count 0: no sweep, whose n must be 0).
func (r *reader) ladder(s *State, count, n int) error {
	if count == 0 {
		if n != 0 {
			return fail("its δ sweep is invalid (it has no radii but n = %d)", n)
		}
		return nil
	}
	s.Sweep = clue.Ladder{Radii: make([]float64, count), N: n}
	for i := range s.Sweep.Radii {
		s.Sweep.Radii[i] = r.f64()
	}
	return nil
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
