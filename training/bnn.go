package training

import (
	"fmt"

	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"

	"github.com/deltaclue/deltaclue/engine/rng"
	"github.com/deltaclue/deltaclue/mnist"
	"github.com/deltaclue/deltaclue/weights"
)

// BNNConfig configures the MC-dropout BNN (Gal & Ghahramani): an MLP with ReLU and dropout on every hidden
// activation (not the input, so the first layer is computed once for all posterior samples).
type BNNConfig struct {
	Loop
	Layers    []int     `json:"layers"`   // input first: [784, 256, 128, 10]
	Dropouts  []float64 `json:"dropouts"` // candidate rates; the one with the best validation NLL is kept
	MCSamples int       `json:"mc_samples"`
	MaskSeed  uint64    `json:"mask_seed"`
}

// DefaultBNN is the shipped BNN's configuration.
var DefaultBNN = BNNConfig{
	Loop:   Loop{Seed: 2, Batch: 128, LR: 1e-3, MaxEpochs: 200, Patience: 20, Augment: DefaultAugment},
	Layers: []int{mnist.Pixels, 256, 128, mnist.Classes}, Dropouts: []float64{0.1, 0.25, 0.4},
	MCSamples: 20, MaskSeed: 7,
}

// Architecture returns the weights-file architecture with the given dropout rate.
func (c BNNConfig) Architecture(dropout float64) weights.Architecture {
	return weights.Architecture{Layers: c.Layers, Activation: "relu", Output: "softmax", Dropout: dropout,
		MCSamples: c.MCSamples, MaskSeed: c.MaskSeed}
}

// TrainBNN trains one BNN per candidate dropout rate, each with early stopping on the validation NLL of the
// fixed-mask posterior predictive, and returns the best one's weights, its architecture and the history.
func TrainBNN(backend compute.Backend, c BNNConfig, train, val *mnist.Set) ([]weights.Named, weights.Architecture, map[string]any) {
	var best []weights.Named
	var bestArch weights.Architecture
	bestNLL := 1e300
	candidates := map[string]any{}
	for _, rate := range c.Dropouts {
		named, nll, info := trainBNNRate(backend, c, rate, train, val)
		candidates[fmt.Sprint(rate)] = info
		if nll < bestNLL {
			best, bestArch, bestNLL = named, c.Architecture(rate), nll
		}
	}
	return best, bestArch, map[string]any{"config": c, "candidates": candidates, "chosen_dropout": bestArch.Dropout}
}

func trainBNNRate(backend compute.Backend, c BNNConfig, rate float64, train, val *mnist.Set) ([]weights.Named, float64, map[string]any) {
	a := c.Architecture(rate)
	layers := stackLayers(weights.StackBNN, c.Layers)
	store := newStore(layers, rng.Derive(c.Seed, 0))
	p := StoreParams(store)
	hidden := c.Layers[1 : len(c.Layers)-1]
	step := adamStep(backend, store, c.LR, func(scope *model.Scope, in []*Node) *Node {
		logits := BNNLogitsGraph(p, a, in[0], in[2:])
		return Neg(ReduceAllMean(ReduceSum(Mul(in[1], LogSoftmax(logits, -1)), -1)))
	})
	predict := model.MustNewExec(backend, store, func(scope *model.Scope, x *Node) *Node { return BNNPredictiveGraph(p, a, x) })
	maskRand := rng.New(rng.Derive(c.Seed, uint64(rate*1000)+10))
	keep := float32(1 / (1 - rate))
	var last Classification
	validate := func() (float64, string) {
		probs := tensors.MustCopyFlatData[float32](predict.MustCall1(floats(val, 0, val.Len())))
		last = Classify(probs, val.Labels)
		return last.NLL, fmt.Sprintf("dropout %.2f  validation NLL %.4f accuracy %.4f", rate, last.NLL, last.Accuracy)
	}
	best, bestEpoch, history := c.run("bnn", func() []weights.Named { return snapshot(store, layers) }, train, func(epoch int, batch []int, images []float32) {
		onehot := make([]float32, len(batch)*mnist.Classes)
		for k, i := range batch {
			onehot[k*mnist.Classes+int(train.Labels[i])] = 1
		}
		args := []any{tensors.FromFlatDataAndDimensions(images, len(batch), mnist.Pixels),
			tensors.FromFlatDataAndDimensions(onehot, len(batch), mnist.Classes)}
		for _, w := range hidden {
			m := make([]float32, len(batch)*w)
			for j := range m {
				if maskRand.Float64() >= rate {
					m[j] = keep
				}
			}
			args = append(args, tensors.FromFlatDataAndDimensions(m, len(batch), w))
		}
		step.MustCall(args...)
	}, validate)
	// Re-score the kept epoch (validate reports the last epoch, not necessarily the best).
	f, err := weights.Decode("candidate", mustEncode(weights.Manifest{Model: "bnn", Architecture: a}, best))
	if err != nil {
		panic(err)
	}
	q, _ := MeasureBNN(backend, f, val)
	return best, q.NLL, map[string]any{"best_epoch": bestEpoch, "epochs": len(history), "validation": q}
}

func mustEncode(m weights.Manifest, named []weights.Named) []byte {
	b, err := weights.Encode(m, named)
	if err != nil {
		panic(err)
	}
	return b
}

// MeasureBNN measures the BNN in f on set: the fixed-mask posterior predictive's accuracy, NLL, ECE and the
// AUROC of its entropy for detecting its own mistakes. It also returns the predictive probabilities [N·10].
func MeasureBNN(backend compute.Backend, f *weights.File, set *mnist.Set) (Classification, []float32) {
	a := f.Manifest.Architecture
	p := FileParams(f)
	predict := MustNewExec(backend, func(x *Node) *Node { return BNNPredictiveGraph(p, a, x) })
	var probs []float32
	batchChunks(set.Len(), 1000, func(lo, hi int) {
		probs = append(probs, tensors.MustCopyFlatData[float32](predict.MustExec(floats(set, lo, hi))[0])...)
	})
	return Classify(probs, set.Labels), probs
}
