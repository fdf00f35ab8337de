// Package idx reads and writes IDX files of unsigned bytes, the format MNIST is distributed in, and the test
// items a models folder may hold as a pair of them (test-images.idx and test-labels.idx, see Items).
//
// An IDX file is a header and the values, big-endian:
//
//	offset  size  field
//	0       2     zero
//	2       1     the values' type: 0x08, unsigned byte (the only one read here)
//	3       1     the number of dimensions D (1 to MaxDims)
//	4       4·D   each dimension (uint32), outermost first
//	then          the values, row-major: the product of the dimensions, one byte each
//
// The magic number is the first four bytes read as a uint32: 0x00000800 | D for unsigned bytes.
package idx

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// TypeUByte is the type byte of unsigned-byte values, the only type this package reads and writes.
const TypeUByte = 0x08

// MaxDims is the most dimensions an array may have.
const MaxDims = 4

// MaxValues bounds the values an array may declare (256 MiB), so that a corrupt header cannot make a reader
// allocate gigabytes; a reader also never holds more than the file gives it.
const MaxValues = 1 << 28

// ErrFormat is wrapped by every error Read returns for malformed input.
var ErrFormat = errors.New("not a valid IDX file of unsigned bytes")

// Array is an IDX file's contents: its dimensions, outermost first, and its values, row-major.
type Array struct {
	Dims []int
	Data []uint8
}

// Count is the number of values the dimensions give (1 for no dimensions).
func Count(dims []int) int {
	n := 1
	for _, d := range dims {
		n *= d
	}
	return n
}

// Shape writes dimensions as "2000×28×28".
func Shape(dims []int) string {
	s := make([]string, len(dims))
	for i, d := range dims {
		s[i] = strconv.Itoa(d)
	}
	return strings.Join(s, "×")
}

// Read reads an array, checking the header (zero bytes, the type, the number of dimensions, each dimension and
// their product against MaxValues), that every value is there, and that nothing follows the last one. Errors
// for malformed input wrap ErrFormat and say what is wrong.
func Read(r io.Reader) (*Array, error) {
	fail := func(format string, args ...any) (*Array, error) {
		return nil, fmt.Errorf("%w: %s", ErrFormat, fmt.Sprintf(format, args...))
	}
	var head [4]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return fail("the file is cut short in its header")
	}
	if head[0] != 0 || head[1] != 0 {
		return fail("its magic number %08x does not start with two zero bytes", binary.BigEndian.Uint32(head[:]))
	}
	if head[2] != TypeUByte {
		return fail("its values are of type 0x%02x, and only unsigned bytes (0x08) are read", head[2])
	}
	nd := int(head[3])
	if nd < 1 || nd > MaxDims {
		return fail("it has %d dimensions, want 1 to %d", nd, MaxDims)
	}
	raw := make([]byte, 4*nd)
	if _, err := io.ReadFull(r, raw); err != nil {
		return fail("the file is cut short in its dimensions")
	}
	a := &Array{Dims: make([]int, nd)}
	total := uint64(1)
	for i := range a.Dims {
		d := binary.BigEndian.Uint32(raw[4*i:])
		if d == 0 {
			return fail("dimension %d is 0", i+1)
		}
		if total *= uint64(d); total > MaxValues {
			return fail("its dimensions declare more than %d values, the limit", MaxValues)
		}
		a.Dims[i] = int(d)
	}
	// Read through a limit rather than into a buffer sized by the header, so that a lying header in a short
	// file costs no more memory than the file itself.
	data, err := io.ReadAll(io.LimitReader(r, int64(total)))
	if err != nil {
		return nil, err
	}
	if uint64(len(data)) != total {
		return fail("the file is cut short: its dimensions %s declare %d values and it holds %d", Shape(a.Dims), total, len(data))
	}
	var one [1]byte
	if n, _ := io.ReadFull(r, one[:]); n > 0 {
		return fail("it holds more than the %d values its dimensions %s declare", total, Shape(a.Dims))
	}
	a.Data = data
	return a, nil
}

// Write writes a as an IDX file of unsigned bytes; it refuses an array its dimensions do not describe, or one
// Read would refuse.
func Write(w io.Writer, a *Array) error {
	b, err := Encode(a)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// Encode is Write's bytes.
func Encode(a *Array) ([]byte, error) {
	if len(a.Dims) < 1 || len(a.Dims) > MaxDims {
		return nil, fmt.Errorf("an IDX array has 1 to %d dimensions, not %d", MaxDims, len(a.Dims))
	}
	total := uint64(1)
	for _, d := range a.Dims {
		if d < 1 || uint64(d) > MaxValues {
			return nil, fmt.Errorf("dimensions %v: each must be 1 to %d", a.Dims, MaxValues)
		}
		total *= uint64(d)
		if total > MaxValues {
			return nil, fmt.Errorf("dimensions %s declare more than %d values, the limit", Shape(a.Dims), MaxValues)
		}
	}
	if uint64(len(a.Data)) != total {
		return nil, fmt.Errorf("dimensions %s declare %d values, and the array holds %d", Shape(a.Dims), total, len(a.Data))
	}
	b := make([]byte, 0, 4+4*len(a.Dims)+len(a.Data))
	b = append(b, 0, 0, TypeUByte, byte(len(a.Dims)))
	for _, d := range a.Dims {
		b = binary.BigEndian.AppendUint32(b, uint32(d))
	}
	return append(b, a.Data...), nil
}
