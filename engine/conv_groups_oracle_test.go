//go:build !js || gomlxwasm

package engine

// Grouped and dilated convolutions against gomlx: its ConvGeneral (XLA's convolution, with feature groups and
// kernel dilation) in float64 on the pure-Go backend, and training's graphs of the same layers (gathers and a
// batched product per group). Natively with every `go test`; in WASM under Node with -tags gomlxwasm.

import (
	"fmt"
	"math"
	"testing"

	gx "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/deltaclue/deltaclue/engine/rng"
	"github.com/deltaclue/deltaclue/training"
	"github.com/deltaclue/deltaclue/weights"
)

// channelsFirst is ConvGeneral's axes for images [n, C, H, W] and kernels [out, in/groups, kh, kw] (PyTorch's).
var channelsFirst = gx.ConvolveAxesConfig{
	InputBatch: 0, InputChannels: 1, InputSpatial: []int{2, 3},
	KernelOutputChannels: 0, KernelInputChannels: 1, KernelSpatial: []int{2, 3},
	OutputBatch: 0, OutputChannels: 1, OutputSpatial: []int{2, 3},
}

// groupedConvolve is gomlx's convolution of x [n, C, H, W] by kernel w [out, C/groups, KH, KW] with the window's
// strides, padding and dilation, in groups.
func groupedConvolve(x, w *gx.Node, win Window, groups int) *gx.Node {
	dh, dw := win.dilation()
	return gx.ConvGeneral(x, w, channelsFirst, []int{win.StrideH, win.StrideW}, padding(win), nil, []int{dh, dw}, groups, 1)
}

// groupedAdjoint is the adjoint of the grouped convolution by w [out.C, in.C/groups, KH, KW] from images of
// shape in to images of shape out, applied to v [n, out.C, out.H, out.W]: group by group, gomlx's convolution of
// v's group, dilated by the stride, with the group's kernel reversed in space, its channels swapped and dilated
// as the window, padded to give back in's height and width (adjointConv's, with the dilated kernel's reach);
// the groups' results side by side.
func groupedAdjoint(v *gx.Node, w []float32, in, out Shape, win Window, groups int) *gx.Node {
	dh, dw := win.dilation()
	cg, og := in.C/groups, out.C/groups
	reachH, reachW := dh*(win.KH-1), dw*(win.KW-1)
	pads := [][2]int{{reachH - win.PadH, 0}, {reachW - win.PadW, 0}}
	pads[0][1] = in.H + reachH - 1 - win.StrideH*(out.H-1) - pads[0][0]
	pads[1][1] = in.W + reachW - 1 - win.StrideW*(out.W-1) - pads[1][0]
	var parts []*gx.Node
	n := og * cg * win.KH * win.KW
	for g := 0; g < groups; g++ {
		wg := constant(v.Graph(), w[g*n:(g+1)*n], og, cg, win.KH, win.KW)
		rev := gx.Transpose(gx.Reverse(wg, 2, 3), 0, 1)
		vg := gx.Slice(v, gx.AxisRange(), gx.AxisRange(g*og, (g+1)*og))
		parts = append(parts, gx.ConvGeneral(vg, rev, channelsFirst, nil, pads, []int{win.StrideH, win.StrideW}, []int{dh, dw}, 1, 1))
	}
	if groups == 1 {
		return parts[0]
	}
	return gx.Concatenate(parts, 1)
}

