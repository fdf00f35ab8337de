package training

import (
	"fmt"
	"io"
	"math"
	"time"

	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/train/optimizer"

	"github.com/deltaclue/deltaclue/engine/rng"
	"github.com/deltaclue/deltaclue/internal/dataset"
	"github.com/deltaclue/deltaclue/mnist"
	"github.com/deltaclue/deltaclue/weights"
)

// Loop holds what the VAE and BNN training loops share: Adam on mini-batches of augmented images, one
// validation score per epoch, early stopping with patience, and the best epoch's weights kept.
type Loop struct {
	Seed      uint64  `json:"seed"`
	Batch     int     `json:"batch"`
	LR        float64 `json:"learning_rate"`
	MaxEpochs int     `json:"max_epochs"`
	Patience  int     `json:"patience"`
	Augment   Augment `json:"augment"`
	// KLWeight and FreeBits shape a VAE's training objective (TrainDescribedVAE; zero: the ELBO itself). The
	// objective is the reconstruction's NLL plus KLWeight (β; 0 means 1) times Σ_d max(FreeBits, KL_d), KL_d the
	// d-th latent dimension's KL averaged over the batch (Kingma et al. 2016's free bits). Early stopping reads
	// the same objective on the validation rows (FreeBits over the whole validation part); the ELBO the models
	// are measured with is always β = 1 without a floor. Left out of the manifest when zero, so the loops of the
	// models trained before them are written as they were.
	KLWeight float64   `json:"kl_weight,omitempty"`
	FreeBits float64   `json:"free_bits,omitempty"`
	Log      io.Writer `json:"-"`
}

// layer is one dense layer of a stack to create.
type layer struct {
	stack   string
	i       int
	in, out int
}

func stackLayers(stack string, widths []int) []layer {
	var ls []layer
	for i := 0; i+1 < len(widths); i++ {
		ls = append(ls, layer{stack, i, widths[i], widths[i+1]})
	}
	return ls
}

// newStore creates the layers' variables, He-normal weights and zero biases drawn from seed.
func newStore(layers []layer, seed uint64) *model.Store {
	store := model.NewStore()
	r := rng.New(seed)
	for _, l := range layers {
		w := make([]float32, l.in*l.out)
		std := math.Sqrt(2 / float64(l.in))
		for j := range w {
			w[j] = float32(r.Norm() * std)
		}
		scope := store.Scope("/" + weights.LayerName(l.stack, l.i))
		if _, err := scope.CreateVariable("weights", tensors.FromFlatDataAndDimensions(w, l.in, l.out)); err != nil {
			panic(err)
		}
		if _, err := scope.CreateVariable("biases", tensors.FromFlatDataAndDimensions(make([]float32, l.out), l.out)); err != nil {
			panic(err)
		}
	}
	return store
}

// snapshot copies the layers' current values out of the store.
func snapshot(store *model.Store, layers []layer) []weights.Named {
	var out []weights.Named
	for _, l := range layers {
		p := weights.LayerName(l.stack, l.i)
		w := tensors.MustCopyFlatData[float32](store.GetVariable("/" + p + "/weights").MustValue())
		b := tensors.MustCopyFlatData[float32](store.GetVariable("/" + p + "/biases").MustValue())
		out = append(out, weights.Named{Name: p + "/weights", Shape: []int{l.in, l.out}, Values: w},
			weights.Named{Name: p + "/biases", Shape: []int{l.out}, Values: b})
	}
	return out
}

// run trains for up to MaxEpochs: each epoch calls step on every full batch (indices into the training set,
// augmented images), then scores the model on validation (lower is better) and keeps the best weights.
//
// Items of MNIST's size go through Augment (which draws from the loop's stream even when it is zero, as the
// shipped models were trained); items of any other size are taken as they are, and Augment must be zero.
func (lp Loop) run(name string, snap func() []weights.Named, train dataset.Items,
	step func(epoch int, batch []int, images []float32), validate func() (score float64, report string)) (best []weights.Named, bestEpoch int, history []string) {
	r := rng.New(rng.Derive(lp.Seed, 1))
	size := train.Size()
	if size != mnist.Pixels && lp.Augment != (Augment{}) {
		panic("training: augmentation is for 28×28 images")
	}
	images := make([]float32, lp.Batch*size)
	src := make([]float32, size)
	bestScore := math.Inf(1)
	start := time.Now()
	for epoch := 1; epoch <= lp.MaxEpochs; epoch++ {
		perm := r.Perm(train.Len())
		for b := 0; b+lp.Batch <= len(perm); b += lp.Batch {
			batch := perm[b : b+lp.Batch]
			for k, i := range batch {
				if size == mnist.Pixels {
					lp.Augment.Apply(r, train.Float(i, src), images[k*size:(k+1)*size])
				} else {
					train.Float(i, images[k*size:(k+1)*size])
				}
			}
			step(epoch, batch, images)
		}
		score, report := validate()
		line := fmt.Sprintf("%s epoch %3d  %s  (%.0fs)", name, epoch, report, time.Since(start).Seconds())
		history = append(history, line)
		if score < bestScore {
			bestScore, bestEpoch, best = score, epoch, snap()
			line += "  *"
		}
		if lp.Log != nil {
			fmt.Fprintln(lp.Log, line)
		}
		if epoch-bestEpoch >= lp.Patience {
			break
		}
	}
	return best, bestEpoch, history
}

func adamStep(backend compute.Backend, store *model.Store, lr float64, lossFn func(scope *model.Scope, inputs []*Node) *Node) *model.Exec {
	opt := optimizer.Adam().LearningRate(lr).Done()
	return model.MustNewExec(backend, store, func(scope *model.Scope, inputs []*Node) *Node {
		loss := lossFn(scope, inputs)
		opt.UpdateGraph(scope, loss.Graph(), loss)
		return loss
	})
}

// batchChunks calls f for consecutive chunks of at most size indices of 0..n-1.
func batchChunks(n, size int, f func(lo, hi int)) {
	for lo := 0; lo < n; lo += size {
		f(lo, min(lo+size, n))
	}
}

// floats returns images lo..hi-1 of s as a [hi-lo, 784] tensor.
func floats(s *mnist.Set, lo, hi int) *tensors.Tensor {
	x := make([]float32, (hi-lo)*mnist.Pixels)
	for i := lo; i < hi; i++ {
		s.Float(i, x[(i-lo)*mnist.Pixels:(i-lo+1)*mnist.Pixels])
	}
	return tensors.FromFlatDataAndDimensions(x, hi-lo, mnist.Pixels)
}
