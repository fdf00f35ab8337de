package sharelink

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/deltaclue/deltaclue/engine/clue"
)

// Two links made by the v1 encoder (before v2 existed), with what they must decode to. They must keep opening.
const (
	// Test digit 42 of the held-out split (a 0), clue.Defaults() of the time, models 12345.
	v1DigitLink = "v1.cnFmtDRggAGHFAZGCOuDPQMa2CHX-jpwxzwMcYZZM0Fgp30KA3O1yDr3h1Ut9n9WfrzkmxRgz8xgDAaXobpUHBgZBjXwXPvv3_IgNmxSRX_-gcASR0wp-9__VvWAJH9loUvJPf23mJ3R4tSrf_9--qCb-O8-B4gWK_3w76cuqrYP_zKgzKyf_1ZzIsvZ_bsN51_6988NWa7h31o4W__Nv-vIctv-VSM4G_-9QZZ7iyxnjyr37p8ygqPy7y2KvtNMyHKoZp5E4liiuuXtM2E4m-syqh_e_quDs5f-eyiHLDfj33MlCEu05cdPG5QwU3r5bxWIli549O-DN1pYu__-OjMr9-D_f__uaGHEXyUkau9msWOJd7_19_ct82emccIDBAAA__8"
	v1DigitRows = `
	00000000000000000000000000000000000000000000000000000000
	00000000000000000000000000000000000000000000000000000000
	00000000000000000000000000000000000000000000000000000000
	00000000000000000000000000000000000000000000000000000000
	00000000000000000000000000000000000000000000000000000000
	000000000000000000000049adfefea7520600000000000000000000
	0000000000000000000072fcfefefefefea441000000000000000000
	0000000000000000003ffbfeaa8cfefefefefa6a0000000000000000
	00000000000000001ee5fea3070138caeafefef94c00000000000000
	000000000000000072fedf08000000001675f0fef92d000000000000
	000000000000001ef0fe68000000000000006af9feab090000000000
	000000000000003efedb090000000000000000d2fefe460000000000
	0000000000000080fead0000000000000000002fecfed70000000000
	00000000000000b6fe7b00000000000000000000b1feec0000000000
	00000000000000edfe7b000000000000000000003ffeec0000000000
	00000000000000eefe230000000000000000000024feed0000000000
	00000000000000edcb020000000000000000000024feec0000000000
	00000000000000edc9000000000000000000000039fed70000000000
	00000000000000ede6130000000000000000000ad3fe460000000000
	00000000000000edfe7e000000000000000000a5fee11e0000000000
	0000000000000098fee7220000000000001584f8f93c000000000000
	0000000000000022e9feaa000000001b70e2fef04b00000000000000
	000000000000000047fbf5996a6dc1fffefedc2a0000000000000000
	00000000000000000079fcfefefefefedd6a07000000000000000000
	000000000000000000004eafdfbea64f030000000000000000000000
	00000000000000000000000000000000000000000000000000000000
	00000000000000000000000000000000000000000000000000000000
	00000000000000000000000000000000000000000000000000000000
`
	// A "2" drawn on the pad (simulated: an 18-pixel round brush on the 280×280 canvas, then mnist.Preprocess),
	// every parameter away from its default, models deadbeef.
	v1DrawnLink = "v1.cnFmfL9v7T0GMOBy0GBggjAf2EPoC1CawWHWTBDotGeH8F9AJX7YQyRW2v9iYP-z8uMl36QEewjtYM8N1XwAqpjFQcAopGzGrjv_GGgJOIsnrzl2__smPkwprl3_______Pz_0vyGFJ7_p_2NZZi49_2_7k5qhT3vv8nBSE-mPL_mwWKXM7_4wIw9oL_SShyooX8cPa8_644HbzrvyZOuev_eXFJmf14y4hDyuL9_wocUpYf_lfhkLL6-K8ch1TAp3-l2GUYK__-LcAREUv_f_TDLiV98v9dXexSpk_-HxDFKsOU8-3_XEFBaRVdcwev4FgrZLltoHj98-8_FHxCljv368OL-1fPHNq5YdncyV0N_gyDDgACAAD__w"
	v1DrawnRows = `
	00000000000000000000000000000000000000000000000000000000
	00000000000000000000000000000000000000000000000000000000
	00000000000000000000000000000000000000000000000000000000
	000000000000000000097393acc6dff7b20e00000000000000000000
	00000000000000000abafffffffff9f3ffd21f000000000000000000
	000000000000000abcffcb4d331a060fb6ffe7370000000000000000
	0000000000000bbeffc91100000000000494fff63800000000000000
	0000000000006cffc7100000000000000000a0ff6200000000000000
	00000000000015710f0000000000000000009eff4500000000000000
	000000000000000000000000000000000000baff2900000000000000
	000000000000000000000000000000000000d7ff0d00000000000000
	000000000000000000000000000000000036f8ed0100000000000000
	0000000000000000000000000000000038efff780000000000000000
	00000000000000000000000000000039f0ff7a000000000000000000
	00000000000000000000000000003af1fe7700000000000000000000
	0000000000000000000000000050f2fe750000000000000000000000
	00000000000000000000000179fdfd70000000000000000000000000
	0000000000000000000009a5fff14e00000000000000000000000000
	0000000000000000001bc9ffdd2d0000000000000000000000000000
	000000000000000035e4ffc015000000000000000000000000000000
	000000000000026cf6ff9d11111b242d37404a535d3a000000000000
	000000000000b6fffffff9fcfefffffffffffffffff2000000000000
	000000000000cefaf0e8dfd5ccc2b9b0a69d938a804f000000000000
	00000000000000000000000000000000000000000000000000000000
	00000000000000000000000000000000000000000000000000000000
	00000000000000000000000000000000000000000000000000000000
	00000000000000000000000000000000000000000000000000000000
	00000000000000000000000000000000000000000000000000000000
`
)

// hexImage reads 28 rows of 56 hex digits.
func hexImage(t testing.TB, rows string) []uint8 {
	b, err := hex.DecodeString(strings.Join(strings.Fields(rows), ""))
	if err != nil || len(b) != Pixels {
		t.Fatalf("a fixture's image: %d bytes, %v", len(b), err)
	}
	return b
}

