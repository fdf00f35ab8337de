//go:build !js

package onnximport

import (
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deltaclue/deltaclue/engine"
	"github.com/deltaclue/deltaclue/internal/onnxfile"
	"github.com/deltaclue/deltaclue/internal/testenv"
	"github.com/deltaclue/deltaclue/training"
)

// python is Debian's python3 with torch, or the test skips loudly (and fails under CI=true).
func python(t *testing.T) string {
	t.Helper()
	return testenv.Python(t, "the ONNX import is not checked against PyTorch", "torch")
}

// exported runs testdata/export.py into a temporary folder (once per opset) and returns it.
func exported(t *testing.T, opset string) string {
	t.Helper()
	py := python(t)
	dir := t.TempDir()
	cmd := exec.Command(py, "testdata/export.py", dir, opset)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("export.py: %v\n%s", err, out)
	}
	return dir
}

func readF32(t *testing.T, path string) []float32 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

func convertFile(t *testing.T, path string, opt Options) *Network {
	t.Helper()
	m, err := onnxfile.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n, err := Convert(m, opt)
	if err != nil {
		t.Fatalf("%s: %v", filepath.Base(path), err)
	}
	return n
}

func layerOps(n *Network) []string {
	var ops []string
	for _, l := range n.Layers {
		ops = append(ops, l.Op)
	}
	return ops
}

func maxAbsDiff(a, b []float32) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	d := 0.0
	for i := range a {
		d = max(d, math.Abs(float64(a[i])-float64(b[i])))
	}
	return d
}

// TestAgreesWithPyTorch: PyTorch's classifier, encoder and decoder, exported to ONNX at opsets 13 and 17 (the
// lowest the import reads and Debian's torch's highest), become networks whose float32 forward in the engine
// gives PyTorch's own outputs within 1e-5: the classifier's probabilities (an ensemble of its one eval-mode
// network, once as exported and once unfolded: its batch normalisation and shape arithmetic folded by the
// import), the encoder's means and the decoder's images.
func TestAgreesWithPyTorch(t *testing.T) {
	for _, opset := range []string{"13", "17"} {
		t.Run("opset"+opset, func(t *testing.T) {
			dir := exported(t, opset)
			clf := convertFile(t, filepath.Join(dir, "clf.onnx"), Options{Prefix: "bnn"})
			twin := convertFile(t, filepath.Join(dir, "clf_raw.onnx"), Options{Prefix: "twin"}) // BatchNormalization folded by the import
			enc := convertFile(t, filepath.Join(dir, "enc.onnx"), Options{Prefix: "encoder"})
			dec := convertFile(t, filepath.Join(dir, "dec.onnx"), Options{Prefix: "decoder"})
			if clf.Final != "Softmax" || dec.Final != "Sigmoid" || enc.Final != "" {
				t.Errorf("final ops taken off: %q, %q, %q", clf.Final, enc.Final, dec.Final)
			}
			info := Info{Name: "test", Classes: []string{"a", "b", "c", "d"}, Samples: 8, MaskSeed: 1}
			d, files, err := Describe(Parts{Classifier: []*Network{clf, twin}, Encoder: enc, Decoder: dec}, info)
			if err != nil {
				t.Fatal(err)
			}
			if ops := layerOps(twin); !slices.Equal(ops, layerOps(clf)) {
				t.Errorf("the unfolded export's layers %v differ from the folded one's %v", ops, layerOps(clf))
			}
			// Two copies of the eval-mode network: a deterministic ensemble whose mean is PyTorch's softmax.
			vae, bnn, err := engine.Load(d, files)
			if err != nil {
				t.Fatal(err)
			}
			x, z := readF32(t, filepath.Join(dir, "x.f32")), readF32(t, filepath.Join(dir, "z.f32"))
			var probs []float32
			for _, u := range bnn.Classify(x) {
				probs = append(probs, u.Probs...)
			}
			for _, c := range []struct {
				name string
				got  []float32
				in   []float32
				dims []int
			}{{"clf", probs, x, []int{8, 1, 12, 12}}, {"enc", vae.Encode(x), x, []int{8, 1, 12, 12}}, {"dec", vae.DecodeImages(z), z, []int{8, 3}}} {
				want := readF32(t, filepath.Join(dir, c.name+".f32"))
				if diff := maxAbsDiff(c.got, want); diff > 1e-5 {
					t.Errorf("%s: the engine's float32 forward differs from PyTorch's by %.3g (of %d values)", c.name, diff, len(want))
				}
				// The independent runtime the import checks itself against gives PyTorch's outputs too, where it
				// runs every op (onnx-gomlx v0.5.2 has no LeakyRelu or ConvTranspose).
				m, err := onnxfile.ReadFile(filepath.Join(dir, c.name+".onnx"))
				if err != nil {
					t.Fatal(err)
				}
				if op := ReferenceLacks(m); op != "" {
					if c.name == "clf" {
						t.Errorf("the reference runtime lacks %s, which the classifier uses", op)
					}
					continue
				}
				ref, err := NewReference(training.Backend(), filepath.Join(dir, c.name+".onnx"))
				if err != nil {
					t.Fatal(err)
				}
				got, err := ref.Run(c.in, c.dims...)
				if err != nil {
					t.Fatal(err)
				}
				if diff := maxAbsDiff(got, want); diff > 1e-5 {
					t.Errorf("%s: onnx-gomlx differs from PyTorch by %.3g", c.name, diff)
				}
			}

			// The classifier's dropout, which the eval-mode export dropped, put back before fc2.
			mc := convertFile(t, filepath.Join(dir, "clf.onnx"), Options{Prefix: "bnn", Dropout: map[string]float64{"/fc2/Gemm": 0.3}})
			if _, _, err := Describe(Parts{Classifier: []*Network{mc}, Encoder: enc, Decoder: dec}, info); err != nil {
				t.Fatalf("the MC-dropout classifier: %v", err)
			}
			if _, _, err := Describe(Parts{Classifier: []*Network{clf}, Encoder: enc, Decoder: dec}, info); err == nil || !strings.Contains(err.Error(), "-dropout NODE=RATE") {
				t.Errorf("one network without dropout: %v", err)
			}
		})
	}
}
