package idx_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	. "github.com/deltaclue/deltaclue/internal/idx"
	"github.com/deltaclue/deltaclue/internal/testbundle"
	"github.com/deltaclue/deltaclue/mnist"
	"github.com/deltaclue/deltaclue/weights"
)

// header is an IDX header of unsigned bytes with these dimensions.
func header(dims ...uint32) []byte {
	b := []byte{0, 0, TypeUByte, byte(len(dims))}
	for _, d := range dims {
		b = binary.BigEndian.AppendUint32(b, d)
	}
	return b
}

func TestReadWriteRoundTrip(t *testing.T) {
	a := &Array{Dims: []int{2, 3, 2}, Data: []uint8{0, 1, 2, 3, 4, 5, 250, 251, 252, 253, 254, 255}}
	b, err := Encode(a)
	if err != nil {
		t.Fatal(err)
	}
	// The standard header: magic 0x00000803, then the dimensions big-endian.
	if want := append(header(2, 3, 2), a.Data...); !bytes.Equal(b, want) {
		t.Fatalf("encoded % x, want % x", b, want)
	}
	back, err := Read(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(back.Dims, a.Dims) || !bytes.Equal(back.Data, a.Data) {
		t.Errorf("read back %+v, wrote %+v", back, a)
	}
}

func TestReadRefuses(t *testing.T) {
	for _, c := range []struct {
		name string
		file []byte
		want string
	}{
		{"empty", nil, "cut short in its header"},
		{"magic", []byte{1, 0, 8, 1, 0, 0, 0, 1, 7}, "two zero bytes"},
		{"float values", []byte{0, 0, 0x0d, 1, 0, 0, 0, 1, 0, 0, 0, 0}, "type 0x0d"},
		{"no dimensions", []byte{0, 0, 8, 0}, "0 dimensions"},
		{"five dimensions", header(1, 1, 1, 1, 1), "5 dimensions"},
		{"cut in dims", header(3, 4)[:9], "cut short in its dimensions"},
		{"zero dimension", header(3, 0), "dimension 2 is 0"},
		{"a lying header", append(header(60000, 28, 28), 1, 2, 3), "declare 47040000 values and it holds 3"},
		{"gigabytes", header(1<<20, 1<<20), "more than 268435456 values"},
		{"trailing bytes", append(header(2), 1, 2, 3), "more than the 2 values"},
	} {
		_, err := Read(bytes.NewReader(c.file))
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrFormat) {
			t.Errorf("%s: %v, want an ErrFormat saying %q", c.name, err, c.want)
		}
	}
	if _, err := Encode(&Array{Dims: []int{2, 2}, Data: []uint8{1, 2, 3}}); err == nil {
		t.Error("an array of 3 values described as 2×2 was written")
	}
}

// bundles are the test bundles, grey (1×12×12, 4 classes) and colour (3×8×8, 3 classes).
func bundles(t *testing.T) (grey, colour *testbundle.Bundle) {
	t.Helper()
	grey, err := testbundle.Grey(3)
	if err != nil {
		t.Fatal(err)
	}
	if colour, err = testbundle.Colour(3); err != nil {
		t.Fatal(err)
	}
	return grey, colour
}

func TestItemsRoundTrip(t *testing.T) {
	grey, colour := bundles(t)
	for _, b := range []*testbundle.Bundle{grey, colour} {
		in, dir := b.Description.Input, t.TempDir()
		want := b.Items(5, 7)
		if err := WriteItems(dir, in, want); err != nil {
			t.Fatal(err)
		}
		got, err := ReadItems(dir, in, len(b.Description.Classes))
		if err != nil {
			t.Fatal(err)
		}
		if got.Len() != 5 || !bytes.Equal(got.Labels, want.Labels) || !bytes.Equal(got.Values, want.Values) {
			t.Errorf("%d channels: read back other items", in.Channels)
		}
		for i := range got.Len() {
			if !slices.Equal(got.Float(i, nil), want.Float(i, nil)) || got.Label(i) != want.Label(i) {
				t.Errorf("%d channels: item %d differs", in.Channels, i)
			}
		}
		b, _ := os.ReadFile(filepath.Join(dir, ImagesFile))
		if wantHead := header(5, 12, 12); in.Channels == 3 {
			wantHead = header(5, 3, 8, 8)
			if !bytes.HasPrefix(b, wantHead) {
				t.Errorf("colour items' header % x", b[:20])
			}
		} else if !bytes.HasPrefix(b, wantHead) {
			t.Errorf("grey items' header % x", b[:16])
		}
	}
}

