package training

import (
	"fmt"

	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"

	"github.com/deltaclue/deltaclue/weights"
)

// The networks of a description (weights.Network) as gomlx graphs, for training convolutional models and
// measuring any bundle. Values flow feature-major, [features, N] with one column per input, an image's
// features channel-major (C, H, W) as the engine lays them out: a convolution is then one Gather of its windows
// (im2col, with a zero row standing for the padding) and one matrix product, and a dense layer one product.
// gomlx v0.28.2's pure-Go backend runs its own Convolve and that op's gradient an order of magnitude slower
// (measured: 1.2 s against 80–120 ms for a 3×3 convolution of a batch of 128 28×28 images), refuses some of
// those gradients, and has no gradient of Pad; Gather, its ScatterAdd gradient and MatMul it runs well.

// Tensors yields a network's tensor by its name in the weights file, as a node of graph g.
type Tensors func(g *Graph, name string) *Node

// StoreTensors reads the tensors from a gomlx store's variables, each at "/" + its name (trainable).
func StoreTensors(store *model.Store) Tensors {
	return func(g *Graph, name string) *Node {
		v := store.GetVariable("/" + name)
		if v == nil {
			panic(fmt.Sprintf("training: the store has no tensor %s", name))
		}
		return v.NodeValue(g)
	}
}

// Masks yields dropout layer l's mask for a value of shape s, as a node that multiplies the [s.Size(), N]
// value (broadcast along the columns or not); nil means no dropout (the network's expectation).
type Masks func(g *Graph, l int, s weights.Shape) *Node

// NetworkGraph applies layers of a network to x [in.Size(), N] and returns the output [out.Size(), N] with its
// shape. dropouts is the number of dropout layers before layers[0] in the whole network (masks are numbered in
// it). A graph (layers that name their inputs, or layers of format 2) is resolved and built by GraphNodes; a
// chain of format 1's layers is built here, one layer after another.
func NetworkGraph(p Tensors, layers []weights.Layer, in weights.Shape, x *Node, masks Masks, dropouts int) (*Node, weights.Shape, error) {
	if !isChain(layers) {
		return graphNetwork(p, layers, in, x, masks, dropouts)
	}
	s := in
	for i, l := range layers {
		out, err := l.OutShape(s)
		if err != nil {
			return nil, s, fmt.Errorf("layer %d (%s): %v", i, l.Op, err)
		}
		switch l.Op {
		case weights.OpDense:
			w, b := p(x.Graph(), l.Weights), p(x.Graph(), l.Bias)
			x = Add(MatMul(Transpose(w, 0, 1), x), Reshape(b, l.Out, 1))
		case weights.OpConv:
			x = convGraph(p, l, s, out, x)
		case weights.OpConvTranspose:
			x = convTransposeGraph(p, l, s, out, x)
		case weights.OpMaxPool, weights.OpAvgPool:
			x = poolGraph(l, s, out, x)
		case weights.OpUpsample:
			idx := make([]int32, 0, out.Size())
			for c := 0; c < out.C; c++ {
				for y := 0; y < out.H; y++ {
					for xx := 0; xx < out.W; xx++ {
						idx = append(idx, int32((c*s.H+y/l.Scale[0])*s.W+xx/l.Scale[1]))
					}
				}
			}
			x = gather(x, idx)
		case weights.OpReLU:
			x = Max(x, ZerosLike(x))
		case weights.OpLeakyReLU:
			x = Where(GreaterThan(x, ZerosLike(x)), x, MulScalar(x, float64(float32(l.Slope))))
		case weights.OpSigmoid:
			x = Sigmoid(x)
		case weights.OpTanh:
			x = Tanh(x)
		case weights.OpFlatten, weights.OpReshape:
			// Channel-major either way: nothing moves.
		case weights.OpDropout:
			if masks != nil {
				if m := masks(x.Graph(), dropouts, s); m != nil {
					x = Mul(x, m)
				}
			}
			dropouts++
		default:
			return nil, s, fmt.Errorf("layer %d (%s): training does not build it", i, l.Op)
		}
		s = out
	}
	return x, s, nil
}

// zeroRow appends a row of zeros to x [F, N], which a window's padding gathers.
func zeroRow(x *Node) *Node {
	n := x.Shape().Dimensions[1]
	return Concatenate([]*Node{x, Zeros(x.Graph(), shapes.Make(x.DType(), 1, n))}, 0)
}

// gather returns the rows idx of x [F, N] (a row index F being the zero row) as [len(idx), N].
func gather(x *Node, idx []int32) *Node {
	in := Const(x.Graph(), tensors.FromFlatDataAndDimensions(idx, len(idx), 1))
	return Gather(zeroRow(x), in)
}