// v1Fixtures are the v1 links and the states they must decode to.
func v1Fixtures(t testing.TB) []struct {
	name, link string
	want       State
} {
	return []struct {
		name, link string
		want       State
	}{
		{"test digit, defaults", v1DigitLink, State{Image: hexImage(t, v1DigitRows), Model: 12345, Version: 1, Selected: NoSelection,
			// clue.Defaults() when the link was made, written out so that a later change of defaults shows here.
			Params: clue.Params{Delta: 2, N: 100, Scheme: clue.S1, WTotal: 1, LambdaX: 0.03, Rho: clue.L2, Constraint: clue.Project,
				LearningRate: 0.1, MaxSteps: 100, Window: 3, RelTol: 0.01, AbsTol: 1e-3, MinSteps: 3, HThreshold: 0.3, DedupL1: 10, Seed: 1}}},
		{"drawn digit, every parameter changed", v1DrawnLink, State{Image: hexImage(t, v1DrawnRows), Model: 0xdeadbeef, Version: 1,
			Selected: NoSelection, Params: v1Params(nonDefaultParams())}},
	}
}

// v1Params is p as a v1 link can hold it: v1 predates the choice of convergence rule (and locks).
func v1Params(p clue.Params) clue.Params {
	p.Convergence, p.Lock, p.Sparse = clue.Spread, "", false
	return p
}

// nonDefaultParams has every parameter away from its default (TestNonDefaultParams checks that).
func nonDefaultParams() clue.Params {
	return clue.Params{Delta: 3.25, N: 40, Scheme: clue.S2, WTotal: 0.5, WAleatoric: 0.25, WEpistemic: 2, LambdaX: 0.0125,
		DistanceMean: true, LambdaY: 0.75, LambdaD: 1.5, Rho: clue.LInf, Constraint: clue.Filter, LearningRate: 0.05,
		MaxSteps: 250, Convergence: clue.CLUERule, Window: 7, RelTol: 0.002, AbsTol: 5e-4, MinSteps: 11, HThreshold: 0.125,
		DedupL1: 2.5, Seed: 0xfedcba9876543210, Lock: clue.NewColumnList("Age", "Home"), Sparse: true}
}

// TestConvergenceFlag: CLUE's convergence rule travels as flag 8 of a v2 link; a link without it (every link
// written before the rule existed, and every v1 link) decodes to the default rule, and v1 has no such flag.
func TestConvergenceFlag(t *testing.T) {
	s := State{Image: hexImage(t, v1DrawnRows), Params: clue.Defaults(), Model: 7, Selected: NoSelection}
	s.Params.Convergence = clue.CLUERule
	full := payloadOf(t, Encode(s))
	payload := full[:len(full)-crcLength]
	if payload[offFlags] != 8 {
		t.Fatalf("flags byte %#x, want 8", payload[offFlags])
	}
	got, err := Decode(raw2(payload))
	if err != nil || got.Params.Convergence != clue.CLUERule {
		t.Fatalf("CLUE's rule decoded as %v (%v)", got.Params.Convergence, err)
	}
	old := append([]byte(nil), payload...)
	old[offFlags] = 0 // as a link of the version before the rule
	got, err = Decode(raw2(old))
	want := s
	want.Params.Convergence, want.Version = clue.Spread, 2
	if err != nil || !same(got, want) {
		t.Fatalf("a link without the flag: %+v, %v", got.Params, err)
	}
	s.Params.Convergence = clue.Spread
	if p := payloadOf(t, Encode(s)); p[offFlags] != 0 {
		t.Errorf("the default rule sets flags %#x: links of the default parameters changed", p[offFlags])
	}
	for _, c := range v1Fixtures(t) {
		if c.want.Params.Convergence != clue.Spread {
			t.Errorf("v1 fixture %s decodes to rule %v", c.name, c.want.Params.Convergence)
		}
		p1 := payloadOf(t, c.link)
		p1[offFlags] |= 8
		var linkErr *Error
		if _, err := Decode(raw(p1)); !errors.As(err, &linkErr) {
			t.Errorf("v1 link with flag 8: %v", err)
		}
		break
	}
}

func TestNonDefaultParams(t *testing.T) {
	p, d := reflect.ValueOf(nonDefaultParams()), reflect.ValueOf(clue.Defaults())
	for i := range p.NumField() {
		if p.Field(i).Equal(d.Field(i)) {
			t.Errorf("%s is at its default", p.Type().Field(i).Name)
		}
	}
	if err := nonDefaultParams().Validate(); err != nil {
		t.Fatal(err)
	}
}

func sampleState() State {
	s := State{Models: DigitsModels, Image: make([]uint8, Pixels)}
	for i := range s.Image {
		if i%28 > 8 && i%28 < 20 && i/28 > 5 && i/28 < 22 {
			s.Image[i] = uint8(40 + i%200)
		}
	}
	s.Params = clue.Defaults()
	s.Params.Delta, s.Params.Scheme, s.Params.Seed = 2.75, clue.S5, 1<<60+12345
	s.Params.LambdaX, s.Params.DistanceMean, s.Params.Rho, s.Params.Constraint = 0.0123, true, clue.LInf, clue.Filter
	s.Model = 0xdeadbeef
	s.Selected = NoSelection
	return s
}

// richState has every field away from its zero value and default: a v2 link with the most in it.
func richState(t testing.TB) State {
	p := nonDefaultParams()
	p.Lock, p.Sparse = "", false // only a v3 link carries locks and Sparse (TestLocksTravelInV3, TestSparseTravelsInV3)
	return State{Image: hexImage(t, v1DrawnRows), Params: p, Model: 0x01234567, Selected: p.Restarts() - 1,
		Sweep: clue.Ladder{Radii: []float64{0.25, 0.5, 0.75, 1, 1.5, 2, 2.5, 3, 4, 5, 7.5, 20}, N: 1000}}
}

func withVersion(s State, v int) State {
	s.Version = v
	return s
}

// same says whether two states are identical, every field and floats bit for bit (an empty models name is the
// digits'), and make the same link.
func same(a, b State) bool {
	a.Models, b.Models = a.ModelsName(), b.ModelsName()
	a.Height, a.Width, a.Channels = a.Shape()
	b.Height, b.Width, b.Channels = b.Shape()
	return reflect.DeepEqual(a, b) && Encode(a) == Encode(b)
}

