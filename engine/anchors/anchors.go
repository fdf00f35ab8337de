// Package anchors makes the anchors file (weights/anchors.dcw for the digits) from the models it serves and their
// training items: per class, the latent codes (encoder means) of the training items the classifier classifies
// correctly with predictive entropy below a threshold (MaxEntropy for the digits), the "low-uncertainty training
// points" scheme S2 walks towards and yNN's neighbours. It computes them with the engine, which gives the same
// bits on every platform, from the models the page runs (for the digits, the shipped int8 files), so that what
// S2 and yNN use is what these models make of the training items.
package anchors

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/deltaclue/deltaclue/engine"
	"github.com/deltaclue/deltaclue/internal/dataset"
	"github.com/deltaclue/deltaclue/internal/plural"
	"github.com/deltaclue/deltaclue/mnist"
	"github.com/deltaclue/deltaclue/weights"
)

// MaxEntropy is the predictive entropy (nats) below which a correctly classified training digit is an anchor of
// the digits' models (the shipped anchors, and cmd/anchors' default).
const MaxEntropy = 0.05

// Make returns the anchors of the bundle's models (from its description; any anchors it holds are not read) on
// the training items train, with entropy below maxEntropy, stored as int8 with a scale per code (the shipped
// form), with a manifest naming the models' payloads and the split: the same inputs give the same bytes on
// every machine. A class no training item qualifies for has no anchors: the manifest counts 0 of it, and it has
// no tensor (weights.AnchorCounts).
func Make(b *weights.Bundle, train dataset.Items, split weights.Dataset, maxEntropy float64) ([]byte, error) {
	return MakeAtMost(b, train, split, maxEntropy, 0)
}

// MakeAtMost is Make keeping at most perClass anchors of each class (0: all), the first by training index: a
// large training split (Fashion-MNIST's 54,000 images give 28,000 anchors, 563 KB) costs the page's download
// far more than S2 gains from the nearest of so many.
func MakeAtMost(b *weights.Bundle, train dataset.Items, split weights.Dataset, maxEntropy float64, perClass int) ([]byte, error) {
	d := b.Description
	vae, bnn, err := engine.Load(d, b.Files)
	if err != nil {
		return nil, err
	}
	codes, err := Collect(vae, bnn, d, train, maxEntropy)
	if err != nil {
		return nil, err
	}
	return Encode(b, codes, vae.Latent, split, maxEntropy, perClass)
}

// Encode returns the anchors file of the bundle's models made of codes, per class the latent codes (of size
// latent each, one after another) of the training items read right with entropy below maxEntropy, in the
// training split's order, keeping at most perClass of each class (0: all), the first: what MakeAtMost makes of
// Collect's codes, for a caller that read the items itself (Reading.Anchors).
func Encode(b *weights.Bundle, codes [][]float32, latent int, split weights.Dataset, maxEntropy float64, perClass int) ([]byte, error) {
	d := b.Description
	if perClass > 0 {
		for c, z := range codes {
			codes[c] = z[:min(len(z), perClass*latent)]
		}
	}
	var named []weights.Named
	counts := map[string]any{}
	for c, z := range codes {
		counts[fmt.Sprint(c)] = len(z) / latent
		if len(z) == 0 { // no tensor: the count of 0 says the class has none (weights.AnchorCounts)
			continue
		}
		named = append(named, weights.Named{Name: weights.AnchorTensor(c), Shape: []int{len(z) / latent, latent}, Values: z,
			DType: weights.Int8, ScaleAxis: 0})
	}
	maxAbs, rms, err := conversionError(named)
	if err != nil {
		return nil, err
	}
	clf := make([]string, len(d.Classifier.Networks))
	for i, n := range d.Classifier.Networks {
		clf[i] = n.File
	}
	man := weights.Manifest{Model: "anchors", Architecture: weights.Architecture{Latent: latent}, Dataset: split,
		Training: map[string]any{"what": "encoder means of correctly classified training " + plural.Word(2, d.Input.Noun), "max_entropy": maxEntropy,
			"tool":               "cmd/anchors (engine/anchors), with the engine on the models below",
			"vae_payload_sha256": payloads(b.Files, d.VAE.Encoder.File, d.VAE.Decoder.File), "bnn_payload_sha256": payloads(b.Files, clf...)},
		Metrics: map[string]any{weights.AnchorCounts: counts, "max_abs_error": maxAbs, "rms_error": rms}}
	if perClass > 0 {
		man.Training["max_per_class"] = perClass // the first by training index
	}
	return weights.Encode(man, named)
}

// payloads is the payload SHA-256 of the named files, each once: the one's alone (as the digits' VAE and BNN,
// each in a file of its own, have always been named), or the list of several.
func payloads(files map[string]*weights.File, names ...string) any {
	var shas []string
	for _, name := range names {
		if sha := files[name].Manifest.PayloadSHA; !slices.Contains(shas, sha) {
			shas = append(shas, sha)
		}
	}
	if len(shas) == 1 {
		return shas[0]
	}
	return shas
}

