package training

import (
	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/deltaclue/deltaclue/engine/mcmask"
	"github.com/deltaclue/deltaclue/weights"
)

// Float64 wraps p so that every layer comes out as float64 constants (for a high-precision reference).
func Float64(p Params) Params {
	return func(g *Graph, stack string, i int) (*Node, *Node) {
		w, b := p(g, stack, i)
		return ConvertDType(w, dtypes.Float64), ConvertDType(b, dtypes.Float64)
	}
}

// OracleWeights are the δ-CLUE objective's weights (see engine.LossWeights).
type OracleWeights struct {
	Total, Aleatoric, Epistemic float64
	LambdaX                     float64
	DistanceMean                bool
	LambdaY                     float64
}

// OracleOutputs are the objective's values per point and its gradient with respect to the latent points.
type OracleOutputs struct {
	Image, Probs                      []float64 // [N·784], [N·C]
	Total, Aleatoric, Epistemic, Dist []float64 // [N]
	Cost                              []float64 // [N]
	Grad                              []float64 // ∂(Σ cost)/∂z [N·latent]
}

// Objective is the δ-CLUE objective as a compiled gomlx graph: its values per point and its gradient with
// respect to the latent points (graph.Gradient). It is the reference the engine is checked against (in
// float64) and the gomlx side of the engine's speed comparison (in float32).
type Objective struct {
	exec            *Exec
	dtype           dtypes.DType
	latent, classes int
}

// NewObjective compiles the objective for the shipped-format models in dtype (Float32 or Float64).
func NewObjective(vae, bnn *weights.File, w OracleWeights, dtype dtypes.DType) *Objective {
	va, ba := vae.Manifest.Architecture, bnn.Manifest.Architecture
	pv, pb := FileParams(vae), FileParams(bnn)
	if dtype == dtypes.Float64 {
		pv, pb = Float64(pv), Float64(pb)
	}
	exec := MustNewExec(Backend(), func(zn, x0n, y0n *Node) []*Node {
		g := zn.Graph()
		image := Sigmoid(DecoderLogitsGraph(pv, va, zn))
		var pbar, ha *Node
		for _, km := range mcmask.Draw(ba) {
			masks := make([]*Node, len(km))
			for l, m := range km {
				masks[l] = ConvertDType(Const(g, tensors.FromFlatDataAndDimensions(m, 1, len(m))), dtype)
			}
			p := Softmax(BNNLogitsGraph(pb, ba, image, masks), -1)
			h := Neg(ReduceSum(Mul(p, Log(p)), -1))
			if pbar == nil {
				pbar, ha = p, h
			} else {
				pbar, ha = Add(pbar, p), Add(ha, h)
			}
		}
		k := 1 / float64(ba.MCSamples)
		pbar, ha = MulScalar(pbar, k), MulScalar(ha, k)
		ht := Neg(ReduceSum(Mul(pbar, Log(pbar)), -1))
		he := Sub(ht, ha)
		dist := ReduceSum(Abs(Sub(image, x0n)), -1)
		lx := w.LambdaX
		if w.DistanceMean {
			lx /= 784
		}
		cost := Add(Add(MulScalar(ht, w.Total), MulScalar(ha, w.Aleatoric)), MulScalar(he, w.Epistemic))
		cost = Add(cost, MulScalar(dist, lx))
		if w.LambdaY != 0 {
			ce := Neg(ReduceSum(Mul(y0n, Log(pbar)), -1))
			cost = Add(cost, MulScalar(ce, w.LambdaY))
		}
		grad := Gradient(ReduceAllSum(cost), zn)[0]
		return []*Node{image, pbar, ht, ha, he, dist, cost, grad}
	})
	return &Objective{exec: exec, dtype: dtype, latent: va.Latent, classes: ba.Layers[len(ba.Layers)-1]}
}

// Run evaluates the objective at n latent points z [n·latent] around x0 (784 values) with BNN prediction y0
// (nil when λy = 0), all given as float64 and converted to the objective's dtype.
func (o *Objective) Run(z []float64, n int, x0, y0 []float64) OracleOutputs {
	if y0 == nil {
		y0 = make([]float64, o.classes)
	}
	out := o.exec.MustExec(o.tensor(z, n, o.latent), o.tensor(x0, 1, 784), o.tensor(y0, 1, o.classes))
	f := func(i int) []float64 {
		if o.dtype == dtypes.Float64 {
			return tensors.MustCopyFlatData[float64](out[i])
		}
		v := tensors.MustCopyFlatData[float32](out[i])
		d := make([]float64, len(v))
		for j, x := range v {
			d[j] = float64(x)
		}
		return d
	}
	return OracleOutputs{Image: f(0), Probs: f(1), Total: f(2), Aleatoric: f(3), Epistemic: f(4), Dist: f(5), Cost: f(6), Grad: f(7)}
}

// RunTensors runs the objective on prepared input tensors and returns gomlx's outputs (for benchmarks).
func (o *Objective) RunTensors(z, x0, y0 *tensors.Tensor) []*tensors.Tensor {
	return o.exec.MustExec(z, x0, y0)
}

func (o *Objective) tensor(v []float64, dims ...int) *tensors.Tensor {
	if o.dtype == dtypes.Float64 {
		return tensors.FromFlatDataAndDimensions(v, dims...)
	}
	f := make([]float32, len(v))
	for i, x := range v {
		f[i] = float32(x)
	}
	return tensors.FromFlatDataAndDimensions(f, dims...)
}

// Oracle evaluates the δ-CLUE objective in gomlx, in float64, for latent points z [n, latent] around x0
// (784 values) with BNN prediction y0, and differentiates it with graph.Gradient.
func Oracle(vae, bnn *weights.File, w OracleWeights, z []float64, n int, x0, y0 []float64) OracleOutputs {
	return NewObjective(vae, bnn, w, dtypes.Float64).Run(z, n, x0, y0)
}

// EncoderMeans returns the VAE encoder means μφ(x) of n images [n·784], computed by gomlx in float64.
func EncoderMeans(vae *weights.File, images []float64, n int) []float64 {
	a := vae.Manifest.Architecture
	p := Float64(FileParams(vae))
	exec := MustNewExec(Backend(), func(x *Node) *Node {
		return EncoderMeanGraph(p, a, x)
	})
	return tensors.MustCopyFlatData[float64](exec.MustExec(tensors.FromFlatDataAndDimensions(images, n, 784))[0])
}