func TestRoundTrip(t *testing.T) {
	drawn := hexImage(t, v1DrawnRows)
	defaults := clue.Defaults()
	s5 := sampleState()
	cases := []struct {
		name string
		in   State
		want State // in with Version 2, where that is all that changes
	}{
		{name: "defaults, no sweep, nothing selected", in: State{Image: drawn, Params: defaults, Model: 12345, Selected: NoSelection}},
		{name: "defaults, no sweep, restart 0 selected", in: State{Image: drawn, Params: defaults, Model: 12345, Selected: 0}},
		{name: "defaults, a sweep, restart 37 selected",
			in: State{Image: drawn, Params: defaults, Model: 12345, Selected: 37, Sweep: clue.DefaultLadder()}},
		{name: "defaults, a sweep, nothing selected",
			in: State{Image: drawn, Params: defaults, Model: 12345, Selected: NoSelection, Sweep: clue.DefaultLadder()}},
		{name: "a one-radius sweep", in: State{Image: drawn, Params: defaults, Model: 1, Selected: 99,
			Sweep: clue.Ladder{Radii: []float64{math.Nextafter(0, 1)}, N: 1}}},
		{name: "S5, no sweep, last restart selected", in: func() State { s := s5; s.Selected = s.Params.Restarts() - 1; return s }()},
		{name: "S6 (amortised starts), restart 41 selected", in: func() State {
			s := State{Image: drawn, Params: defaults, Model: 7, Selected: 41}
			s.Params.Scheme = clue.S6
			return s
		}()},
		{name: "every parameter non-default, 12 radii, last restart selected", in: richState(t)},
		{name: "every parameter non-default, no sweep, nothing selected",
			in: func() State { s := richState(t); s.Sweep, s.Selected = clue.Ladder{}, NoSelection; return s }()},
		{name: "Encode ignores Version", in: State{Image: drawn, Params: defaults, Selected: 3, Version: 1}},
		{name: "a ladder with no radii is no sweep, its n not kept",
			in:   State{Image: drawn, Params: defaults, Selected: NoSelection, Sweep: clue.Ladder{Radii: []float64{}, N: 50}},
			want: State{Image: drawn, Params: defaults, Selected: NoSelection, Version: 2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := c.want
			if want.Version == 0 {
				want = c.in
				want.Version = 2
			}
			link := Encode(c.in)
			if !strings.HasPrefix(link, "v2.") || len(link) > 700 {
				t.Errorf("link %.10s… of %d characters", link, len(link))
			}
			for _, form := range []string{link, "#" + link, "https://example.org/deltaclue/?x=1#" + link} {
				got, err := Decode(form)
				if err != nil {
					t.Fatalf("%.20s: %v", form, err)
				}
				if !same(got, want) {
					t.Fatalf("round trip changed the state:\n got %+v\nwant %+v", got, want)
				}
			}
		})
	}
	s := sampleState()
	if err := CheckModel(s, DigitsModels, 0xdeadbeef); err != nil {
		t.Error(err)
	}
	if err := CheckModel(s, DigitsModels, 1); !errors.Is(err, ErrModel) {
		t.Errorf("another model's link: %v", err)
	}
	// A link of the models before the anchors were regenerated opens, unless it starts from the anchors (S2).
	for earlier, later := range AnchorsOnly {
		s.Model = earlier
		s.Params.Scheme = clue.S1
		if err := CheckModel(s, DigitsModels, later); err != nil {
			t.Errorf("an S1 link of %08x on %08x: %v", earlier, later, err)
		}
		s.Params.Scheme = clue.S2
		if err := CheckModel(s, DigitsModels, later); !errors.Is(err, ErrModel) {
			t.Errorf("an S2 link of %08x on %08x: %v", earlier, later, err)
		}
		if err := CheckModel(State{Model: later, Params: s.Params}, DigitsModels, earlier); !errors.Is(err, ErrModel) {
			t.Errorf("a link of %08x on the earlier %08x: %v", later, earlier, err)
		}
	}
}

func TestV1Fixtures(t *testing.T) {
	for _, c := range v1Fixtures(t) {
		t.Run(c.name, func(t *testing.T) {
			for _, form := range []string{c.link, "#" + c.link, "https://example.org/deltaclue/#" + c.link} {
				got, err := Decode(form)
				if err != nil {
					t.Fatal(err)
				}
				if !same(got, c.want) || got.Version != 1 || got.Selected != NoSelection || got.Sweep.Radii != nil || got.Sweep.N != 0 {
					t.Fatalf("decoded\n%+v\nwant\n%+v", got, c.want)
				}
			}
			// Shared again, it becomes a v2 link of the same state.
			again, err := Decode(Encode(c.want))
			want := c.want
			want.Version = 2
			if err != nil || !same(again, want) {
				t.Errorf("re-encoded as v2: %v", err)
			}
		})
	}
}

func TestLinkLength(t *testing.T) {
	drawn := State{Image: hexImage(t, v1DrawnRows), Params: clue.Defaults(), Model: 12345, Selected: NoSelection}
	digit := drawn
	digit.Image = hexImage(t, v1DigitRows)
	swept := drawn
	swept.Sweep, swept.Selected = clue.DefaultLadder(), 12
	for _, c := range []struct {
		name string
		s    State
		max  int
	}{{"a drawn digit, defaults", drawn, 450}, {"a test digit, defaults", digit, 450},
		{"a drawn digit, defaults, the default sweep, a selection", swept, 500}, {"every field", richState(t), 600}} {
		n := len(Encode(c.s))
		t.Logf("%s: %d characters", c.name, n)
		if n > c.max {
			t.Errorf("%s: %d characters, more than %d", c.name, n, c.max)
		}
	}
}

func TestQuantize(t *testing.T) {
	x := make([]float32, Pixels)
	x[0], x[1], x[2], x[3] = 1, 0.5, -3, 0.2
	q := Quantize(x)
	if q[0] != 255 || q[1] != 128 || q[2] != 0 || q[3] != 51 {
		t.Errorf("quantised %v", q[:4])
	}
	s := State{Image: q, Selected: NoSelection}
	if f := s.Float(); f[3] != float32(51)/255 {
		t.Errorf("float %v", f[3])
	}
}

