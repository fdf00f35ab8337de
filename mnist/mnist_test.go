package mnist

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha512"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
)

func tinySet() *Set {
	s := &Set{Labels: []uint8{3, 7, 0}, Pixels: make([]uint8, 3*Pixels)}
	for i := range s.Pixels {
		s.Pixels[i] = uint8(i * 31)
	}
	return s
}

func encode(t testing.TB, s *Set) []byte {
	var buf bytes.Buffer
	if err := s.Write(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestRoundTrip(t *testing.T) {
	s := tinySet()
	got, err := Read(bytes.NewReader(encode(t, s)))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Labels, s.Labels) || !bytes.Equal(got.Pixels, s.Pixels) {
		t.Fatal("round trip changed the set")
	}
	if f := got.Float(1, nil); f[0] != float32(got.Image(1)[0])/255 {
		t.Fatalf("Float: %v", f[0])
	}
}

func TestReadRejectsMalformed(t *testing.T) {
	good := encode(t, tinySet())
	mutate := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	cases := map[string]struct {
		data []byte
		want string
	}{
		"empty":          {nil, "truncated"},
		"bad magic":      {mutate(func(b []byte) []byte { b[0] = 'X'; return b }), "magic"},
		"wrong size":     {mutate(func(b []byte) []byte { b[12] = 27; return b }), "27×28"},
		"reserved":       {mutate(func(b []byte) []byte { b[15] = 1; return b }), "reserved"},
		"huge count":     {mutate(func(b []byte) []byte { b[8] = 0xff; return b }), "limit"},
		"truncated":      {good[:len(good)-100], "truncated"},
		"no checksum":    {good[:len(good)-4], "truncated"},
		"flipped pixel":  {mutate(func(b []byte) []byte { b[100] ^= 1; return b }), "checksum"},
		"trailing bytes": {append(append([]byte(nil), good...), 0), "trailing"},
	}
	for name, c := range cases {
		_, err := Read(bytes.NewReader(c.data))
		if err == nil || !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want ErrFormat mentioning %q", name, err, c.want)
		}
	}
	bad := tinySet()
	bad.Labels[0] = 10
	if err := bad.Write(&bytes.Buffer{}); err == nil {
		t.Error("Write accepted label 10")
	}
}

func FuzzRead(f *testing.F) {
	f.Add(encode(f, tinySet()))
	f.Add([]byte("DCDIGIT1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Read(bytes.NewReader(data))
		if err != nil {
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("Read returned an invalid set: %v", err)
		}
		if again := encode(t, s); !bytes.Equal(again, data) {
			t.Fatal("a file Read accepts does not re-encode to itself")
		}
	})
}

func TestStratifiedSplit(t *testing.T) {
	s := &Set{}
	counts := []int{101, 113, 99, 103, 98, 86, 101, 107, 94, 98} // 1,000 digits
	for c, n := range counts {
		for range n {
			s.Labels = append(s.Labels, uint8(c))
		}
	}
	s.Pixels = make([]uint8, s.Len()*Pixels)
	sp, err := StratifiedSplit(s, 700, 100, 200, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(sp.Train) != 700 || len(sp.Val) != 100 || len(sp.Test) != 200 {
		t.Fatalf("sizes %d/%d/%d", len(sp.Train), len(sp.Val), len(sp.Test))
	}
	seen := map[int]bool{}
	perClass := make([]int, Classes)
	for _, part := range [][]int{sp.Train, sp.Val, sp.Test} {
		for _, i := range part {
			if seen[i] {
				t.Fatalf("index %d in two parts", i)
			}
			seen[i] = true
		}
	}
	for _, i := range sp.Test {
		perClass[s.Labels[i]]++
	}
	for c, n := range counts {
		if d := float64(perClass[c]) - float64(n)*0.2; d < -1 || d > 1 {
			t.Errorf("class %d: %d test digits of %d", c, perClass[c], n)
		}
	}
	again, _ := StratifiedSplit(s, 700, 100, 200, 1)
	other, _ := StratifiedSplit(s, 700, 100, 200, 2)
	if again.Hash() != sp.Hash() || other.Hash() == sp.Hash() {
		t.Error("the split is not a function of the seed")
	}
	if _, err := StratifiedSplit(s, 700, 100, 199, 1); err == nil {
		t.Error("sizes that do not add up were accepted")
	}
}

func TestHeldOut(t *testing.T) {
	s, err := HeldOut()
	if err != nil {
		t.Fatal(err)
	}
	if s.Len() != 2000 {
		t.Fatalf("held-out split has %d digits, want 2000", s.Len())
	}
	perClass := make([]int, Classes)
	for _, l := range s.Labels {
		perClass[l]++
	}
	for c, n := range perClass {
		if n < 170 || n > 230 {
			t.Errorf("class %d has %d held-out digits", c, n)
		}
	}
}

// npmTarball builds a fake npm package holding the given class files.
func npmTarball(t *testing.T, files map[string]string) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for name, body := range files {
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body))})
		tw.Write([]byte(body))
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

func TestReadNPMPackageErrors(t *testing.T) {
	if _, err := ReadNPMPackage([]byte("not gzip")); err == nil || !strings.Contains(err.Error(), "gzip") {
		t.Errorf("not gzip: %v", err)
	}
	full := npmTarball(t, map[string]string{"package/src/digits/0.json": `{"data":[0.5]}`})
	if _, err := ReadNPMPackage(full[:len(full)/2]); err == nil {
		t.Error("a truncated tarball was accepted")
	}
	if _, err := ReadNPMPackage(full); err == nil || !strings.Contains(err.Error(), "multiple of 784") {
		t.Errorf("short data: %v", err)
	}
	files := map[string]string{}
	one := "[" + strings.TrimSuffix(strings.Repeat("0.502,", Pixels), ",") + "]"
	for d := range 9 {
		files["package/src/digits/"+string(rune('0'+d))+".json"] = `{"data":` + one + `}`
	}
	if _, err := ReadNPMPackage(npmTarball(t, files)); err == nil || !strings.Contains(err.Error(), "9.json") {
		t.Errorf("missing class file: %v", err)
	}
	files["package/src/digits/9.json"] = `{"data":` + strings.Replace(one, "0.502", "0.5024", 1) + `}`
	if _, err := ReadNPMPackage(npmTarball(t, files)); err != nil && !strings.Contains(err.Error(), "holds 10 digits") {
		t.Errorf("near-grid values should be accepted, got %v", err)
	}
	files["package/src/digits/9.json"] = `{"data":` + strings.Replace(one, "0.502", "0.7777", 1) + `}`
	if _, err := ReadNPMPackage(npmTarball(t, files)); err == nil || !strings.Contains(err.Error(), "k/255") {
		t.Errorf("off-grid value: %v", err)
	}
}

func TestVerifyIntegrity(t *testing.T) {
	data := []byte("hello")
	sum := sha512.Sum512(data)
	good := "sha512-" + base64.StdEncoding.EncodeToString(sum[:])
	if err := VerifyIntegrity(data, good); err != nil {
		t.Fatal(err)
	}
	if err := VerifyIntegrity(data[:4], good); err == nil || !strings.Contains(err.Error(), "make data") {
		t.Errorf("truncated data: %v", err)
	}
	if err := VerifyIntegrity(data, "md5-abc"); err == nil {
		t.Error("md5 integrity accepted")
	}
}