// TestItemsOfTheDigits: the digits' test split written as IDX files reads back as the same values, bit for bit.
func TestItemsOfTheDigits(t *testing.T) {
	set, err := mnist.HeldOut()
	if err != nil {
		t.Fatal(err)
	}
	in := weights.DigitsDescription().Input
	dir := t.TempDir()
	sub := set.Subset([]int{0, 1, 1735})
	if err := WriteItems(dir, in, sub); err != nil {
		t.Fatal(err)
	}
	got, err := ReadItems(dir, in, 10)
	if err != nil {
		t.Fatal(err)
	}
	for i := range sub.Len() {
		if !slices.Equal(got.Float(i, nil), sub.Float(i, nil)) || got.Label(i) != sub.Label(i) {
			t.Errorf("digit %d differs", i)
		}
	}
}

func TestReadItemsRefuses(t *testing.T) {
	write := func(dir, name string, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	enc := func(a *Array) []byte {
		b, err := Encode(a)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	grey, _ := bundles(t)
	greyInput := grey.Description.Input
	good := grey.Items(3, 1)
	images := enc(&Array{Dims: []int{3, 12, 12}, Data: good.Values})
	labels := enc(&Array{Dims: []int{3}, Data: good.Labels})
	for _, c := range []struct {
		name           string
		images, labels []byte
		want           string
	}{
		{"no labels", images, nil, "has test-images.idx but no test-labels.idx"},
		{"no images", nil, labels, "has test-labels.idx but no test-images.idx"},
		{"truncated images", images[:len(images)-1], labels, "test-images.idx: not a valid IDX file of unsigned bytes: the file is cut short"},
		{"other size", enc(&Array{Dims: []int{3, 28, 28}, Data: make([]uint8, 3*784)}), labels, "holds 1×28×28 items (C×H×W), and the models take 1×12×12"},
		{"colour", enc(&Array{Dims: []int{3, 3, 12, 12}, Data: make([]uint8, 3*3*144)}), labels, "holds 3×12×12 items"},
		{"flat images", enc(&Array{Dims: []int{3, 144}, Data: good.Values}), labels, "dimensions 3×144: want [N, H, W]"},
		{"labels of two dims", images, enc(&Array{Dims: []int{3, 1}, Data: good.Labels}), "test-labels.idx has dimensions 3×1: want [N]"},
		{"count", images, enc(&Array{Dims: []int{2}, Data: good.Labels[:2]}), "holds 3 items and test-labels.idx 2 labels"},
		{"label", images, enc(&Array{Dims: []int{3}, Data: []uint8{0, 4, 1}}), "item 1's label is 4, and the models have 4 classes (0..3)"},
	} {
		dir := t.TempDir()
		if c.images != nil {
			write(dir, ImagesFile, c.images)
		}
		if c.labels != nil {
			write(dir, LabelsFile, c.labels)
		}
		_, err := ReadItems(dir, greyInput, 4)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), dir) {
			t.Errorf("%s: %v, want an error naming %s and saying %q", c.name, err, dir, c.want)
		}
	}
	if _, err := ReadItems(t.TempDir(), greyInput, 4); !errors.Is(err, ErrNoItems) {
		t.Errorf("a folder without items: %v, want ErrNoItems", err)
	}
}

// FuzzRead: Read never panics nor holds more than its input, and whatever it accepts is a header and exactly
// the values its dimensions declare, which Encode writes back byte for byte.
func FuzzRead(f *testing.F) {
	f.Add(append(header(2, 3, 2), make([]byte, 12)...))
	f.Add(append(header(4), 0, 1, 2, 3))
	f.Add(append(header(1, 3, 2, 2), make([]byte, 12)...))
	f.Add(header(60000, 28, 28))
	f.Add([]byte{0, 0, 8, 1, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := Read(bytes.NewReader(b))
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("an error that is not ErrFormat: %v", err)
			}
			return
		}
		if len(a.Data) != Count(a.Dims) || len(a.Data) > len(b) {
			t.Fatalf("dimensions %v, %d values from %d bytes", a.Dims, len(a.Data), len(b))
		}
		again, err := Encode(a)
		if err != nil || !bytes.Equal(again, b) {
			t.Fatalf("re-encoded differently (%v)", err)
		}
	})
}