func deflate(b []byte) string {
	var z bytes.Buffer
	w, _ := flate.NewWriter(&z, flate.BestCompression)
	w.Write(b)
	w.Close()
	return base64.RawURLEncoding.EncodeToString(z.Bytes())
}

// raw makes a v1 link from a payload, to build malformed ones.
func raw(payload []byte) string { return prefix + deflate(payload) }

// raw2 makes a v2 link from a payload, with its checksum (the link is structurally sound whatever it holds).
func raw2(payload []byte) string {
	return prefix2 + deflate(binary.LittleEndian.AppendUint32(append([]byte(nil), payload...), crc32.ChecksumIEEE(payload)))
}

// payloadOf returns what a link decompresses to (for v2, the payload and its checksum).
func payloadOf(t *testing.T, link string) []byte {
	b, err := base64.RawURLEncoding.DecodeString(link[len(prefix):])
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := out.ReadFrom(flate.NewReader(bytes.NewReader(b))); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// Offsets in both versions' payloads.
const (
	offModel   = 3
	offDelta   = offModel + 4
	offN       = offDelta + 8
	offScheme  = offN + 2
	offFlags   = offScheme + 1 + 8*4
	offSel     = 3 + commonLength // v2 only, as are the next two
	offCount   = offSel + 2
	offLadderN = offCount + 1
)

func TestEveryMalformedForm(t *testing.T) {
	p1 := payloadOf(t, v1DigitLink)
	if len(p1) != payloadLength {
		t.Fatalf("the v1 fixture holds %d bytes", len(p1))
	}
	good2 := Encode(sampleState())
	full2 := payloadOf(t, good2)
	p2 := full2[:len(full2)-crcLength]
	edit := func(p []byte, f func(b []byte)) []byte {
		b := append([]byte(nil), p...)
		f(b)
		return b
	}
	lastChar := func(link string, c byte) string { return link[:len(link)-1] + string(c) }
	var noisyTail string // good2 with the unused low bits of its last character set
	if n := len(good2[len(prefix2):]) % 4; n == 2 || n == 3 {
		i := strings.IndexByte(alphabet, good2[len(good2)-1])
		noisyTail = lastChar(good2, alphabet[i|1])
	} else {
		t.Fatalf("the sample link's base64 has no unused bits")
	}
	flipCRC := edit(full2, func(b []byte) { b[len(b)-1] ^= 1 })
	empty := sampleState()
	empty.Image = make([]uint8, Pixels)
	const v2 = changed + " ("
	cases := []struct{ name, link, want string }{
		// Any link.
		{"nothing", "", "holds no explanation"},
		{"just a hash", "https://x.org/#", "holds no explanation"},
		{"foreign", "hello-world", "not a deltaclue link"},
		{"html", "<img src=x onerror=alert(1)>", "not a deltaclue link"},
		{"v and a word", "vx.AAAA", "not a deltaclue link"},
		{"newer version", "v4.AAAA", "another version of deltaclue (v4), this page reads v1 to v3"},
		{"much newer version", "#v12.AAAA", "another version of deltaclue (v12)"},
		{"v0", "v0.AAAA", "another version"},
		{"too large", prefix2 + strings.Repeat("A", MaxLinkLength), "characters long"},
		{"too large v1", prefix + strings.Repeat("A", MaxLinkLength), "characters long"},

		// v1 links keep v1's messages.
		{"v1 not base64", prefix + "%%%<script>", "not URL-safe base64"},
		{"v1 truncated", v1DigitLink[:len(v1DigitLink)/2], "damaged"},
		{"v1 cut by one", v1DigitLink[:len(v1DigitLink)-1], "damaged"},
		{"v1 short payload", raw(p1[:100]), "bytes where a v1 link holds"},
		{"v1 long payload", raw(append(append([]byte(nil), p1...), 0)), "bytes where a v1 link holds"},
		{"v1 bad magic", raw(edit(p1, func(b []byte) { b[0] = 'X' })), "bad header"},
		{"v1 version 2 inside", raw(edit(p1, func(b []byte) { b[2] = 2 })), "bad header"},
		{"v1 bad flags", raw(edit(p1, func(b []byte) { b[offFlags] = 0x80 })), "unknown flags"},
		{"v1 bad scheme", raw(edit(p1, func(b []byte) { b[offScheme] = 9 })), "scheme"},
		{"v1 negative delta", raw(edit(p1, func(b []byte) { b[offDelta+7] = 0xc0 })), "delta"},
		{"v1 zero restarts", raw(edit(p1, func(b []byte) { b[offN], b[offN+1] = 0, 0 })), "n = 0"},
		{"v1 empty image", raw(edit(p1, func(b []byte) { clear(b[payloadLength-Pixels:]) })), "image is empty"},
		{"v1 a zip bomb-ish", raw(make([]byte, 1<<20)), "bytes where"},
		{"v1 html in payload", prefix + base64.RawURLEncoding.EncodeToString([]byte("<img src=x onerror=alert(1)>")), "damaged"},
		{"v2 payload in a v1 link", prefix + good2[len(prefix2):], "bytes where a v1 link holds"},

		// v2: whatever was changed, cut or added says so.
		{"v2 empty", prefix2, v2},
		{"v2 not base64", prefix2 + "%%%<script>", v2 + "it is not URL-safe base64"},
		{"v2 padded", good2 + "==", v2 + "it is not URL-safe base64"},
		{"v2 unused bits set", noisyTail, v2 + "it is not URL-safe base64"},
		{"v2 truncated", good2[:len(good2)/2], v2},
		{"v2 cut by one", good2[:len(good2)-1], v2},
		{"v2 cut by four", good2[:len(good2)-4], v2},
		{"v2 bytes appended", good2 + "AAAA", v2 + "it has 3 bytes after its end"},
		{"v2 checksum", prefix2 + deflate(flipCRC), v2 + "its checksum does not match"},
		{"v2 payload changed, checksum kept", prefix2 + deflate(edit(full2, func(b []byte) { b[offDelta+3] ^= 0x10 })), v2 + "its checksum does not match"},
		{"v2 no checksum", prefix2 + deflate(p2), v2},
		{"v2 html in payload", prefix2 + base64.RawURLEncoding.EncodeToString([]byte("<img src=x onerror=alert(1)>")), v2},
		{"v2 short payload", raw2(p2[:100]), v2 + "104 bytes where a v2 link holds at least 913"},
		{"v2 long payload", raw2(append(append([]byte(nil), p2...), 0)), v2 + "910 bytes where a v2 link with 0 radii holds 909"},
		{"v2 count without radii", raw2(edit(p2, func(b []byte) { b[offCount] = 1 })), v2 + "909 bytes where a v2 link with 1 radii holds 917"},
		{"v2 a zip bomb-ish", raw2(make([]byte, 1<<20)), v2 + "it decompresses to more than"},
		{"v1 payload in a v2 link", prefix2 + v1DigitLink[len(prefix):], v2},
		// Sound v2 links (the checksum matches) whose content is wrong.
		{"v2 bad magic", raw2(edit(p2, func(b []byte) { b[0] = 'X' })), v2 + "bad header"},
		{"v2 version 1 inside", raw2(edit(p2, func(b []byte) { b[2] = 1 })), v2 + "bad header"},
		{"v2 bad flags", raw2(edit(p2, func(b []byte) { b[offFlags] = 0x80 })), "unknown flags"},
		{"v2 bad scheme", raw2(edit(p2, func(b []byte) { b[offScheme] = 9 })), "its parameters are invalid (scheme"},
		{"v2 zero restarts", raw2(edit(p2, func(b []byte) { b[offN], b[offN+1] = 0, 0 })), "n = 0"},
		{"v2 no radii but n", raw2(edit(p2, func(b []byte) { b[offLadderN] = 50 })), "it has no radii but n = 50"},
		{"v2 empty image", Encode(empty), "image is empty"},
	}
	for _, c := range cases {
		_, err := Decode(c.link)
		var le *Error
		if !errors.As(err, &le) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an *Error mentioning %q", c.name, err, c.want)
		}
	}
}

