package searchworker

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"strconv"
	"unsafe"
)

// The wire format: every message is one ArrayBuffer, little-endian, floats as their IEEE bits (so the page
// holds exactly the bits the worker computed), read back with every length checked against what is left:
//
//	message  = magic "DW" | version 2 | type u8 | id i32 | body (by type)
//	string   = length u32 | UTF-8
//	floats   = count u32 | count × f32
//	ints     = count u32 | count × i32
//	request bodies:  inspect: floats x0;  explain: floats x0, params, ints restarts;
//	                 trace: floats x0, params, restart i32;  cancel: nothing;
//	                 results: count u16, count × explanation (a search worker's results, passed on: summary.go)
//	                 summarize: floats x0, floats z0, classes i32, label0 i32, params, count u32, count × explanation,
//	                            figures u8, count u32, count × floats (a traced path)
//	response bodies: ready: string version, fingerprint u32, at f64, string models;  error: string;
//	                 inspected: inspection, count u32, count × (to i32, label i32, sure u8, k, shift, h, d f32,
//	                            floats image) (GLAM-CLUE's answers), amortised ms f64;
//	                 results: count u16, count × explanation;  traced: trajectory;  done: seconds f64, string error, heap u64, sys u64;
//	                 alive: nothing;  warm: seconds f64, restart-steps u32;  summarized: count i32, the summary field by field, CARLA's measures field by
//	                 field, count u32, count × mark,
//	                 string trade-off SVG, string latent map SVG
//
// It replaces JSON texts: a set of 100 explanations is 0.7 MB of JSON numbers that the page would parse in Go,
// against 0.3 MB of raw floats it copies, and the worker no longer links encoding/json.

var wireMagic = [3]byte{'D', 'W', 2}

// MaxMessage bounds what Unmarshal accepts, so that a corrupt length cannot make it allocate much.
const MaxMessage = 64 << 20

var typeCodes = []string{"", "inspect", "explain", "trace", "cancel", "ready", "error", "inspected", "results", "traced", "done", "alive", "summarize", "summarized", "warm"}

func typeCode(t string) byte {
	for i, s := range typeCodes {
		if s == t && i > 0 {
			return byte(i)
		}
	}
	return 0
}

// littleEndian says whether a float32's bytes in memory are the wire's (WebAssembly's always are): then a list
// of floats travels as one copy of its memory. The page's binary is built without inlining, and a call per
// value made decoding the results of a search a large part of the page's thread's work.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

type writer struct{ b []byte }

func (w *writer) u8(v uint8)    { w.b = append(w.b, v) }
func (w *writer) u16(v uint16)  { w.b = binary.LittleEndian.AppendUint16(w.b, v) }
func (w *writer) u32(v uint32)  { w.b = binary.LittleEndian.AppendUint32(w.b, v) }
func (w *writer) u64(v uint64)  { w.b = binary.LittleEndian.AppendUint64(w.b, v) }
func (w *writer) i32(v int)     { w.u32(uint32(int32(v))) }
func (w *writer) f32(v float32) { w.u32(math.Float32bits(v)) }
func (w *writer) f64(v float64) { w.u64(math.Float64bits(v)) }
func (w *writer) flag(v bool) {
	if v {
		w.u8(1)
	} else {
		w.u8(0)
	}
}
func (w *writer) str(s string) { w.u32(uint32(len(s))); w.b = append(w.b, s...) }

// floats writes a list in one pass over a buffer grown once: the page marshals every image of a large set for
// the summary worker on its main thread, and a call per value (the page's binary is built without inlining)
// made that a quarter of a second per 500 restarts.
func (w *writer) floats(v []float32) {
	w.u32(uint32(len(v)))
	n := len(w.b)
	w.b = slices.Grow(w.b, 4*len(v))[:n+4*len(v)]
	out := w.b[n:]
	if littleEndian && len(v) > 0 {
		copy(out, unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 4*len(v)))
		return
	}
	for i, x := range v {
		b := math.Float32bits(x)
		out[4*i], out[4*i+1], out[4*i+2], out[4*i+3] = byte(b), byte(b>>8), byte(b>>16), byte(b>>24)
	}
}
func (w *writer) ints(v []int) {
	w.u32(uint32(len(v)))
	for _, x := range v {
		w.i32(x)
	}
}