// TestGroupedConvsAgreeWithGomlx: grouped (1, 2, depthwise) and dilated convolutions and transposed
// convolutions against gomlx, forward and their input gradients, on random shapes, strides, paddings and output
// paddings.
func TestGroupedConvsAgreeWithGomlx(t *testing.T) {
	r := rng.New(2032)
	bias := func(g *gx.Graph, b []float32) *gx.Node { return constant(g, b, 1, len(b), 1, 1) }
	for trial := 0; trial < 16; trial++ {
		in := randGroupShape(r)
		conv, convT := randGroupConv(t, r, in), randGroupConvTranspose(t, r, in)
		cases := []layerCase{
			{name: fmt.Sprintf("conv2d %v → %v in %d groups, %s", in, conv.Out, conv.Groups, describeWindow(conv.Window)),
				in: in, out: conv.Out, init: normal,
				engine: func(g *Graph, x *Tensor) *Tensor { return g.Conv2D(x, conv) },
				gomlx: func(x *gx.Node) *gx.Node {
					w := constant(x.Graph(), conv.W, conv.Out.C, in.C/conv.Groups, conv.Window.KH, conv.Window.KW)
					return gx.Add(groupedConvolve(x, w, conv.Window, conv.Groups), bias(x.Graph(), conv.B))
				},
				inputGrad: func(_, c *gx.Node) *gx.Node { return groupedAdjoint(c, conv.W, in, conv.Out, conv.Window, conv.Groups) }},
			// A transposed convolution is the adjoint of the grouped convolution from its output's channels to its
			// input's, whose kernel [in.C, out.C/groups, kh, kw] is PyTorch's transposed one's as it lies; its input
			// gradient is that convolution of c.
			{name: fmt.Sprintf("conv-transpose2d %v → %v in %d groups, %s", in, convT.Out, convT.Groups, describeWindow(convT.Window)),
				in: in, out: convT.Out, init: normal,
				engine: func(g *Graph, x *Tensor) *Tensor { return g.ConvTranspose2D(x, convT) },
				gomlx: func(x *gx.Node) *gx.Node {
					return gx.Add(groupedAdjoint(x, convT.W, convT.Out, in, convT.Window, convT.Groups), bias(x.Graph(), convT.B))
				},
				inputGrad: func(_, c *gx.Node) *gx.Node {
					w := constant(c.Graph(), convT.W, in.C, convT.Out.C/convT.Groups, convT.Window.KH, convT.Window.KW)
					// (An output padding of a stride or more, below the dilation, gives that convolution more
					// positions than the input has: the extra ones read only the padding's rows.)
					return gx.Slice(groupedConvolve(c, w, convT.Window, convT.Groups), gx.AxisRange(), gx.AxisRange(), gx.AxisRange(0, in.H), gx.AxisRange(0, in.W))
				}},
		}
		for _, lc := range cases {
			lc.check(t, r, 1+r.IntN(3))
		}
	}
}

// TestGroupedConvsGomlxAutodiff: for windows gomlx's own gradient of a grouped convolution takes (no stride with
// a dilation, no padding beyond the kernel's half reach), its autodiff agrees with the engine too.
func TestGroupedConvsGomlxAutodiff(t *testing.T) {
	r := rng.New(2033)
	done := 0
	for trial := 0; done < 6 && trial < 200; trial++ {
		in := randGroupShape(r)
		conv := randGroupConv(t, r, in)
		w := conv.Window
		if (w.StrideH > 1 || w.StrideW > 1) && (w.DilH > 1 || w.DilW > 1) || w.KH%2 == 0 || w.KW%2 == 0 {
			continue
		}
		done++
		layerCase{name: fmt.Sprintf("conv2d %v → %v in %d groups, %s, gomlx's gradient", in, conv.Out, conv.Groups, describeWindow(w)),
			in: in, out: conv.Out, init: normal,
			engine: func(g *Graph, x *Tensor) *Tensor { return g.Conv2D(x, conv) },
			gomlx: func(x *gx.Node) *gx.Node {
				k := constant(x.Graph(), conv.W, conv.Out.C, in.C/conv.Groups, w.KH, w.KW)
				return gx.Add(groupedConvolve(x, k, w, conv.Groups), constant(x.Graph(), conv.B, 1, conv.Out.C, 1, 1))
			}}.check(t, r, 2)
	}
	if done < 6 {
		t.Errorf("only %d windows checked", done)
	}
}