func TestBounds(t *testing.T) {
	base := State{Image: hexImage(t, v1DigitRows), Params: clue.Defaults(), Model: 7, Selected: NoSelection,
		Sweep: clue.DefaultLadder()}
	s5 := base
	s5.Params.Scheme, s5.Params.N = clue.S5, 25 // 20 restarts
	radii := func(n int) []float64 {
		r := make([]float64, n)
		for i := range r {
			r[i] = float64(i+1) / 2
		}
		return r
	}
	cases := []struct {
		name string
		edit func(s *State)
		want string // "" for a link that opens
	}{
		{"12 radii", func(s *State) { s.Sweep.Radii = radii(12) }, ""},
		{"13 radii", func(s *State) { s.Sweep.Radii = radii(13) }, "its δ sweep is invalid (ladder = 13: at most 12 radii)"},
		{"300 radii", func(s *State) { s.Sweep.Radii = radii(300) }, "its δ sweep is invalid (ladder = 255: at most 12 radii)"},
		{"a decreasing ladder", func(s *State) { s.Sweep.Radii = []float64{1, 3, 2} }, "the radii must increase"},
		{"a repeated radius", func(s *State) { s.Sweep.Radii = []float64{1, 2, 2} }, "the radii must increase"},
		{"a negative radius", func(s *State) { s.Sweep.Radii = []float64{-0.5, 1} }, "every radius must be a number in (0, 20]"},
		{"a zero radius", func(s *State) { s.Sweep.Radii = []float64{0, 1} }, "every radius must be a number in (0, 20]"},
		{"a radius over 20", func(s *State) { s.Sweep.Radii = []float64{1, 20.5} }, "every radius must be a number in (0, 20]"},
		{"a NaN radius", func(s *State) { s.Sweep.Radii = []float64{math.NaN()} }, "every radius must be a number in (0, 20]"},
		{"ladder n 0", func(s *State) { s.Sweep.N = 0 }, "ladder n = 0"},
		{"ladder n 1000", func(s *State) { s.Sweep.N = 1000 }, ""},
		{"ladder n 1001", func(s *State) { s.Sweep.N = 1001 }, "ladder n = 1001"},
		{"ladder n 65536+50 (does not wrap)", func(s *State) { s.Sweep.N = 65536 + 50 }, "ladder n = 65535"},
		{"ladder n negative", func(s *State) { s.Sweep.N = -1 }, "ladder n = 65535"},
		{"selected -1", func(s *State) { s.Selected = NoSelection }, ""},
		{"selected 0", func(s *State) { s.Selected = 0 }, ""},
		{"selected Restarts()-1", func(s *State) { s.Selected = s.Params.Restarts() - 1 }, ""},
		{"selected Restarts()", func(s *State) { s.Selected = s.Params.Restarts() }, "its selected explanation 100 is not one of its 100 restarts"},
		{"selected -2", func(s *State) { s.Selected = -2 }, "its selected explanation -2"},
		{"selected 65536 (does not wrap)", func(s *State) { s.Selected = 65536 }, "its selected explanation -32768"},
		{"S5: selected 19 of 10·⌊25/10⌋", func(s *State) { *s = s5; s.Selected = 19 }, ""},
		{"S5: selected 20 of 10·⌊25/10⌋", func(s *State) { *s = s5; s.Selected = 20 }, "not one of its 20 restarts"},
		{"n 65536+100 (does not wrap)", func(s *State) { s.Params.N = 65536 + 100 }, "n = 65535"},
		{"min_steps negative (does not wrap)", func(s *State) { s.Params.MinSteps = -1 }, "min_steps = 65535"},
		{"invalid params", func(s *State) { s.Params.LearningRate = 0 }, "its parameters are invalid (learning_rate"},
	}
	for _, c := range cases {
		s := base
		s.Sweep.Radii = append([]float64(nil), base.Sweep.Radii...)
		c.edit(&s)
		got, err := Decode(Encode(s))
		var le *Error
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want == "" && (got.Version != 2 || !same(got, withVersion(s, 2))):
			t.Errorf("%s: decoded %+v", c.name, got)
		case c.want != "" && (!errors.As(err, &le) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want an *Error mentioning %q", c.name, err, c.want)
		case c.want != "" && strings.Contains(err.Error(), changed):
			t.Errorf("%s: a sound link's bad content is called damage: %v", c.name, err)
		}
	}
}

