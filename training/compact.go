package training

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/gomlx/compute"

	"github.com/deltaclue/deltaclue/mnist"
	"github.com/deltaclue/deltaclue/weights"
)

// Form says how the shipped files store their tensors (see cmd/compact and weights/README.md).
type Form struct {
	// Weights is the dtype of every layer's weight matrix [in, out]; biases stay float32 (they are tiny).
	Weights string
	// Axis is int8 weights' scale axis: 1 gives each output unit (column) its scale, 0 each input unit (row),
	// and AxisPerTensor picks, per matrix, the axis with the smaller mean UnitError.
	Axis int
	// Anchors is the dtype of the anchors' latent codes [n, latent]; AnchorAxis their int8 scale axis (0: a
	// scale per code, 1: per latent dimension).
	Anchors    string
	AnchorAxis int
	// Tensors overrides the dtype of single tensors, by name (an int8 override takes the scale axis above).
	Tensors map[string]string
}

// AxisPerTensor as Form.Axis chooses each int8 matrix's scale axis by its UnitError.
const AxisPerTensor = -1

func (f Form) String() string {
	s := f.Weights
	if f.Weights == weights.Int8 && f.Axis == AxisPerTensor {
		s += " (axis per tensor)"
	} else if f.Weights == weights.Int8 {
		s += fmt.Sprintf(" (axis %d)", f.Axis)
	}
	s += ", anchors " + f.Anchors
	if f.Anchors == weights.Int8 {
		s += fmt.Sprintf(" (axis %d)", f.AnchorAxis)
	}
	names := slices.Sorted(maps.Keys(f.Tensors))
	for _, name := range names {
		s += fmt.Sprintf(", %s %s", name, f.Tensors[name])
	}
	return s
}

// The shipped files, and the file that holds the VAE encoder's log-variance head (weights.ShippedVAELogVar):
// the ELBO needs it, the engine does not, so the page never downloads it.
const (
	FileVAE     = "vae.dcw"
	FileLogVar  = "vae_logvar.dcw"
	FileBNN     = "bnn.dcw"
	FileAnchors = "anchors.dcw"
)

// Compacted is the float32 export converted to a Form, measured on the test split.
type Compacted struct {
	Files   map[string][]byte        // the encoded files, by name (FileVAE, FileLogVar, FileBNN, FileAnchors)
	Decoded map[string]*weights.File // the same, decoded: what everything loads
	BNN     Classification           // the converted BNN on the test split
	VAE     VAEQuality               // the converted VAE (with the converted BNN labelling) on the test split
}

