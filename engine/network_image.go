//go:build !denseonly

package engine

import (
	"fmt"
	"math"

	"github.com/deltaclue/deltaclue/weights"
)

// layerStep builds any layer but dense, ReLU, sigmoid, dropout and those that move nothing, from its inputs of
// shapes ins to out: the image layers (convolutions, pools, upsampling), the activations, the merges, batch
// normalisation. inputMasks are the MC-dropout masks folded into it (a convolution's, per input channel: the
// description was checked), nil for none; tensors gives the layer's weights and bias with the weights' shape. A
// build with the tag denseonly leaves these layers out (network_dense.go): the digits' site ships such a worker,
// whose models need none of them.
func layerStep(l weights.Layer, ins []weights.Shape, out weights.Shape, inputMasks [][]float32, tensors func([]int) ([]float32, []float32, error)) (step, error) {
	s := ins[0]
	in := engineShape(s)
	groups := max(l.Groups, 1)
	one := func(run func(g *Graph, x *Tensor) *Tensor) (step, error) { return step{op: l.Op, run: run}, nil }
	switch l.Op {
	case weights.OpConv:
		win := window(l)
		w, b, err := tensors([]int{l.Out, s.C / groups, l.Kernel[0], l.Kernel[1]})
		if err != nil {
			return step{}, err
		}
		if inputMasks == nil {
			c, err := NewConvGroups(in, l.Out, win, groups, w, b)
			if err != nil {
				return step{}, err
			}
			return step{op: l.Op, madds: c.MultiplyAdds(), run: func(g *Graph, x *Tensor) *Tensor { return g.Conv2D(x, &c) }}, nil
		}
		per := make([]Conv, len(inputMasks))
		kk := l.Kernel[0] * l.Kernel[1]
		cin, m := s.C/groups, l.Out/groups // a group's input and output channels
		for k, mask := range inputMasks {
			folded := make([]float32, len(w))
			for o := 0; o < l.Out; o++ { // scale input channel c's kernels by its mask
				for j := 0; j < cin; j++ {
					c := o/m*cin + j
					src, dst := w[(o*cin+j)*kk:(o*cin+j+1)*kk], folded[(o*cin+j)*kk:(o*cin+j+1)*kk]
					for t, v := range src {
						dst[t] = v * mask[c]
					}
				}
			}
			if per[k], err = NewConvGroups(in, l.Out, win, groups, folded, b); err != nil {
				return step{}, err
			}
		}
		return step{op: "conv-samples", madds: len(per) * per[0].MultiplyAdds(), run: func(g *Graph, x *Tensor) *Tensor { return g.ConvSamples(x, per) }}, nil
	case weights.OpConvTranspose:
		w, b, err := tensors([]int{s.C, l.Out / groups, l.Kernel[0], l.Kernel[1]})
		if err != nil {
			return step{}, err
		}
		c, err := NewConvTransposeGroups(in, l.Out, window(l), groups, w, b)
		if err != nil {
			return step{}, err
		}
		return step{op: l.Op, madds: c.MultiplyAdds(), run: func(g *Graph, x *Tensor) *Tensor { return g.ConvTranspose2D(x, &c) }}, nil
	case weights.OpMaxPool, weights.OpAvgPool:
		p, err := NewPool(in, window(l))
		if err != nil {
			return step{}, err
		}
		if l.Op == weights.OpMaxPool {
			return one(func(g *Graph, x *Tensor) *Tensor { return g.MaxPool2D(x, &p) })
		}
		return one(func(g *Graph, x *Tensor) *Tensor { return g.AvgPool2D(x, &p) })
	case weights.OpGlobalAvgPool:
		return one(func(g *Graph, x *Tensor) *Tensor { return g.GlobalAvgPool(x, in) })
	case weights.OpGlobalMaxPool:
		return one(func(g *Graph, x *Tensor) *Tensor { return g.GlobalMaxPool(x, in) })
	case weights.OpUpsample:
		u, err := NewUpsample(in, l.Scale[0], l.Scale[1])
		if err != nil {
			return step{}, err
		}
		return one(func(g *Graph, x *Tensor) *Tensor { return g.Upsample2D(x, &u) })
	case weights.OpBatchNorm:
		scale, err := tensorOf(tensors, s.C)
		if err != nil {
			return step{}, err
		}
		return step{op: l.Op, madds: s.Size(), run: func(g *Graph, x *Tensor) *Tensor { return g.ChannelAffine(x, in, scale[0], scale[1]) }}, nil
	case weights.OpLeakyReLU:
		slope := float32(l.Slope)
		return one(func(g *Graph, x *Tensor) *Tensor { return g.LeakyReLU(x, slope) })
	case weights.OpTanh:
		return one(func(g *Graph, x *Tensor) *Tensor { return g.Tanh(x) })
	case weights.OpSiLU:
		return one(func(g *Graph, x *Tensor) *Tensor { return g.SiLU(x) })
	case weights.OpGELU:
		tanhForm := l.Approximate == weights.ApproximateTanh
		return one(func(g *Graph, x *Tensor) *Tensor { return g.GELU(x, tanhForm) })
	case weights.OpClip:
		lo, hi := float32(math.Inf(-1)), float32(math.Inf(1))
		if l.Min != nil {
			lo = float32(*l.Min)
		}
		if l.Max != nil {
			hi = float32(*l.Max)
		}
		return one(func(g *Graph, x *Tensor) *Tensor { return g.Clip(x, lo, hi) })
	case weights.OpHardSigmoid:
		alpha, beta := float32(l.Alpha), float32(l.Beta)
		return one(func(g *Graph, x *Tensor) *Tensor { return g.HardSigmoid(x, alpha, beta) })
	case weights.OpHardSwish:
		return one(func(g *Graph, x *Tensor) *Tensor { return g.HardSwish(x) })
	case weights.OpELU:
		alpha := float32(l.Alpha)
		return one(func(g *Graph, x *Tensor) *Tensor { return g.ELU(x, alpha) })
	case weights.OpSoftplus:
		return one(func(g *Graph, x *Tensor) *Tensor { return g.Softplus(x) })
	case weights.OpAdd:
		return step{op: l.Op, merge: func(g *Graph, xs []*Tensor) *Tensor { return g.Add(samePerPoint(g, xs)...) }}, nil
	case weights.OpConcat:
		return step{op: l.Op, merge: func(g *Graph, xs []*Tensor) *Tensor { return g.Concat(samePerPoint(g, xs)...) }}, nil
	case weights.OpMul:
		// An image times one value per channel reads the image first; a product is the same either way round.
		swap, pixels := ins[0].Size() < ins[1].Size(), out.H*out.W
		if ins[0].Size() == ins[1].Size() {
			pixels = 1
		}
		return step{op: l.Op, merge: func(g *Graph, xs []*Tensor) *Tensor {
			xs = samePerPoint(g, xs)
			if swap {
				return g.Mul(xs[1], xs[0], pixels)
			}
			return g.Mul(xs[0], xs[1], pixels)
		}}, nil
	}
	return step{}, fmt.Errorf("no layer %q", l.Op)
}