const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

// TestEveryCharacterChanged replaces every character of real v2 links with every other base64url character,
// cuts them at every length and adds to them: none may open as another state.
func TestEveryCharacterChanged(t *testing.T) {
	states := []struct {
		name string
		s    State
	}{
		{"defaults, a drawn digit", State{Image: hexImage(t, v1DrawnRows), Params: clue.Defaults(), Model: 12345, Selected: NoSelection}},
		{"every field", richState(t)},
	}
	for _, c := range states {
		t.Run(c.name, func(t *testing.T) {
			link := Encode(c.s)
			orig, err := Decode(link)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			tries, errs, identical := 0, 0, 0
			try := func(what, mutated string, payload bool) {
				tries++
				got, err := Decode(mutated)
				if err == nil {
					if !same(got, orig) {
						t.Errorf("%s: opens as another state", what)
					}
					identical++
					return
				}
				errs++
				var le *Error
				if !errors.As(err, &le) {
					t.Errorf("%s: error of type %T: %v", what, err, err)
				} else if payload && !strings.Contains(err.Error(), changed) {
					t.Errorf("%s: %v, want %q", what, err, changed)
				}
			}
			for i := range len(link) {
				for _, ch := range []byte(alphabet) {
					if ch != link[i] {
						try("position "+strconv.Itoa(i)+" → "+string(ch), link[:i]+string(ch)+link[i+1:], i >= len(prefix2))
					}
				}
			}
			flips := tries
			for n := range len(link) {
				try("cut to "+strconv.Itoa(n), link[:n], n >= len(prefix2))
			}
			for _, tail := range []string{"A", "AA", "AAA", "AAAA", "_", "__", "___", "____", "=", "==", "AAAAAAAA", link[len(prefix2):]} {
				try("added "+tail, link+tail, true)
			}
			t.Logf("%d characters: %d changed links (%d positions), %d cut, %d added to; %d errors, %d opened as the identical state; %s",
				len(link), flips, len(link), len(link), tries-flips-len(link), errs, identical, time.Since(start).Round(time.Millisecond))
		})
	}
}

// valid checks what Decode returned is a state a link may hold.
func valid(s State) error {
	switch {
	case s.Version != 1 && s.Version != 2 && s.Version != 3:
		return errors.New("version " + strconv.Itoa(s.Version))
	case s.Version < 3 && (s.ModelsName() != DigitsModels || s.Height != 0 || len(s.Image) != Pixels):
		return errors.New("a v1 or v2 link that is not the digits'")
	case s.Version == 3 && (len(s.Image) != s.Height*s.Width*s.Channels || !validModels(s.Models)):
		return errors.New("a v3 link whose image does not fit its shape, or whose models' name is not one")
	case s.Version == 1 && (s.Selected != NoSelection || s.Sweep.Radii != nil || s.Sweep.N != 0):
		return errors.New("a v1 link with a sweep or a selection")
	case s.Sweep.Radii == nil && s.Sweep.N != 0:
		return errors.New("no sweep, yet a ladder n")
	case s.Selected < NoSelection || s.Selected >= s.Params.Restarts():
		return errors.New("selection out of range")
	case !slices.ContainsFunc(s.Image, func(v uint8) bool { return v != 0 }):
		return errors.New("an empty image")
	}
	if err := s.Params.Validate(); err != nil {
		return err
	}
	if s.Sweep.Radii != nil {
		return s.Sweep.Validate()
	}
	return nil
}

