package sharelink

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/deltaclue/deltaclue/engine/clue"
)

func sampleState() State {
	var s State
	for i := range s.Image {
		if i%28 > 8 && i%28 < 20 && i/28 > 5 && i/28 < 22 {
			s.Image[i] = uint8(40 + i%200)
		}
	}
	s.Params = clue.Defaults()
	s.Params.Delta, s.Params.Scheme, s.Params.Seed = 2.75, clue.S5, 1<<60+12345
	s.Params.LambdaX, s.Params.DistanceMean, s.Params.Rho, s.Params.Constraint = 0.0123, true, clue.LInf, clue.Filter
	s.Model = 0xdeadbeef
	return s
}

func TestRoundTrip(t *testing.T) {
	s := sampleState()
	link := Encode(s)
	if len(link) > 700 {
		t.Errorf("link is %d characters", len(link))
	}
	for _, form := range []string{link, "#" + link, "https://example.org/deltaclue/?x=1#" + link} {
		got, err := Decode(form)
		if err != nil {
			t.Fatalf("%q: %v", form[:20], err)
		}
		if got != s {
			t.Fatalf("round trip changed the state:\n got %+v\nwant %+v", got.Params, s.Params)
		}
	}
	if err := CheckModel(s, 0xdeadbeef); err != nil {
		t.Error(err)
	}
	if err := CheckModel(s, 1); !errors.Is(err, ErrModel) {
		t.Errorf("another model's link: %v", err)
	}
}

func TestQuantize(t *testing.T) {
	x := make([]float32, Pixels)
	x[0], x[1], x[2], x[3] = 1, 0.5, -3, 0.2
	q := Quantize(x)
	if q[0] != 255 || q[1] != 128 || q[2] != 0 || q[3] != 51 {
		t.Errorf("quantised %v", q[:4])
	}
	s := State{Image: q}
	if f := s.Float(); f[3] != float32(51)/255 {
		t.Errorf("float %v", f[3])
	}
}

// raw makes a link from a payload, to build malformed ones.
func raw(payload []byte) string {
	var z bytes.Buffer
	w, _ := flate.NewWriter(&z, flate.BestCompression)
	w.Write(payload)
	w.Close()
	return prefix + base64.RawURLEncoding.EncodeToString(z.Bytes())
}

func payloadOf(t *testing.T, link string) []byte {
	b, _ := base64.RawURLEncoding.DecodeString(link[len(prefix):])
	var out bytes.Buffer
	out.ReadFrom(flate.NewReader(bytes.NewReader(b)))
	return out.Bytes()
}

func TestEveryMalformedForm(t *testing.T) {
	good := Encode(sampleState())
	p := payloadOf(t, good)
	edit := func(f func(b []byte)) string {
		b := append([]byte(nil), p...)
		f(b)
		return raw(b)
	}
	empty := sampleState()
	empty.Image = [Pixels]uint8{}
	cases := map[string]struct{ link, want string }{
		"nothing":         {"", "holds no explanation"},
		"just a hash":     {"https://x.org/#", "holds no explanation"},
		"foreign":         {"hello-world", "not a deltaclue link"},
		"newer version":   {"v2.AAAA", "another version"},
		"not base64":      {prefix + "%%%<script>", "not URL-safe base64"},
		"truncated":       {good[:len(good)/2], "damaged"},
		"cut by one":      {good[:len(good)-1], "damaged"},
		"too large":       {prefix + strings.Repeat("A", MaxLinkLength), "characters long"},
		"short payload":   {raw(p[:100]), "bytes where"},
		"long payload":    {raw(append(append([]byte(nil), p...), 0)), "bytes where"},
		"bad magic":       {edit(func(b []byte) { b[0] = 'X' }), "bad header"},
		"bad flags":       {edit(func(b []byte) { b[3+4+8+2+1+32] = 0x80 }), "unknown flags"},
		"bad scheme":      {edit(func(b []byte) { b[3+4+8+2] = 9 }), "scheme"},
		"negative delta":  {edit(func(b []byte) { b[3+4+7] = 0xc0 }), "delta"},
		"zero restarts":   {edit(func(b []byte) { b[3+4+8], b[3+4+9] = 0, 0 }), "n = 0"},
		"empty image":     {Encode(empty), "image is empty"},
		"a zip bomb-ish":  {raw(make([]byte, 1<<20)), "bytes where"},
		"html in payload": {prefix + base64.RawURLEncoding.EncodeToString([]byte("<img src=x onerror=alert(1)>")), "damaged"},
	}
	for name, c := range cases {
		_, err := Decode(c.link)
		var le *Error
		if !errors.As(err, &le) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an *Error mentioning %q", name, err, c.want)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(Encode(sampleState()))
	f.Add("v1.")
	f.Add("#v1.AAAA")
	f.Fuzz(func(t *testing.T, link string) {
		s, err := Decode(link)
		if err != nil {
			var le *Error
			if !errors.As(err, &le) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		if err := s.Params.Validate(); err != nil {
			t.Fatalf("decoded invalid params: %v", err)
		}
		again, err := Decode(Encode(s))
		if err != nil || again != s {
			t.Fatalf("a decoded state does not survive re-encoding: %v", err)
		}
	})
}