// tensorOf reads a layer's two per-channel tensors of c values (batch normalisation's scale and shift).
func tensorOf(tensors func([]int) ([]float32, []float32, error), c int) ([2][]float32, error) {
	w, b, err := tensors([]int{c})
	return [2][]float32{w, b}, err
}

// samePerPoint makes the inputs of a merge all per sample when one is (an MC-dropout branch beside a per-point
// one): the others are copied once per sample.
func samePerPoint(g *Graph, xs []*Tensor) []*Tensor {
	k := 1
	for _, x := range xs {
		k = max(k, x.PerPoint)
	}
	if k == 1 {
		return xs
	}
	out := make([]*Tensor, len(xs))
	for i, x := range xs {
		out[i] = x
		if x.PerPoint == 1 {
			out[i] = g.Broadcast(x, k)
		}
	}
	return out
}

// maskStep is MC dropout where no weighted layer can take its masks (per unit of its input, per sample): it
// multiplies the activations, making them per sample.
func maskStep(masks [][]float32) (step, error) {
	return step{op: "mask-samples", run: func(g *Graph, x *Tensor) *Tensor { return g.MaskSamples(x, masks) }}, nil
}

// window is a layer's window.
func window(l weights.Layer) Window {
	return Window{KH: l.Kernel[0], KW: l.Kernel[1], StrideH: l.Stride[0], StrideW: l.Stride[1], PadH: l.Padding[0], PadW: l.Padding[1],
		OutPadH: l.OutputPadding[0], OutPadW: l.OutputPadding[1], DilH: l.Dilation[0], DilW: l.Dilation[1]}
}

// DenseOnly says that this build runs only the dense family of layers; this one runs every layer.
const DenseOnly = false
