// Package training trains the project's VAE and MC-dropout BNN with gomlx and measures them; it is also the
// gomlx side of the tests that check the engine. It is native-only: nothing that compiles to WASM imports it.
package training

import (
	"fmt"

	"github.com/gomlx/compute"
	_ "github.com/gomlx/compute/gobackend" // the pure-Go backend; never backends/default (XLA needs a download)
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"

	"github.com/deltaclue/deltaclue/engine/mcmask"
	"github.com/deltaclue/deltaclue/weights"
)

// Backend returns the pure-Go gomlx backend, running a graph's ops one after another (each op may still use
// every core). compute v0.1.2's default, running independent ops in parallel, deadlocks here: two parallel
// AVX-512 matmuls each wait in workerspool.Saturate for a worker the other holds.
func Backend() compute.Backend {
	b, err := compute.NewWithConfig("go:ops_sequential")
	if err != nil {
		panic(err)
	}
	return b
}

// Params yields layer i of a stack as weight [in, out] and bias [out] nodes of graph g.
type Params func(g *Graph, stack string, i int) (w, b *Node)

// StoreParams reads the layers from a gomlx store's variables "/<stack>/<i>/weights" and ".../biases" (trainable).
func StoreParams(store *model.Store) Params {
	return func(g *Graph, stack string, i int) (*Node, *Node) {
		p := "/" + weights.LayerName(stack, i)
		w, b := store.GetVariable(p+"/weights"), store.GetVariable(p+"/biases")
		if w == nil || b == nil {
			panic(fmt.Sprintf("training: the store has no layer %s", p))
		}
		return w.NodeValue(g), b.NodeValue(g)
	}
}

// FileParams makes the layers of loaded weights files graph constants (for measuring and as a test oracle): each
// tensor comes from the first of files that has it (the shipped VAE keeps its log-variance head in a file of its
// own, weights.ShippedVAELogVar). The values are the files' decoded float32 values, the same the engine loads.
func FileParams(files ...*weights.File) Params {
	type where struct {
		file  *weights.File
		shape []int
	}
	found := map[string]where{}
	for _, f := range files {
		if f == nil {
			continue
		}
		for _, t := range f.Manifest.Tensors {
			if _, ok := found[t.Name]; !ok {
				found[t.Name] = where{f, t.Shape}
			}
		}
	}
	type key struct {
		g    *Graph
		name string
	}
	consts := map[key]*Node{} // one constant per tensor and graph, however often a layer is applied
	get := func(g *Graph, name string) *Node {
		if n, ok := consts[key{g, name}]; ok {
			return n
		}
		w, ok := found[name]
		if !ok {
			panic(fmt.Sprintf("training: no file has tensor %q", name))
		}
		v, err := w.file.Tensor(name, w.shape...)
		if err != nil {
			panic(err)
		}
		n := Const(g, tensors.FromFlatDataAndDimensions(v, w.shape...))
		consts[key{g, name}] = n
		return n
	}
	return func(g *Graph, stack string, i int) (*Node, *Node) {
		p := weights.LayerName(stack, i)
		return get(g, p+"/weights"), get(g, p+"/biases")
	}
}

func dense(p Params, stack string, i int, x *Node) *Node {
	w, b := p(x.Graph(), stack, i)
	return Add(MatMul(x, w), ExpandAxes(b, 0))
}

func relu(x *Node) *Node { return Max(x, ZerosLike(x)) }

// mlp applies layers 0..n-1 of a stack, with ReLU (and then after(i, h), if given) between layers.
func mlp(p Params, stack string, n int, x *Node, after func(i int, h *Node) *Node) *Node {
	for i := 0; i < n; i++ {
		x = dense(p, stack, i, x)
		if i < n-1 {
			x = relu(x)
			if after != nil {
				x = after(i, x)
			}
		}
	}
	return x
}

// EncoderGraph returns the VAE encoder's mean and log-variance for images x [N, 784].
func EncoderGraph(p Params, a weights.Architecture, x *Node) (mean, logVar *Node) {
	h := encoderHidden(p, a, x)
	return dense(p, weights.StackEncoderMean, 0, h), dense(p, weights.StackEncoderLogVar, 0, h)
}

// EncoderMeanGraph returns the VAE encoder's mean for images x [N, 784]: all the engine uses (it needs no
// log-variance head).
func EncoderMeanGraph(p Params, a weights.Architecture, x *Node) *Node {
	return dense(p, weights.StackEncoderMean, 0, encoderHidden(p, a, x))
}

func encoderHidden(p Params, a weights.Architecture, x *Node) *Node {
	return relu(mlp(p, weights.StackEncoder, len(a.Layers)-1, x, nil))
}

// DecoderLogitsGraph returns the VAE decoder's Bernoulli logits for latent codes z [N, latent].
func DecoderLogitsGraph(p Params, a weights.Architecture, z *Node) *Node {
	return mlp(p, weights.StackDecoder, len(a.Decoder)-1, z, nil)
}

// BNNLogitsGraph returns the BNN's logits for images x [N, 784], with hidden layer l multiplied by masks[l]
// (shape [N, width] or [1, width]; nil masks mean no dropout).
func BNNLogitsGraph(p Params, a weights.Architecture, x *Node, masks []*Node) *Node {
	return mlp(p, weights.StackBNN, len(a.Layers)-1, x, func(i int, h *Node) *Node {
		if masks == nil {
			return h
		}
		return Mul(h, masks[i])
	})
}

// BNNPredictiveGraph returns the posterior-predictive class probabilities [N, 10] of the MC-dropout BNN with
// its fixed masks (mcmask.Draw): the mean over the K masked networks of their softmax.
func BNNPredictiveGraph(p Params, a weights.Architecture, x *Node) *Node {
	var sum *Node
	for _, km := range mcmask.Draw(a) {
		masks := make([]*Node, len(km))
		for l, m := range km {
			masks[l] = Const(x.Graph(), tensors.FromFlatDataAndDimensions(m, 1, len(m)))
		}
		probs := Softmax(BNNLogitsGraph(p, a, x, masks), -1)
		if sum == nil {
			sum = probs
		} else {
			sum = Add(sum, probs)
		}
	}
	return MulScalar(sum, 1/float64(a.MCSamples))
}