// Collect returns, per class of bnn, the latent codes (vae's encoder means, one after another) of the items of
// train that bnn classifies correctly with predictive entropy below maxEntropy. A class with no such item has
// none (an empty slice): a classifier never sure of a class is what this tool explains, so it is no reason to
// refuse the models; scheme S2 starts no restart toward that class. d names the items in the sentence that
// refuses items of another size.
func Collect(vae *engine.VAE, bnn *engine.BNN, d *weights.Description, train dataset.Items, maxEntropy float64) ([][]float32, error) {
	size := bnn.Input.Size()
	if train.Size() != size || vae.Image.Size() != size {
		return nil, fmt.Errorf("the training %s have %d values each, and the models read %d", plural.Word(2, d.Input.Noun), train.Size(), size)
	}
	var r Reading
	const batch = 500 // bounds the memory of one pass; rows are independent, so the bits do not depend on it
	images := make([]float32, batch*size)
	for lo := 0; lo < train.Len(); lo += batch {
		hi := min(lo+batch, train.Len())
		x := images[:(hi-lo)*size]
		labels := make([]int, hi-lo)
		for i := lo; i < hi; i++ {
			train.Float(i, x[(i-lo)*size:(i-lo+1)*size])
			labels[i-lo] = train.Label(i)
		}
		r.Append(ReadItems(vae, bnn, x, labels))
	}
	return r.Anchors(bnn.Classes, maxEntropy), nil
}

// Reading is what the models make of some training items, in the order they were read: each one's class, the
// label the classifier reads, its predictive entropy H_total and its latent code (the encoder's mean).
type Reading struct {
	Class, Read []int
	Total       []float32
	Codes       []float32 // Latent values an item, one item after another
	Latent      int
}

// ReadItems reads the items x (one after another) of the given classes with the models. Rows are independent:
// a reading does not depend on how the items are batched.
func ReadItems(vae *engine.VAE, bnn *engine.BNN, x []float32, classes []int) Reading {
	r := Reading{Class: append([]int(nil), classes...), Codes: vae.Encode(x), Latent: vae.Latent}
	for _, p := range bnn.Classify(x) {
		r.Read, r.Total = append(r.Read, p.Label()), append(r.Total, p.Total)
	}
	return r
}

// Append appends the reading of more items.
func (r *Reading) Append(more Reading) {
	r.Class, r.Read, r.Total = append(r.Class, more.Class...), append(r.Read, more.Read...), append(r.Total, more.Total...)
	r.Codes, r.Latent = append(r.Codes, more.Codes...), more.Latent
}

// Len is the number of items read.
func (r Reading) Len() int { return len(r.Class) }

// Anchors returns, per class of a classifier of the given number of classes, the codes of the items read right
// with H_total below maxEntropy, in the reading's order (Collect's).
func (r Reading) Anchors(classes int, maxEntropy float64) [][]float32 {
	perClass := make([][]float32, classes)
	for k, y := range r.Read {
		if y == r.Class[k] && r.Total[k] < float32(maxEntropy) {
			perClass[y] = append(perClass[y], r.Codes[k*r.Latent:(k+1)*r.Latent]...)
		}
	}
	return perClass
}

// Missing lists, in order, the classes of an anchors file (of a classifier of the given number of classes)
// that have no anchors.
func Missing(f *weights.File, classes int) ([]int, error) {
	codes, err := f.Anchors(classes)
	if err != nil {
		return nil, err
	}
	var none []int
	for c, z := range codes {
		if len(z) == 0 {
			none = append(none, c)
		}
	}
	return none, nil
}

// conversionError is the largest and the root-mean-square difference between the float32 codes and what their
// int8 form decodes to.
func conversionError(named []weights.Named) (maxAbs, rms float64, err error) {
	b, err := weights.Encode(weights.Manifest{Model: "anchors"}, named)
	if err != nil {
		return 0, 0, err
	}
	f, err := weights.Decode("anchors", b)
	if err != nil {
		return 0, 0, err
	}
	var sum float64
	n := 0
	for _, t := range named {
		got, err := f.Tensor(t.Name, t.Shape...)
		if err != nil {
			return 0, 0, err
		}
		for i, v := range t.Values {
			d := math.Abs(float64(got[i]) - float64(v))
			maxAbs, sum = max(maxAbs, d), sum+d*d
		}
		n += len(t.Values)
	}
	return maxAbs, math.Sqrt(sum / float64(max(n, 1))), nil
}

// ReadTrain reads the digits' training split of `make data` and checks it is the split the models were trained
// on.
func ReadTrain(dir string, dataset weights.Dataset) (*mnist.Set, error) {
	var split struct {
		SHA string `json:"split_sha256"`
	}
	raw, err := os.ReadFile(filepath.Join(dir, "split.json"))
	if err != nil {
		return nil, fmt.Errorf("%v: run `make data` first", err)
	}
	if err := json.Unmarshal(raw, &split); err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Join(dir, "split.json"), err)
	}
	if split.SHA != dataset.SplitSHA {
		return nil, fmt.Errorf("%s is split %s, but the models were trained on split %s", dir, split.SHA, dataset.SplitSHA)
	}
	s, err := mnist.ReadFile(filepath.Join(dir, "train.dcd"))
	var notOpened *fs.PathError
	if errors.As(err, &notOpened) {
		return nil, fmt.Errorf("%v: run `make data` first", err)
	}
	return s, err
}
