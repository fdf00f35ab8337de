package weights

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

func TestShippedBundleOpens(t *testing.T) {
	b := ShippedBundle()
	vae, bnn, anchors, err := OpenBundle(b)
	if err != nil {
		t.Fatal(err)
	}
	sv, _ := ShippedVAE()
	sb, _ := ShippedBNN()
	sa, _ := ShippedAnchors()
	if Fingerprint(vae, bnn, anchors) != Fingerprint(sv, sb, sa) {
		t.Error("the bundle's models are not the shipped ones")
	}
}

func TestBundleErrors(t *testing.T) {
	good := ShippedBundle()
	flip := append([]byte(nil), good...)
	flip[len(flip)/2] ^= 1 // inside the VAE's payload: its SHA-256 no longer matches
	cases := map[string]struct {
		data []byte
		want string
	}{
		"empty":            {nil, "not one"},
		"foreign":          {[]byte("PK\x03\x04 a zip file"), "not one"},
		"cut short":        {good[:len(good)-10], "cut short"},
		"trailing bytes":   {append(append([]byte(nil), good...), 0), "after its last file"},
		"one byte changed": {flip, "sha"},
		"too many files":   {append([]byte(BundleMagic), 0xff, 0xff, 0, 0), "at most"},
		"missing model":    {EncodeBundle([]BundleFile{{BundleVAE, vaeBytes}, {BundleBNN, bnnBytes}}), "no anchors.dcw"},
		"twice":            {EncodeBundle([]BundleFile{{BundleVAE, vaeBytes}, {BundleVAE, vaeBytes}}), "twice"},
	}
	for name, c := range cases {
		_, _, _, err := OpenBundle(c.data)
		if err == nil || !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(c.want)) {
			t.Errorf("%s: error %v, want it to mention %q", name, err, c.want)
		}
	}
}

// TestOpenHashedBundle: a bundle whose hash was matched opens to the very models OpenBundle gives, and every
// check but the payload hashes still holds: what differs from OpenBundle is only a payload changed under an
// unchanged manifest, which the bundle's own hash (the caller's to match) is there to catch.
func TestOpenHashedBundle(t *testing.T) {
	good := ShippedBundle()
	v1, b1, a1, err := OpenBundle(good)
	if err != nil {
		t.Fatal(err)
	}
	v2, b2, a2, err := OpenHashedBundle(good)
	if err != nil {
		t.Fatal(err)
	}
	for i, pair := range [][2]*File{{v1, v2}, {b1, b2}, {a1, a2}} {
		x, y := pair[0].Named(), pair[1].Named()
		if len(x) != len(y) || len(x) == 0 {
			t.Fatalf("file %d: %d and %d tensors", i, len(x), len(y))
		}
		for k := range x {
			if x[k].Name != y[k].Name || len(x[k].Values) != len(y[k].Values) {
				t.Fatalf("file %d tensor %d: %s and %s", i, k, x[k].Name, y[k].Name)
			}
			for j := range x[k].Values {
				if math.Float32bits(x[k].Values[j]) != math.Float32bits(y[k].Values[j]) {
					t.Fatalf("%s value %d differs", x[k].Name, j)
				}
			}
		}
	}
	if Fingerprint(v1, b1, a1) != Fingerprint(v2, b2, a2) {
		t.Error("the fingerprints differ")
	}

	// A changed payload byte passes only where the payload hash was the one check that saw it.
	flip := append([]byte(nil), good...)
	flip[len(flip)/2] ^= 1
	if _, _, _, err := OpenBundle(flip); err == nil {
		t.Fatal("OpenBundle opened a changed payload")
	}
	if _, _, _, err := OpenHashedBundle(flip); err != nil {
		t.Fatalf("OpenHashedBundle checked the payload hash after all: %v", err)
	}
	// Everything else is checked as before.
	cases := map[string][]byte{
		"cut short":      good[:len(good)-10],
		"trailing bytes": append(append([]byte(nil), good...), 0),
		"missing model":  EncodeBundle([]BundleFile{{BundleVAE, vaeBytes}, {BundleBNN, bnnBytes}}),
		"a file cut":     EncodeBundle([]BundleFile{{BundleVAE, vaeBytes[:len(vaeBytes)-4]}, {BundleBNN, bnnBytes}, {BundleAnchors, anchorBytes}}),
	}
	for name, data := range cases {
		if _, _, _, err := OpenHashedBundle(data); err == nil {
			t.Errorf("%s: OpenHashedBundle opened it", name)
		}
	}
}

func TestBundleRoundTrip(t *testing.T) {
	files := []BundleFile{{"a", []byte("one")}, {"b", nil}, {"ccc", bytes.Repeat([]byte{7}, 1000)}}
	got, err := DecodeBundle(EncodeBundle(files))
	if err != nil || len(got) != 3 {
		t.Fatalf("%v, %v", got, err)
	}
	for i := range files {
		if got[i].Name != files[i].Name || !bytes.Equal(got[i].Data, files[i].Data) {
			t.Errorf("file %d: %q %q", i, got[i].Name, got[i].Data)
		}
	}
}

// FuzzBundle: no input makes DecodeBundle panic, and what it decodes re-encodes to the same bytes.
func FuzzBundle(f *testing.F) {
	f.Add(EncodeBundle([]BundleFile{{"a", []byte("x")}}))
	f.Add([]byte(BundleMagic + "\x01\x00\x00\x00\x05\x00vae.d"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		files, err := DecodeBundle(data)
		if err != nil {
			return
		}
		if !bytes.Equal(EncodeBundle(files), data) {
			t.Fatal("a decoded bundle does not re-encode to its bytes")
		}
	})
}

// TestBundleGlobalIsOptional: the shipped bundle carries GLAM-CLUE's translations, and a bundle without them (an
// older build's) still opens, with none.
func TestBundleGlobalIsOptional(t *testing.T) {
	b, err := OpenBundleFiles(ShippedBundle(), false)
	if err != nil || b.Global == nil || b.Global.Manifest.Model != "glam" {
		t.Fatalf("the shipped bundle: %v, translations %v", err, b)
	}
	files, err := DecodeBundle(ShippedBundle())
	if err != nil {
		t.Fatal(err)
	}
	var three []BundleFile
	for _, f := range files {
		if f.Name != BundleGlobal {
			three = append(three, f)
		}
	}
	old, err := OpenBundleFiles(EncodeBundle(three), true)
	if err != nil || old.Global != nil || old.VAE == nil || old.BNN == nil || old.Anchors == nil {
		t.Errorf("a bundle without translations: %v, %+v", err, old)
	}
}
