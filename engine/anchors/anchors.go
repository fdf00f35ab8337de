// Package anchors makes the anchors file (weights/anchors.dcw) from the models it serves and the training split:
// per class, the latent codes (encoder means) of the training digits the BNN classifies correctly with
// predictive entropy below MaxEntropy, the "low-uncertainty training points" scheme S2 walks towards and yNN's
// neighbours. It computes them with the engine, which gives the same bits on every platform, from the models the
// page runs (the shipped int8 files), so that what S2 and yNN use is what these models make of the training
// digits.
package anchors

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/mnist"
	"github.com/deltaclue/deltaclue/weights"
)

// MaxEntropy is the predictive entropy (nats) below which a correctly classified training digit is an anchor.
const MaxEntropy = 0.05

// Make returns the anchors of vae and bnn on the training split train, stored as int8 with a scale per code (the
// shipped form), with a manifest naming the models' payloads and the split: the same inputs give the same
// bytes on every machine.
func Make(vae, bnn *weights.File, train *mnist.Set, dataset weights.Dataset) ([]byte, error) {
	models, err := clue.LoadModels(vae, bnn, nil) // no anchors yet: these are what it makes
	if err != nil {
		return nil, err
	}
	latent := models.VAE.Latent
	perClass := make([][]float32, models.BNN.Classes)
	const batch = 500 // bounds the memory of one pass; rows are independent, so the bits do not depend on it
	images := make([]float32, batch*mnist.Pixels)
	for lo := 0; lo < train.Len(); lo += batch {
		hi := min(lo+batch, train.Len())
		x := images[:(hi-lo)*mnist.Pixels]
		for i := lo; i < hi; i++ {
			train.Float(i, x[(i-lo)*mnist.Pixels:(i-lo+1)*mnist.Pixels])
		}
		codes := models.VAE.Encode(x)
		for k, p := range models.BNN.Classify(x) {
			if y := p.Label(); y == int(train.Labels[lo+k]) && p.Total < MaxEntropy {
				perClass[y] = append(perClass[y], codes[k*latent:(k+1)*latent]...)
			}
		}
	}
	var named []weights.Named
	counts := map[string]any{}
	for c, z := range perClass {
		if len(z) == 0 {
			return nil, fmt.Errorf("no training digit of class %d has entropy below %v", c, MaxEntropy)
		}
		named = append(named, weights.Named{Name: weights.AnchorTensor(c), Shape: []int{len(z) / latent, latent}, Values: z,
			DType: weights.Int8, ScaleAxis: 0})
		counts[fmt.Sprint(c)] = len(z) / latent
	}
	maxAbs, rms, err := conversionError(named)
	if err != nil {
		return nil, err
	}
	man := weights.Manifest{Model: "anchors", Architecture: weights.Architecture{Latent: latent}, Dataset: dataset,
		Training: map[string]any{"what": "encoder means of correctly classified training digits", "max_entropy": MaxEntropy,
			"tool":               "cmd/anchors (engine/anchors), with the engine on the models below",
			"vae_payload_sha256": vae.Manifest.PayloadSHA, "bnn_payload_sha256": bnn.Manifest.PayloadSHA},
		Metrics: map[string]any{"per_class": counts, "max_abs_error": maxAbs, "rms_error": rms}}
	return weights.Encode(man, named)
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

// ReadTrain reads the training split of `make data` and checks it is the split the models were trained on.
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