// biasImage adds bias b [C] to every pixel of y [C·P, N].
func biasImage(y, b *Node, c, pixels int) *Node {
	n := y.Shape().Dimensions[1]
	return Reshape(Add(Reshape(y, c, pixels, n), Reshape(b, c, 1, 1)), c*pixels, n)
}

// convSettings is a convolution's groups and dilation, PyTorch's defaults (1, and 1 × 1) where the description
// leaves them zero.
func convSettings(l weights.Layer) (groups, dh, dw int) {
	groups, dh, dw = max(l.Groups, 1), l.Dilation[0], l.Dilation[1]
	if l.Dilation == [2]int{} {
		dh, dw = 1, 1
	}
	return groups, dh, dw
}

// convGraph is conv2d: the windows gathered as cols [in.C·KH·KW, P·N] (P the output's pixels; tap (ky, kx) of
// output pixel (oy, ox) reads input pixel (oy·stride − pad + ky·dil, ox·stride − pad + kx·dil)), then W·cols.
// Grouped, group g's rows of cols (its input channels') and of W (its output channels') are contiguous: one
// batched product [G, out.C/G, in.C/G·KH·KW]·[G, in.C/G·KH·KW, P·N].
func convGraph(p Tensors, l weights.Layer, in, out weights.Shape, x *Node) *Node {
	kh, kw, sh, sw, ph, pw := l.Kernel[0], l.Kernel[1], l.Stride[0], l.Stride[1], l.Padding[0], l.Padding[1]
	groups, dh, dw := convSettings(l)
	zero := int32(in.Size())
	idx := make([]int32, 0, in.C*kh*kw*out.H*out.W)
	for c := 0; c < in.C; c++ {
		for ky := 0; ky < kh; ky++ {
			for kx := 0; kx < kw; kx++ {
				for oy := 0; oy < out.H; oy++ {
					for ox := 0; ox < out.W; ox++ {
						y, xx := oy*sh+ky*dh-ph, ox*sw+kx*dw-pw
						if y < 0 || y >= in.H || xx < 0 || xx >= in.W {
							idx = append(idx, zero)
						} else {
							idx = append(idx, int32((c*in.H+y)*in.W+xx))
						}
					}
				}
			}
		}
	}
	n := x.Shape().Dimensions[1]
	k := in.C / groups * kh * kw
	var y *Node
	if groups == 1 {
		cols := Reshape(gather(x, idx), k, out.H*out.W*n)
		w := Reshape(p(x.Graph(), l.Weights), out.C, k)
		y = Reshape(MatMul(w, cols), out.C*out.H*out.W, n)
	} else {
		cols := Reshape(gather(x, idx), groups, k, out.H*out.W*n)
		w := Reshape(p(x.Graph(), l.Weights), groups, out.C/groups, k)
		y = Reshape(MatMul(w, cols), out.C*out.H*out.W, n)
	}
	return biasImage(y, p(x.Graph(), l.Bias), out.C, out.H*out.W)
}