// TestGroupedTrainingConvolutionsGomlx: training's convolution and transposed convolution (gathers, and a
// product batched over the groups) of grouped and dilated layers against the engine's, on random shapes,
// kernels, strides, paddings, dilations and output paddings (those a description takes).
func TestGroupedTrainingConvolutionsGomlx(t *testing.T) {
	r := rng.New(2034)
	checked := map[string]int{}
	for trial := 0; trial < 60; trial++ {
		in := Shape{1 + r.IntN(6), 3 + r.IntN(7), 3 + r.IntN(7)}
		groups := randGroups(r, in.C)
		win := Window{KH: 1 + r.IntN(4), KW: 1 + r.IntN(4), StrideH: 1 + r.IntN(3), StrideW: 1 + r.IntN(3), DilH: 1 + r.IntN(3), DilW: 1 + r.IntN(3)}
		win.PadH, win.PadW = r.IntN(win.KH/2+1), r.IntN(win.KW/2+1)
		transposed := trial%2 == 1
		if transposed {
			win.OutPadH, win.OutPadW = r.IntN(win.StrideH), r.IntN(win.StrideW)
		}
		outC := groups * (1 + r.IntN(2))
		layer := weights.Layer{Op: weights.OpConv, Out: outC, Kernel: [2]int{win.KH, win.KW}, Stride: [2]int{win.StrideH, win.StrideW},
			Padding: [2]int{win.PadH, win.PadW}, OutputPadding: [2]int{win.OutPadH, win.OutPadW}, Groups: groups,
			Dilation: [2]int{win.DilH, win.DilW}, Weights: "w", Bias: "b"}
		wShape := []int{outC, in.C / groups, win.KH, win.KW}
		if transposed {
			layer.Op, wShape = weights.OpConvTranspose, []int{in.C, outC / groups, win.KH, win.KW}
		}
		if _, err := layer.OutShape(weights.Image(in.C, in.H, in.W)); err != nil {
			continue // a window a description refuses for this shape
		}
		ws, bs := randSlice(r, sizeOf(wShape), 0.5), randSlice(r, outC, 0.1)
		g := NewGraph(2)
		x := g.Input(in.Size(), false)
		copy(x.Data, randSlice(r, 2*in.Size(), 1))
		var y *Tensor
		var out Shape
		if transposed {
			c, err := NewConvTransposeGroups(in, outC, win, groups, ws, bs)
			if err != nil {
				t.Fatalf("%+v on %v: the engine refuses what the description takes: %v", layer, in, err)
			}
			y, out = g.ConvTranspose2D(x, &c), c.Out
		} else {
			c, err := NewConvGroups(in, outC, win, groups, ws, bs)
			if err != nil {
				t.Fatalf("%+v on %v: the engine refuses what the description takes: %v", layer, in, err)
			}
			y, out = g.Conv2D(x, &c), c.Out
		}
		g.Forward()
		p, err := training.FileTensors(mustFile(t, []weights.Named{{Name: "w", Shape: wShape, Values: ws}, {Name: "b", Shape: []int{outC}, Values: bs}}))
		if err != nil {
			t.Fatal(err)
		}
		exec := gx.MustNewExec(oracleBackend(), func(xn *gx.Node) *gx.Node {
			yn, _, err := training.NetworkGraph(p, []weights.Layer{layer}, weights.Image(in.C, in.H, in.W), gx.Transpose(xn, 0, 1), nil, 0)
			if err != nil {
				panic(err)
			}
			return gx.Transpose(yn, 0, 1)
		})
		got := tensors.MustCopyFlatData[float32](exec.MustExec(tensors.FromFlatDataAndDimensions(x.Data, 2, in.Size()))[0])
		what := fmt.Sprintf("%s %v → %v in %d groups, %s", layer.Op, in, out, groups, describeWindow(win))
		if len(got) != len(y.Data) {
			t.Fatalf("%s: gomlx gives %d values, the engine %d", what, len(got), len(y.Data))
		}
		for j := range got {
			if math.Abs(float64(got[j]-y.Data[j])) > 1e-5*(1+math.Abs(float64(y.Data[j]))) {
				t.Fatalf("%s: value %d is %v in gomlx, %v in the engine", what, j, got[j], y.Data[j])
			}
		}
		kind := "plain"
		if groups > 1 {
			kind = "grouped"
		}
		checked[layer.Op+" "+kind]++
	}
	for _, k := range []string{"conv2d plain", "conv2d grouped", "conv-transpose2d plain", "conv-transpose2d grouped"} {
		if checked[k] < 5 {
			t.Errorf("only %d shapes of %s were checked: %v", checked[k], k, checked)
		}
	}
	t.Logf("shapes checked: %v", checked)
}