// Compact converts the float32 files of `make train` (vae, bnn, anchors) to form: the VAE's log-variance head
// moves into a file of its own, every tensor is stored in the form's dtype (deterministically: the same input
// gives the same payload bytes on every machine), and the converted models are measured on test with gomlx, on
// the values every loader decodes; the metrics go into the manifests, the float32 ones into their compaction
// records.
func Compact(backend compute.Backend, vae, bnn, anchors *weights.File, form Form, test *mnist.Set) (*Compacted, error) {
	for _, c := range []struct {
		f     *weights.File
		model string
	}{{vae, "vae"}, {bnn, "bnn"}, {anchors, "anchors"}} {
		if c.f.Manifest.Model != c.model {
			return nil, fmt.Errorf("%s: model %q, want %s", c.f.Name, c.f.Manifest.Model, c.model)
		}
		if c.f.Manifest.Compaction != nil {
			return nil, fmt.Errorf("%s is already compact: convert the float32 export of `make train`", c.f.Name)
		}
		for _, t := range c.f.Manifest.Tensors {
			if t.DType != weights.Float32 {
				return nil, fmt.Errorf("%s: tensor %q is %s: convert the float32 export of `make train`", c.f.Name, t.Name, t.DType)
			}
		}
	}
	for key, f := range map[string]*weights.File{"vae_payload_sha256": vae, "bnn_payload_sha256": bnn} {
		if got, _ := anchors.Manifest.Training[key].(string); got != f.Manifest.PayloadSHA {
			return nil, fmt.Errorf("%s was made from %s %s, not from %s (%s)", anchors.Name, key, got, f.Name, f.Manifest.PayloadSHA)
		}
	}
	dtype := func(t weights.Named, matrix string, axis int) weights.Named {
		t.DType, t.ScaleAxis = matrix, axis
		if strings.HasSuffix(t.Name, "/biases") {
			t.DType = weights.Float32
		}
		if d, ok := form.Tensors[t.Name]; ok {
			t.DType = d
		}
		if axis == AxisPerTensor {
			t.ScaleAxis = 1
			if t.DType == weights.Int8 && len(t.Shape) == 2 {
				out, _ := UnitError(t, weights.Int8, 1)
				in, _ := UnitError(t, weights.Int8, 0)
				if in < out {
					t.ScaleAxis = 0
				}
			}
		}
		return t
	}
	record := func(f *weights.File) *weights.Compaction {
		return &weights.Compaction{Tool: "cmd/compact", Source: f.Manifest.PayloadSHA, Float32Metrics: f.Manifest.Metrics}
	}
	logVarPrefix := weights.StackEncoderLogVar + "/"
	var vaeNamed, logVarNamed, bnnNamed, anchorNamed []weights.Named
	vaeMan := vae.Manifest
	vaeMan.Compaction = record(vae)
	for _, t := range vae.Named() {
		t = dtype(t, form.Weights, form.Axis)
		if strings.HasPrefix(t.Name, logVarPrefix) {
			logVarNamed = append(logVarNamed, t)
			vaeMan.Compaction.Omitted = append(vaeMan.Compaction.Omitted, t.Name)
		} else {
			vaeNamed = append(vaeNamed, t)
		}
	}
	if len(logVarNamed) == 0 {
		return nil, fmt.Errorf("%s has no %s head", vae.Name, weights.StackEncoderLogVar)
	}
	vaeMan.Compaction.Into = FileLogVar
	logVarMan := weights.Manifest{Model: "vae_logvar", Architecture: vae.Manifest.Architecture, Dataset: vae.Manifest.Dataset,
		Training: map[string]any{"what": "the log-variance head of the VAE encoder in " + FileVAE +
			" (same source), kept apart because only measuring the ELBO needs it"},
		Compaction: &weights.Compaction{Tool: "cmd/compact", Source: vae.Manifest.PayloadSHA}}
	bnnMan := bnn.Manifest
	bnnMan.Compaction = record(bnn)
	for _, t := range bnn.Named() {
		bnnNamed = append(bnnNamed, dtype(t, form.Weights, form.Axis))
	}
	anchorMan := anchors.Manifest
	anchorMan.Compaction = record(anchors)
	for _, t := range anchors.Named() {
		anchorNamed = append(anchorNamed, dtype(t, form.Anchors, form.AnchorAxis))
	}

	c := &Compacted{Files: map[string][]byte{}, Decoded: map[string]*weights.File{}}
	encode := func(name string, man weights.Manifest, named []weights.Named) error {
		b, err := weights.Encode(man, named)
		if err != nil {
			return fmt.Errorf("%s: %v", name, err)
		}
		f, err := weights.Decode(name, b)
		if err != nil {
			return err
		}
		c.Files[name], c.Decoded[name] = b, f
		return nil
	}
	if err := encode(FileLogVar, logVarMan, logVarNamed); err != nil {
		return nil, err
	}
	if err := encode(FileBNN, bnnMan, bnnNamed); err != nil {
		return nil, err
	}
	if err := encode(FileVAE, vaeMan, vaeNamed); err != nil {
		return nil, err
	}
	c.BNN, _ = MeasureBNN(backend, c.Decoded[FileBNN], test)
	c.VAE = MeasureVAE(backend, c.Decoded[FileVAE], c.Decoded[FileLogVar], c.Decoded[FileBNN], test)
	bnnMan.Metrics = map[string]any{"test": c.BNN}
	vaeMan.Metrics = map[string]any{"test": c.VAE}
	anchorMan.Metrics = map[string]any{}
	for k, v := range anchors.Manifest.Metrics {
		anchorMan.Metrics[k] = v
	}
	anchorMan.Metrics["max_abs_error"], anchorMan.Metrics["rms_error"] = ConversionError(anchors, anchorNamed)
	if err := encode(FileBNN, bnnMan, bnnNamed); err != nil {
		return nil, err
	}
	if err := encode(FileVAE, vaeMan, vaeNamed); err != nil {
		return nil, err
	}
	if err := encode(FileAnchors, anchorMan, anchorNamed); err != nil {
		return nil, err
	}
	return c, nil
}

// ConversionError returns the largest and the root-mean-square difference between the float32 values of f and
// what the named tensors (f's, with dtypes set) decode to.
func ConversionError(f *weights.File, named []weights.Named) (maxAbs, rms float64) {
	b, err := weights.Encode(weights.Manifest{}, named)
	if err != nil {
		panic(err)
	}
	g, err := weights.Decode("converted", b)
	if err != nil {
		panic(err)
	}
	var sum float64
	var n int
	for _, t := range named {
		a, _ := f.Tensor(t.Name, t.Shape...)
		c, _ := g.Tensor(t.Name, t.Shape...)
		for i := range a {
			d := float64(c[i]) - float64(a[i])
			maxAbs = max(maxAbs, d, -d)
			sum += d * d
		}
		n += len(a)
	}
	if n > 0 {
		rms = math.Sqrt(sum / float64(n))
	}
	return maxAbs, rms
}

// UnitError is the error that storing the weight matrix t [in, out] as dtype (with scale axis axis) leaves per
// output unit: the mean and the worst over the units j of ‖ΔW[:,j]‖ / ‖W[:,j]‖, the relative error of unit j's
// weights (its pre-activation's error is x·ΔW[:,j]).
func UnitError(t weights.Named, dtype string, axis int) (mean, worst float64) {
	t.DType, t.ScaleAxis = dtype, axis
	b, err := weights.Encode(weights.Manifest{}, []weights.Named{t})
	if err != nil {
		panic(err)
	}
	g, err := weights.Decode("converted", b)
	if err != nil {
		panic(err)
	}
	d, _ := g.Tensor(t.Name, t.Shape...)
	in, out := t.Shape[0], t.Shape[1]
	for j := 0; j < out; j++ {
		var num, den float64
		for i := 0; i < in; i++ {
			w := float64(t.Values[i*out+j])
			e := float64(d[i*out+j]) - w
			num, den = num+e*e, den+w*w
		}
		r := math.Sqrt(num / max(den, 1e-30))
		mean += r / float64(out)
		worst = max(worst, r)
	}
	return mean, worst
}