// convTransposeGraph is conv-transpose2d as gathers, one per phase of the stride: output pixel (oy, ox) takes,
// through tap (ky, kx), the input pixel iy = (oy + pad − ky·dil)/stride where that divides (else nothing) and
// lies inside (else the zero row). Only the taps with ky·dil ≡ oy + pad (mod stride) divide, so the output pixels
// of one phase ((oy + pad) mod stride, and the same across) share their taps: each phase is one gather of those
// taps' windows and one product with those taps' weights, a stride² share of the work of gathering every tap.
// The phases' outputs are then put back in raster order. Grouped, each phase's product is batched over the
// groups, whose input channels (cols' rows) and output channels are contiguous.
func convTransposeGraph(p Tensors, l weights.Layer, in, out weights.Shape, x *Node) *Node {
	kh, kw, sh, sw, ph, pw := l.Kernel[0], l.Kernel[1], l.Stride[0], l.Stride[1], l.Padding[0], l.Padding[1]
	groups, dh, dw := convSettings(l)
	cg, og := in.C/groups, out.C/groups // a group's input and output channels
	g := x.Graph()
	n := x.Shape().Dimensions[1]
	zero := int32(in.Size())
	// The weights [in.C, out.C/G, KH, KW] as rows per tap: [KH·KW, in.C·out.C/G].
	byTap := Reshape(TransposeAllAxes(p(g, l.Weights), 2, 3, 0, 1), kh*kw, in.C*og)
	var parts []*Node
	order := make([]int32, out.H*out.W) // order[raster position] = position among the phases' outputs
	done := 0
	for ry := 0; ry < sh; ry++ {
		for rx := 0; rx < sw; rx++ {
			var taps []int32
			var kys, kxs []int
			for ky := 0; ky < kh; ky++ {
				if ky*dh%sh == ry {
					kys = append(kys, ky)
				}
			}
			for kx := 0; kx < kw; kx++ {
				if kx*dw%sw == rx {
					kxs = append(kxs, kx)
				}
			}
			var pixels [][2]int
			for oy := 0; oy < out.H; oy++ {
				for ox := 0; ox < out.W; ox++ {
					if (oy+ph)%sh == ry && (ox+pw)%sw == rx {
						pixels = append(pixels, [2]int{oy, ox})
					}
				}
			}
			if len(pixels) == 0 {
				continue
			}
			for i, px := range pixels {
				order[px[0]*out.W+px[1]] = int32(done + i)
			}
			done += len(pixels)
			if len(kys) == 0 || len(kxs) == 0 {
				// No tap reaches these pixels: the bias alone.
				parts = append(parts, Zeros(g, shapes.Make(x.DType(), out.C, len(pixels), n)))
				continue
			}
			for _, ky := range kys {
				for _, kx := range kxs {
					taps = append(taps, int32(ky*kw+kx))
				}
			}
			t := len(taps)
			idx := make([]int32, 0, in.C*t*len(pixels))
			for c := 0; c < in.C; c++ {
				for _, ky := range kys {
					for _, kx := range kxs {
						for _, px := range pixels {
							ny, nx := px[0]+ph-ky*dh, px[1]+pw-kx*dw
							iy, ix := ny/sh, nx/sw
							if ny < 0 || nx < 0 || iy >= in.H || ix >= in.W {
								idx = append(idx, zero)
							} else {
								idx = append(idx, int32((c*in.H+iy)*in.W+ix))
							}
						}
					}
				}
			}
			tapIdx := Const(g, tensors.FromFlatDataAndDimensions(taps, t, 1))
			var y *Node
			if groups == 1 {
				cols := Reshape(gather(x, idx), in.C*t, len(pixels)*n)
				w := TransposeAllAxes(Reshape(Gather(byTap, tapIdx), t, in.C, out.C), 2, 1, 0) // [out.C, in.C, t]
				y = MatMul(Reshape(w, out.C, in.C*t), cols)
			} else {
				cols := Reshape(gather(x, idx), groups, cg*t, len(pixels)*n)
				w := TransposeAllAxes(Reshape(Gather(byTap, tapIdx), t, groups, cg, og), 1, 3, 2, 0) // [G, out.C/G, in.C/G, t]
				y = MatMul(Reshape(w, groups, og, cg*t), cols)
			}
			parts = append(parts, Reshape(y, out.C, len(pixels), n))
		}
	}
	// [out.C, pixels in phase order, N] → raster order, by a gather over the pixels.
	all := Transpose(Concatenate(parts, 1), 0, 1) // [pixels, out.C, N]
	raster := Gather(all, Const(g, tensors.FromFlatDataAndDimensions(order, len(order), 1)))
	y := Reshape(Transpose(raster, 0, 1), out.C*out.H*out.W, n)
	return biasImage(y, p(g, l.Bias), out.C, out.H*out.W)
}

// poolGraph is max- or average pooling: each window's values gathered as [KH·KW, out.Size(), N] and reduced
// over the window. Padding is −∞ to a maximum (PyTorch's) and 0 to an average, which divides by KH·KW (PyTorch's
// count_include_pad, as the engine does).
func poolGraph(l weights.Layer, in, out weights.Shape, x *Node) *Node {
	kh, kw, sh, sw, ph, pw := l.Kernel[0], l.Kernel[1], l.Stride[0], l.Stride[1], l.Padding[0], l.Padding[1]
	pad := int32(in.Size())
	idx := make([]int32, 0, kh*kw*out.Size())
	for ky := 0; ky < kh; ky++ {
		for kx := 0; kx < kw; kx++ {
			for c := 0; c < out.C; c++ {
				for oy := 0; oy < out.H; oy++ {
					for ox := 0; ox < out.W; ox++ {
						y, xx := oy*sh+ky-ph, ox*sw+kx-pw
						if y < 0 || y >= in.H || xx < 0 || xx >= in.W {
							idx = append(idx, pad)
						} else {
							idx = append(idx, int32((c*in.H+y)*in.W+xx))
						}
					}
				}
			}
		}
	}
	n := x.Shape().Dimensions[1]
	src := zeroRow(x)
	if l.Op == weights.OpMaxPool {
		src = Concatenate([]*Node{x, BroadcastToDims(Reshape(Infinity(x.Graph(), x.DType(), -1), 1, 1), 1, n)}, 0)
	}
	in32 := Const(x.Graph(), tensors.FromFlatDataAndDimensions(idx, len(idx), 1))
	windows := Reshape(Gather(src, in32), kh*kw, out.Size(), n)
	if l.Op == weights.OpMaxPool {
		return ReduceMax(windows, 0)
	}
	return DivScalar(ReduceSum(windows, 0), float64(kh*kw))
}