func FuzzDecode(f *testing.F) {
	rich := richState(f)
	f.Add(Encode(sampleState()))
	f.Add(Encode(rich))
	f.Add("#" + Encode(State{Image: rich.Image, Params: clue.Defaults(), Selected: 5, Sweep: clue.DefaultLadder()}))
	f.Add(v1DigitLink)
	f.Add("https://example.org/#" + v1DrawnLink)
	f.Add("v1.")
	f.Add("#v1.AAAA")
	f.Add("v2.")
	f.Add("#v2.AAAA")
	f.Add("v3.AAAA")
	f.Add(Encode(otherState()))
	locked := rich
	locked.Params.Lock = clue.NewColumnList("Age", "Home")
	f.Add(Encode(locked))
	sparse := otherState()
	sparse.Params.Sparse = true
	f.Add(Encode(sparse))
	link := Encode(rich)
	f.Add(link[:len(link)/2])
	f.Add(link[:40] + "A" + link[41:])
	f.Add(link + "AAAA")
	f.Fuzz(func(t *testing.T, link string) {
		s, err := Decode(link)
		if err != nil {
			var le *Error
			if !errors.As(err, &le) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		if err := valid(s); err != nil {
			t.Fatalf("decoded an invalid state: %v", err)
		}
		again, err := Decode(Encode(s))
		// Re-encoded, the digits' state (whatever link it came from) makes a v2 link, any other (or one with
		// locks) a v3 one.
		if err != nil || (again.Version == 2) != (s.isDigits() && s.Params.Lock == "" && !s.Params.Sparse) {
			t.Fatalf("a decoded state does not survive re-encoding: %v", err)
		}
		again.Version = s.Version
		if !same(again, s) {
			t.Fatalf("a decoded state changes when re-encoded:\n%+v\n%+v", s, again)
		}
	})
}

// TestErrorSentences: every failure, over every cut and every one-character change of a real link, is one
// capitalised sentence naming its fault, with no question and no guess that contradicts it.
func TestErrorSentences(t *testing.T) {
	link := Encode(State{Image: hexImage(t, v1DrawnRows), Params: clue.Defaults(), Model: 12345, Selected: NoSelection})
	var links []string
	for n := range len(link) {
		links = append(links, link[:n])
	}
	for i := len(prefix2); i < len(link); i += 7 {
		links = append(links, link[:i]+"A"+link[i+1:], link[:i]+"_"+link[i+1:])
	}
	links = append(links, "", "hello", "v9.AAAA", prefix+"!!", prefix2+"!!", prefix2+strings.Repeat("A", MaxLinkLength))
	seen := map[string]bool{}
	for _, l := range links {
		_, err := Decode(l)
		if err == nil {
			continue
		}
		msg := err.Error()
		seen[msg] = true
		if !strings.HasPrefix(msg, "This link cannot be opened: ") || !strings.HasSuffix(msg, ".") || strings.Count(msg, ". ") > 0 ||
			strings.Contains(msg, "?") || strings.Count(msg, "this link") > 0 {
			t.Errorf("%.30q: %q is not one sentence", l, msg)
		}
		if strings.Contains(msg, "cut short") && strings.Contains(msg, "not valid DEFLATE") {
			t.Errorf("%q contradicts itself", msg)
		}
	}
	if len(seen) < 5 {
		t.Errorf("only %d different messages: %v", len(seen), seen)
	}
	err := CheckModel(State{Model: 1}, DigitsModels, 2)
	if msg := err.Error(); !errors.Is(err, ErrModel) || !strings.HasPrefix(msg, "This link was made with other models (00000001) than this page runs (00000002)") ||
		strings.Count(msg, ". ") > 0 || !strings.HasSuffix(msg, ".") {
		t.Errorf("CheckModel: %q", msg)
	}
}

// Links are compressed by kept, reset compressors: each link must be the bytes a fresh compressor writes, and
// a link must not depend on the ones written before it.
func TestKeptCompressorsWriteWhatAFreshOneWrites(t *testing.T) {
	var states []State
	for k := range 6 {
		s := sampleState()
		for i := range s.Image {
			s.Image[i] = uint8((i*(k+3) + k) % 256 * (i % (k + 2)) % 256)
		}
		s.Selected = k
		states = append(states, s)
	}
	first := map[int]string{}
	for round := range 3 {
		for k, s := range states {
			link := Encode(s)
			raw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(link, "v2."))
			if err != nil {
				t.Fatal(err)
			}
			data, err := io.ReadAll(flate.NewReader(bytes.NewReader(raw)))
			if err != nil {
				t.Fatal(err)
			}
			var z bytes.Buffer
			fw, _ := flate.NewWriter(&z, flate.BestCompression)
			fw.Write(data)
			fw.Close()
			if !bytes.Equal(z.Bytes(), raw) {
				t.Fatalf("round %d, state %d: the link's stream differs from a fresh compressor's", round, k)
			}
			if round == 0 {
				first[k] = link
			} else if link != first[k] {
				t.Fatalf("round %d, state %d: the link changed after other links were written", round, k)
			}
			if got, err := Decode(link); err != nil || got.Selected != k {
				t.Fatalf("round %d, state %d: %v", round, k, err)
			}
		}
	}
}

// BenchmarkEncode is writing the address after a change of the page's input.
func BenchmarkEncode(b *testing.B) {
	s := sampleState()
	for b.Loop() {
		Encode(s)
	}
}

// BenchmarkDecode is opening a link.
func BenchmarkDecode(b *testing.B) {
	link := Encode(sampleState())
	for b.Loop() {
		if _, err := Decode(link); err != nil {
			b.Fatal(err)
		}
	}
}

// Same tells states that make the same link from those that do not, field by field.
func TestSameIsTheSameLink(t *testing.T) {
	a := sampleState()
	a.Sweep = clue.Ladder{Radii: []float64{1, 2}, N: 10}
	b := a
	b.Sweep.Radii = []float64{1, 2} // equal, not the same slice
	b.Version = 1                   // not written
	if !a.Same(b) || Encode(a) != Encode(b) {
		t.Fatal("equal states are not the same link")
	}
	for name, change := range map[string]func(*State){
		"a pixel":     func(s *State) { s.Image[400]++ },
		"a parameter": func(s *State) { s.Params.Delta++ },
		"the models":  func(s *State) { s.Model++ },
		"selection":   func(s *State) { s.Selected++ },
		"sweep n":     func(s *State) { s.Sweep.N++ },
		"a radius":    func(s *State) { s.Sweep.Radii = []float64{1, 3} },
		"no sweep":    func(s *State) { s.Sweep = clue.Ladder{} },
	} {
		c := a
		c.Sweep.Radii = slices.Clone(a.Sweep.Radii)
		c.Image = slices.Clone(a.Image)
		change(&c)
		if a.Same(c) || Encode(a) == Encode(c) {
			t.Errorf("%s changed: Same %v, links equal %v", name, a.Same(c), Encode(a) == Encode(c))
		}
	}
}

// otherState is a state for another model than the digits: a colour 8×8 image of the "colour-test" models.
func otherState() State {
	s := State{Models: "colour-test", Model: 0xc0105, Height: 8, Width: 8, Channels: 3, Image: make([]uint8, 8*8*3),
		Params: clue.Defaults(), Selected: 3, Sweep: clue.Ladder{Radii: []float64{1, 2}, N: 20}}
	for i := range s.Image {
		s.Image[i] = uint8(i * 37 % 256)
	}
	return s
}

