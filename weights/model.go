package weights

import (
	"encoding/binary"
	"fmt"
	"github.com/deltaclue/deltaclue/internal/digest"
	"strconv"
)

// Dense is one fully connected layer: y = x·W + B, with W stored row-major as [In, Out].
type Dense struct {
	In, Out int
	W       []float32 // In·Out values
	B       []float32 // Out values
}

// LayerName returns the tensor-name prefix of layer i of the named stack: "<stack>/<i>".
func LayerName(stack string, i int) string { return fmt.Sprintf("%s/%d", stack, i) }

// MLP returns the dense layers of the named stack whose widths are given (input first), checking every shape.
// The tensors are "<stack>/<i>/weights" [widths[i], widths[i+1]] and "<stack>/<i>/biases" [widths[i+1]].
func (f *File) MLP(stack string, widths []int) ([]Dense, error) {
	if len(widths) < 2 {
		return nil, fmt.Errorf("%s: stack %q needs at least two widths, got %v", f.Name, stack, widths)
	}
	layers := make([]Dense, len(widths)-1)
	for i := range layers {
		in, out := widths[i], widths[i+1]
		w, err := f.Tensor(LayerName(stack, i)+"/weights", in, out)
		if err != nil {
			return nil, err
		}
		b, err := f.Tensor(LayerName(stack, i)+"/biases", out)
		if err != nil {
			return nil, err
		}
		layers[i] = Dense{In: in, Out: out, W: w, B: b}
	}
	return layers, nil
}

// Stack names used in the shipped files.
const (
	StackEncoder       = "encoder"        // VAE: x → last hidden layer, ReLU after every layer
	StackEncoderMean   = "encoder_mean"   // VAE: last hidden layer → μ (one layer)
	StackEncoderLogVar = "encoder_logvar" // VAE: last hidden layer → log σ² (one layer; shipped apart, see variance.go)
	StackDecoder       = "decoder"        // VAE: z → image logits, ReLU between layers
	StackBNN           = "bnn"            // BNN: image → class logits, ReLU then dropout between layers
)

// AnchorTensor names the tensor of the anchors file that holds class c's latent codes [n, latent]. A class
// without anchors (no training item read right with confidence: AnchorCounts) has no tensor, since a tensor has
// at least one row.
func AnchorTensor(c int) string { return fmt.Sprintf("class/%d", c) }

// AnchorCounts is the metric of an anchors file's manifest that counts each class's anchors, by class index
// ("0", "1", …): a class it counts as 0 has no tensor, and that absence is no damage.
const AnchorCounts = "per_class"

// Anchors returns the latent codes of an anchors file, per class (see cmd/train: the encoder means of
// training digits the BNN classifies correctly with low uncertainty), checking their shapes. A class may have
// none (nil) only when the manifest says so (AnchorCounts); a tensor missing without that word is an error.
func (f *File) Anchors(classes int) ([][]float32, error) {
	if f.Manifest.Model != "anchors" {
		return nil, fmt.Errorf("%s: model %q, want anchors", f.Name, f.Manifest.Model)
	}
	latent := f.Manifest.Architecture.Latent
	counts, _ := f.Manifest.Metrics[AnchorCounts].(map[string]any) // (as JSON decodes it)
	out := make([][]float32, classes)
	for c := range out {
		name := AnchorTensor(c)
		n := -1
		for _, t := range f.Manifest.Tensors {
			if t.Name == name {
				n = 0
				if len(t.Shape) == 2 {
					n = t.Shape[0]
				}
			}
		}
		if n < 0 {
			if count, ok := counts[strconv.Itoa(c)].(float64); ok && count == 0 {
				continue // a class without anchors, as the manifest counts it
			}
			return nil, fmt.Errorf("%s: class %d has no anchors, and the manifest does not count it as empty (%s)", f.Name, c, AnchorCounts)
		}
		v, err := f.Tensor(name, n, latent)
		if err != nil {
			return nil, err
		}
		out[c] = v
	}
	return out, nil
}

// Fingerprint identifies a set of model files: the first 4 bytes of the SHA-256 of their payload hashes, in
// order. Share links carry it, so that a link made with other models is recognised.
func Fingerprint(files ...*File) uint32 {
	h := digest.New()
	for _, f := range files {
		h.Write([]byte(f.Manifest.PayloadSHA))
	}
	return binary.BigEndian.Uint32(h.Sum(nil))
}
