package weights

import (
	"bytes"
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
