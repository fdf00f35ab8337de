//go:build !denseonly

package engine

import (
	"fmt"

	"github.com/deltaclue/deltaclue/weights"
)

// imageStep builds an image layer (conv2d, conv-transpose2d, the pools, upsampling) or leaky ReLU or tanh for
// a network, from a value of shape s. inputMasks are the MC-dropout masks of the dropout before it (per input
// channel: the description was checked), nil for none; tensors gives the layer's weights and bias with the
// weights' shape. A build with the tag denseonly leaves these layers out (network_dense.go): the digits' site ships such a
// worker, whose models need none of them.
func imageStep(l weights.Layer, s weights.Shape, inputMasks [][]float32, tensors func([]int) ([]float32, []float32, error)) (step, error) {
	in := engineShape(s)
	switch l.Op {
	case weights.OpConv:
		win := window(l)
		w, b, err := tensors([]int{l.Out, s.C, l.Kernel[0], l.Kernel[1]})
		if err != nil {
			return step{}, err
		}
		if inputMasks == nil {
			c, err := NewConv(in, l.Out, win, w, b)
			if err != nil {
				return step{}, err
			}
			return step{op: l.Op, madds: c.MultiplyAdds(), run: func(g *Graph, x *Tensor) *Tensor { return g.Conv2D(x, &c) }}, nil
		}
		per := make([]Conv, len(inputMasks))
		kk := l.Kernel[0] * l.Kernel[1]
		for k, m := range inputMasks {
			folded := make([]float32, len(w))
			for o := 0; o < l.Out; o++ { // scale input channel c's kernels by its mask
				for c := 0; c < s.C; c++ {
					src, dst := w[(o*s.C+c)*kk:(o*s.C+c+1)*kk], folded[(o*s.C+c)*kk:(o*s.C+c+1)*kk]
					for j, v := range src {
						dst[j] = v * m[c]
					}
				}
			}
			if per[k], err = NewConv(in, l.Out, win, folded, b); err != nil {
				return step{}, err
			}
		}
		return step{op: "conv-samples", madds: len(per) * per[0].MultiplyAdds(), run: func(g *Graph, x *Tensor) *Tensor { return g.ConvSamples(x, per) }}, nil
	case weights.OpConvTranspose:
		w, b, err := tensors([]int{s.C, l.Out, l.Kernel[0], l.Kernel[1]})
		if err != nil {
			return step{}, err
		}
		c, err := NewConvTranspose(in, l.Out, window(l), w, b)
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
			return step{op: l.Op, run: func(g *Graph, x *Tensor) *Tensor { return g.MaxPool2D(x, &p) }}, nil
		}
		return step{op: l.Op, run: func(g *Graph, x *Tensor) *Tensor { return g.AvgPool2D(x, &p) }}, nil
	case weights.OpUpsample:
		u, err := NewUpsample(in, l.Scale[0], l.Scale[1])
		if err != nil {
			return step{}, err
		}
		return step{op: l.Op, run: func(g *Graph, x *Tensor) *Tensor { return g.Upsample2D(x, &u) }}, nil
	case weights.OpLeakyReLU:
		slope := float32(l.Slope)
		return step{op: l.Op, run: func(g *Graph, x *Tensor) *Tensor { return g.LeakyReLU(x, slope) }}, nil
	case weights.OpTanh:
		return step{op: l.Op, run: func(g *Graph, x *Tensor) *Tensor { return g.Tanh(x) }}, nil
	}
	return step{}, fmt.Errorf("no image layer %q", l.Op)
}

// window is a layer's window.
func window(l weights.Layer) Window {
	return Window{KH: l.Kernel[0], KW: l.Kernel[1], StrideH: l.Stride[0], StrideW: l.Stride[1], PadH: l.Padding[0], PadW: l.Padding[1],
		OutPadH: l.OutputPadding[0], OutPadW: l.OutputPadding[1]}
}

// DenseOnly says that this build runs only the dense family of layers; this one runs every layer.
const DenseOnly = false
