// Package sharelink encodes an explanation's whole input (the quantised image, every search parameter and the
// seed, and the models' fingerprint) into the URL fragment the page shares, and decodes it back with a clear
// error for anything malformed, truncated, too large or from another version.
//
// A link's fragment is "#" + "v1." + base64url (no padding) of the DEFLATE-compressed payload:
//
//	"DC" | version 1 | model fingerprint u32 | delta f64 | n u16 | scheme u8 | w_total f64 | w_aleatoric f64 |
//	w_epistemic f64 | lambda_x f64 | flags u8 (1 distance_mean, 2 rho = linf, 4 constraint = filter) |
//	lambda_y f64 | lambda_d f64 | learning_rate f64 | max_steps u16 | window u8 | rel_tol f64 | abs_tol f64 |
//	min_steps u16 | h_threshold f64 | dedup_l1 f64 | seed u64 | 784 pixel bytes (intensity k/255)
//
// all little-endian. A typical link is about 500 characters. Nothing in a link is ever interpreted as markup or
// code: it decodes to numbers or to an error.
package sharelink

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/deltaclue/deltaclue/engine/clue"
)

// Pixels is the number of pixels in a link's image.
const Pixels = 784

// Limits on what Decode reads.
const (
	MaxLinkLength = 8192 // characters of the fragment
	payloadLength = 3 + 4 + 8 + 2 + 1 + 8*4 + 1 + 8*3 + 2 + 1 + 8*2 + 2 + 8*2 + 8 + Pixels
)

const prefix = "v1."

// State is everything a link carries.
type State struct {
	Image  [Pixels]uint8 // x0 quantised: intensity = value/255
	Params clue.Params
	Model  uint32 // fingerprint of the models the explanation was made with
}

// Error is what Decode returns: a sentence fit to show a user.
type Error struct{ Reason string }

func (e *Error) Error() string { return "this link cannot be opened: " + e.Reason }

func fail(format string, args ...any) error { return &Error{Reason: fmt.Sprintf(format, args...)} }

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

// Encode returns the fragment (without "#") for s.
func Encode(s State) string {
	var b bytes.Buffer
	w := func(v any) { binary.Write(&b, binary.LittleEndian, v) }
	p := s.Params
	b.WriteString("DC")
	b.WriteByte(1)
	w(s.Model)
	w(p.Delta)
	w(uint16(p.N))
	w(uint8(p.Scheme))
	w(p.WTotal)
	w(p.WAleatoric)
	w(p.WEpistemic)
	w(p.LambdaX)
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
	w(flags)
	w(p.LambdaY)
	w(p.LambdaD)
	w(p.LearningRate)
	w(uint16(p.MaxSteps))
	w(uint8(p.Window))
	w(p.RelTol)
	w(p.AbsTol)
	w(uint16(p.MinSteps))
	w(p.HThreshold)
	w(p.DedupL1)
	w(p.Seed)
	b.Write(s.Image[:])
	var z bytes.Buffer
	fw, _ := flate.NewWriter(&z, flate.BestCompression)
	fw.Write(b.Bytes())
	fw.Close()
	return prefix + base64.RawURLEncoding.EncodeToString(z.Bytes())
}

// Decode reads a link: a whole URL, a fragment with or without "#". Every failure is an *Error.
func Decode(link string) (State, error) {
	var s State
	if i := strings.IndexByte(link, '#'); i >= 0 {
		link = link[i+1:]
	}
	switch {
	case link == "":
		return s, fail("it holds no explanation")
	case len(link) > MaxLinkLength:
		return s, fail("it is %d characters long, more than a deltaclue link can be (%d)", len(link), MaxLinkLength)
	case strings.HasPrefix(link, "v") && !strings.HasPrefix(link, prefix) && strings.Contains(link, "."):
		return s, fail("it was made by another version of deltaclue (%s), this page reads v1", link[:strings.IndexByte(link, '.')])
	case !strings.HasPrefix(link, prefix):
		return s, fail("it is not a deltaclue link")
	}
	raw, err := base64.RawURLEncoding.DecodeString(link[len(prefix):])
	if err != nil {
		return s, fail("it is damaged (not URL-safe base64): was it cut short or changed?")
	}
	payload, err := io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(raw)), payloadLength+1))
	if err != nil {
		return s, fail("it is damaged (it does not decompress): was it cut short?")
	}
	if len(payload) != payloadLength {
		return s, fail("it is damaged: %d bytes where a v1 link holds %d", len(payload), payloadLength)
	}
	if string(payload[:2]) != "DC" || payload[2] != 1 {
		return s, fail("it is damaged (bad header)")
	}
	r := bytes.NewReader(payload[3:])
	rd := func(v any) { binary.Read(r, binary.LittleEndian, v) }
	var n, maxSteps, minSteps uint16
	var scheme, flags, window uint8
	p := &s.Params
	rd(&s.Model)
	rd(&p.Delta)
	rd(&n)
	rd(&scheme)
	rd(&p.WTotal)
	rd(&p.WAleatoric)
	rd(&p.WEpistemic)
	rd(&p.LambdaX)
	rd(&flags)
	rd(&p.LambdaY)
	rd(&p.LambdaD)
	rd(&p.LearningRate)
	rd(&maxSteps)
	rd(&window)
	rd(&p.RelTol)
	rd(&p.AbsTol)
	rd(&minSteps)
	rd(&p.HThreshold)
	rd(&p.DedupL1)
	rd(&p.Seed)
	r.Read(s.Image[:])
	p.N, p.Scheme, p.MaxSteps, p.Window, p.MinSteps = int(n), clue.Scheme(scheme), int(maxSteps), int(window), int(minSteps)
	if flags&^7 != 0 {
		return s, fail("it is damaged (unknown flags)")
	}
	p.DistanceMean = flags&1 != 0
	if flags&2 != 0 {
		p.Rho = clue.LInf
	}
	if flags&4 != 0 {
		p.Constraint = clue.Filter
	}
	if err := p.Validate(); err != nil {
		return s, fail("its parameters are invalid (%v)", err)
	}
	ink := 0
	for _, v := range s.Image {
		ink += int(v)
	}
	if ink < 255 {
		return s, fail("its image is empty")
	}
	return s, nil
}

// ErrModel is wrapped by CheckModel's error.
var ErrModel = errors.New("made with other models")

// CheckModel returns an error if the link was made with models other than those with this fingerprint:
// its explanations would not be the same.
func CheckModel(s State, fingerprint uint32) error {
	if s.Model != fingerprint {
		return fmt.Errorf("%w: this link was made with models %08x and this page runs %08x, so its explanations would differ; "+
			"open it on the version of deltaclue that made it", ErrModel, s.Model, fingerprint)
	}
	return nil
}
