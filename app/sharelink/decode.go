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
)

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