type reader struct {
	b      []byte
	err    error
	shared bool // strings share b's memory (UnmarshalResponseShared)
}

var errShort = errors.New("the message is cut short")

func (r *reader) take(n int) []byte {
	if r.err != nil || n < 0 || n > len(r.b) {
		r.err = errShort
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}
func (r *reader) u8() uint8 {
	if b := r.take(1); b != nil {
		return b[0]
	}
	return 0
}
func (r *reader) u16() uint16 {
	if b := r.take(2); b != nil {
		return binary.LittleEndian.Uint16(b)
	}
	return 0
}
func (r *reader) u32() uint32 {
	if b := r.take(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}
func (r *reader) u64() uint64 {
	if b := r.take(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}
func (r *reader) i32() int     { return int(int32(r.u32())) }
func (r *reader) f32() float32 { return math.Float32frombits(r.u32()) }
func (r *reader) f64() float64 { return math.Float64frombits(r.u64()) }
func (r *reader) flag() bool   { return r.u8() != 0 }
func (r *reader) count(size int) int {
	n := r.u32()
	if r.err == nil && uint64(n)*uint64(size) > uint64(len(r.b)) {
		r.err = errShort
		return 0
	}
	return int(n)
}
func (r *reader) str() string {
	b := r.take(r.count(1))
	if r.shared && len(b) > 0 {
		return unsafe.String(&b[0], len(b))
	}
	return string(b)
}

// floats returns nil for an empty list, as the engine's types hold it.
func (r *reader) floats() []float32 {
	n := r.count(4)
	if n == 0 {
		return nil
	}
	out := make([]float32, n)
	b := r.take(4 * n) // count checked that the bytes are there: one pass, as floats writes them
	if littleEndian {
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&out[0])), 4*n), b)
		return out
	}
	for i := range out {
		out[i] = math.Float32frombits(uint32(b[4*i]) | uint32(b[4*i+1])<<8 | uint32(b[4*i+2])<<16 | uint32(b[4*i+3])<<24)
	}
	return out
}
func (r *reader) ints() []int {
	n := r.count(4)
	if n == 0 {
		return nil
	}
	out := make([]int, n)
	for i := range out {
		out[i] = r.i32()
	}
	return out
}

// IDOffset is where a message's ID sits: the page re-addresses a search worker's "results" to the summary's
// run there, in place, and passes the message on as a request (summary.go).
const IDOffset = len(wireMagic) + 1

func open(b []byte) (*reader, error) {
	if len(b) > MaxMessage {
		return nil, errors.New("a malformed message: " + strconv.Itoa(len(b)) + " bytes is too long")
	}
	if len(b) < 3 || b[0] != wireMagic[0] || b[1] != wireMagic[1] {
		return nil, errors.New("a malformed message: not a deltaclue worker message")
	}
	if b[2] != wireMagic[2] {
		return nil, errors.New("a message of wire version " + strconv.Itoa(int(b[2])) + ", this build speaks " + strconv.Itoa(int(wireMagic[2])))
	}
	return &reader{b: b[3:]}, nil
}

func (r *reader) typ() string {
	c := r.u8()
	if int(c) < len(typeCodes) {
		return typeCodes[c]
	}
	return ""
}

func (r *reader) done(what string) error {
	if r.err != nil {
		return errors.New("a malformed " + what + ": " + r.err.Error())
	}
	if len(r.b) != 0 {
		return errors.New("a malformed " + what + ": " + strconv.Itoa(len(r.b)) + " bytes left over")
	}
	return nil
}
