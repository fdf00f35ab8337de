package training

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/deltaclue/deltaclue/engine/rng"
	"github.com/deltaclue/deltaclue/mnist"
	"github.com/deltaclue/deltaclue/weights"
)

// tinyExport is a float32 export as `make train` writes it, of small random models (quick to measure).
func tinyExport(t *testing.T) (vae, bnn, anchors *weights.File) {
	r := rng.New(5)
	named := func(ls []layer) []weights.Named {
		var out []weights.Named
		for _, l := range ls {
			w := make([]float32, l.in*l.out)
			for i := range w {
				w[i] = float32(r.Norm() * math.Sqrt(2/float64(l.in)))
			}
			b := make([]float32, l.out)
			for i := range b {
				b[i] = float32(r.Norm() * 0.01)
			}
			p := weights.LayerName(l.stack, l.i)
			out = append(out, weights.Named{Name: p + "/weights", Shape: []int{l.in, l.out}, Values: w},
				weights.Named{Name: p + "/biases", Shape: []int{l.out}, Values: b})
		}
		return out
	}
	decode := func(name string, man weights.Manifest, n []weights.Named) *weights.File {
		b, err := weights.Encode(man, n)
		if err != nil {
			t.Fatal(err)
		}
		f, err := weights.Decode(name, b)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	cfg := VAEConfig{Layers: []int{mnist.Pixels, 8}, Latent: 2}
	vae = decode("vae.dcw", weights.Manifest{Model: "vae", Architecture: cfg.Architecture(),
		Metrics: map[string]any{"test": map[string]any{"elbo_per_image": -500.0}}}, named(cfg.layers()))
	ba := weights.Architecture{Layers: []int{mnist.Pixels, 8, 10}, Activation: "relu", Output: "softmax", Dropout: 0.25, MCSamples: 3, MaskSeed: 1}
	bnn = decode("bnn.dcw", weights.Manifest{Model: "bnn", Architecture: ba}, named(stackLayers(weights.StackBNN, ba.Layers)))
	var codes []weights.Named
	for c := range mnist.Classes {
		z := make([]float32, 3*2)
		for i := range z {
			z[i] = float32(r.Norm())
		}
		codes = append(codes, weights.Named{Name: weights.AnchorTensor(c), Shape: []int{3, 2}, Values: z})
	}
	anchors = decode("anchors.dcw", weights.Manifest{Model: "anchors", Architecture: weights.Architecture{Latent: 2},
		Training: map[string]any{"vae_payload_sha256": vae.Manifest.PayloadSHA, "bnn_payload_sha256": bnn.Manifest.PayloadSHA}}, codes)
	return vae, bnn, anchors
}

func TestCompact(t *testing.T) {
	vae, bnn, anchors := tinyExport(t)
	test, err := mnist.HeldOut()
	if err != nil {
		t.Fatal(err)
	}
	backend := Backend()
	form := Form{Weights: weights.Int8, Axis: 1, Anchors: weights.Float16}
	c, err := Compact(backend, vae, bnn, anchors, form, test)
	if err != nil {
		t.Fatal(err)
	}
	v, lv, b, a := c.Decoded[FileVAE], c.Decoded[FileLogVar], c.Decoded[FileBNN], c.Decoded[FileAnchors]
	for _, tn := range v.Manifest.Tensors {
		if strings.HasPrefix(tn.Name, weights.StackEncoderLogVar) {
			t.Errorf("vae.dcw keeps %s", tn.Name)
		}
	}
	if len(lv.Manifest.Tensors) != 2 || !strings.HasPrefix(lv.Manifest.Tensors[0].Name, weights.StackEncoderLogVar) {
		t.Errorf("vae_logvar.dcw holds %+v", lv.Manifest.Tensors)
	}
	for _, f := range []*weights.File{v, lv, b} {
		for _, tn := range f.Manifest.Tensors {
			want := weights.Int8
			if strings.HasSuffix(tn.Name, "/biases") {
				want = weights.Float32
			}
			if tn.DType != want || tn.DType == weights.Int8 && *tn.ScaleAxis != 1 {
				t.Errorf("%s: %s stored as %s", f.Name, tn.Name, tn.DType)
			}
		}
	}
	if a.Manifest.Tensors[0].DType != weights.Float16 {
		t.Errorf("anchors stored as %s", a.Manifest.Tensors[0].DType)
	}
	// The manifests carry the converted models' metrics, the float32 ones in the compaction record.
	if got := b.Manifest.Metrics["test"].(map[string]any)["accuracy"].(float64); got != c.BNN.Accuracy {
		t.Errorf("manifest accuracy %v, measured %v", got, c.BNN.Accuracy)
	}
	if q := MeasureVAE(backend, v, lv, b, test); q != c.VAE || v.Manifest.Compaction.Float32Metrics["test"].(map[string]any)["elbo_per_image"] != -500.0 {
		t.Errorf("VAE measured %+v, Compact says %+v; float32 metrics %v", q, c.VAE, v.Manifest.Compaction.Float32Metrics)
	}
	if v.Manifest.Compaction.Source != vae.Manifest.PayloadSHA || lv.Manifest.Compaction.Source != vae.Manifest.PayloadSHA {
		t.Error("compaction records do not name the source")
	}
	// Deterministic: converting again gives the same bytes.
	again, err := Compact(backend, vae, bnn, anchors, form, test)
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range c.Files {
		if !bytes.Equal(data, again.Files[name]) {
			t.Errorf("%s differs between two conversions", name)
		}
	}
	// A compact file is not converted again (that would quantise twice), and the anchors must belong to the
	// models.
	if _, err := Compact(backend, v, bnn, anchors, form, test); err == nil || !strings.Contains(err.Error(), "float32 export") {
		t.Errorf("a compact VAE was accepted: %v", err)
	}
	if _, err := Compact(backend, vae, bnn, a, form, test); err == nil {
		t.Error("compact anchors were accepted")
	}
	other, _, _ := tinyExport(t)
	other.Manifest.PayloadSHA = "0000"
	if _, err := Compact(backend, other, bnn, anchors, form, test); err == nil || !strings.Contains(err.Error(), "made from") {
		t.Errorf("anchors of other models were accepted: %v", err)
	}
}