// TestV3: a link for any model carries the models' name, the image's shape and its bytes, and decodes to the
// same state; a digits state still makes a v2 link, byte for byte the link it always made; a link for other
// models is refused by name, in one sentence.
func TestV3(t *testing.T) {
	s := otherState()
	link := Encode(s)
	if !strings.HasPrefix(link, "v3.") {
		t.Fatalf("a colour model's link: %.20s…", link)
	}
	got, err := Decode(link)
	if err != nil {
		t.Fatal(err)
	}
	if !same(got, withVersion(s, 3)) {
		t.Fatalf("decoded %+v, want %+v", got, s)
	}
	t.Logf("a colour 8×8 link: %d characters", len(link))
	grey := State{Models: "grey-test", Model: 7, Height: 12, Width: 12, Channels: 1, Image: make([]uint8, 144), Params: clue.Defaults(), Selected: NoSelection}
	grey.Image[70] = 255
	if g, err := Decode(Encode(grey)); err != nil || !same(g, withVersion(grey, 3)) {
		t.Errorf("a grey 12×12 link: %+v, %v", g, err)
	}
	// The digits: a v2 link, whether the state names them and their shape or leaves them out.
	d := sampleState()
	named := d
	named.Height, named.Width, named.Channels = 28, 28, 1
	if Encode(d) != Encode(named) || !strings.HasPrefix(Encode(d), "v2.") {
		t.Error("a digits state named in full does not make the digits' v2 link")
	}
	// A v3 link that names the digits and their shape is read (Encode writes v2 for it).
	named.Models = DigitsModels
	b := []byte{'D', 'C', 3, byte(len(DigitsModels))}
	b = append(b, DigitsModels...)
	b = appendFields(b, named)
	b = append(b, 1, 28, 0, 28, 0)
	b = append(b, named.Image...)
	if g, err := Decode(prefix3 + compress(b)); err != nil || g.Version != 3 || !same(g, withVersion(d, 3)) || !strings.HasPrefix(Encode(g), "v2.") {
		t.Errorf("a v3 link of the digits: %v", err)
	}
	// Refusals, each one sentence.
	err = CheckModel(s, DigitsModels, 0x4388f9eb)
	if !errors.Is(err, ErrModel) || !strings.Contains(err.Error(), `made for the "colour-test" models, and this page runs the "digits" models`) {
		t.Errorf("a colour link where the digits are served: %v", err)
	}
	if err := CheckModel(s, "colour-test", s.Model); err != nil {
		t.Errorf("a colour link where it was made: %v", err)
	}
	if err := CheckModel(d, "colour-test", d.Model); !errors.Is(err, ErrModel) || !strings.Contains(err.Error(), `made for the "digits" models`) {
		t.Errorf("a digits link where the colour models are served: %v", err)
	}
	for name, change := range map[string]func(*State){
		"two channels":       func(s *State) { s.Channels = 2; s.Image = s.Image[:128] },
		"too wide":           func(s *State) { s.Width, s.Height = 600, 1; s.Image = make([]uint8, 1800) },
		"a name in capitals": func(s *State) { s.Models = "Colour" },
		"an empty image":     func(s *State) { clear(s.Image) },
		"a selection beyond": func(s *State) { s.Selected = 500 },
	} {
		c := otherState()
		change(&c)
		if _, err := Decode(Encode(c)); err == nil || !strings.HasPrefix(err.Error(), "This link cannot be opened: ") {
			t.Errorf("%s: %v", name, err)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
	// A short image: the bytes do not match the shape.
	short := otherState()
	short.Image = short.Image[:100]
	if _, err := Decode(Encode(short)); err == nil || !strings.Contains(err.Error(), changed) {
		t.Errorf("an image shorter than its shape: %v", err)
	}
}

// TestSparseTravelsInV3: Params.Sparse (a model of rows gives back needless changes) is flag 16 of a v3 link,
// clear in every link written before it (which decode to the search's own rows, as they were made); a v2 link
// with the flag is refused as damaged.
func TestSparseTravelsInV3(t *testing.T) {
	s := otherState()
	plain := Encode(s)
	s.Params.Sparse = true
	link := Encode(s)
	got, err := Decode(link)
	if err != nil || !got.Params.Sparse || !same(got, withVersion(s, 3)) {
		t.Fatalf("a sparse link came back as %+v (%v)", got.Params, err)
	}
	if got, err := Decode(plain); err != nil || got.Params.Sparse {
		t.Fatalf("a link without the flag came back sparse (%v)", err)
	}
	digits := richState(t)
	digits.Params.Sparse = true
	if link := Encode(digits); !strings.HasPrefix(link, prefix3) {
		t.Errorf("a sparse digits state is written as %.3s…, want v3", link)
	}
	v2 := payloadOf(t, Encode(richState(t)))
	v2 = v2[:len(v2)-crcLength]
	flagsAt := 3 + 4 + 8 + 2 + 1 + 4*8 // "DC" 2 | fingerprint | delta | n | scheme | four weights
	v2[flagsAt] |= 16
	_, err = Decode(prefix2 + compress(v2))
	var linkErr *Error
	if !errors.As(err, &linkErr) || !strings.Contains(err.Error(), "unknown flags") {
		t.Errorf("a v2 link with flag 16: %v", err)
	}
}

// TestLocksTravelInV3: a search's locked columns (a model of rows) travel after a v3 link's image, so that a link
// without locks is byte for byte what it was; a digits link with locks is written as v3, since v2 has no room for
// them; a damaged or lying list is refused in a sentence.
func TestLocksTravelInV3(t *testing.T) {
	s := richState(t)
	plain := Encode(s)
	s.Params.Lock = clue.NewColumnList("Age", "Marital status")
	link := Encode(s)
	if !strings.HasPrefix(link, prefix3) || !strings.HasPrefix(plain, prefix2) {
		t.Fatalf("a digits link with locks is %.3s…, without %.3s…", link, plain)
	}
	got, err := Decode(link)
	if err != nil || got.Params.Lock != s.Params.Lock {
		t.Fatalf("the locks came back as %q (%v)", got.Params.Lock, err)
	}
	if !same(got, withVersion(s, 3)) {
		t.Errorf("the rest of the state changed: %+v", got)
	}
	payload := payloadOf(t, link)
	payload = payload[:len(payload)-crcLength]
	tail := len(payload) - len("Age,Marital status") - 3
	if payload[tail] != 'L' {
		t.Fatalf("no lock list at the payload's end: %q", payload[tail:])
	}
	for name, bad := range map[string][]byte{
		"a list that says more than it holds": append(append([]byte{}, payload[:tail+1]...), 200, 0, 'A'),
		"bytes that are no list":              append(append([]byte{}, payload[:tail]...), 'X', 1, 0, 'A'),
		"an empty list":                       append(append([]byte{}, payload[:tail+1]...), 0, 0),
		"a name that no column can have":      append(append([]byte{}, payload[:tail+1]...), 3, 0, 'a', '=', 'b'),
		"an empty name":                       append(append([]byte{}, payload[:tail+1]...), 3, 0, 'a', ',', ','),
	} {
		_, err := Decode(prefix3 + compress(bad))
		var linkErr *Error
		if !errors.As(err, &linkErr) {
			t.Errorf("%s: %v", name, err)
		}
		t.Logf("%s: %v", name, err)
	}
}
