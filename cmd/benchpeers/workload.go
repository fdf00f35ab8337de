//go:build !js

package main

// The workload every implementation runs, written for the peers as one file (workload.bin): the decoder's and
// the classifier's layers from the models' description with their tensors decoded to float32, the classifier's
// fixed MC-dropout masks (engine.DropoutMasks, as engine.Load draws them), x0, z0 = μφ(x0) from the engine,
// the search's settings, and the start point of every restart (clue.Starts), so that every implementation
// searches from the same points.
//
// A network is its layers in order, each with what it reads when the network is a graph (by index; −1 is the
// network's input), its settings and its tensors; a chain's layers read each the one before, and say nothing.
//
// The file is "DCPEERS1", the length of a JSON header (u32, little-endian), the header, zeros up to a multiple
// of 4 bytes, then every tensor as little-endian float32, one after another. The header names each tensor by
// its offset (in float32 values from the start of that data) and its shape.

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/deltaclue/deltaclue/engine"
	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/weights"
)

// workloadMagic starts a workload file.
const workloadMagic = "DCPEERS1"

// Ref names a tensor of the workload's data.
type Ref struct {
	Offset int   `json:"offset"` // in float32 values from the start of the data
	Shape  []int `json:"shape"`
}

// PeerLayer is one layer as the peers read it: a description's layer (weights.Layer) with its tensors.
type PeerLayer struct {
	Op string `json:"op"`
	// In is the shape of the layer's (first) input: [channels, height, width], or [n] for a vector.
	In []int `json:"in"`
	// Inputs are the layers it reads, by index in the network (−1: the network's input), in order; absent, it
	// reads the layer before it (the first, the network's input), as every layer of a chain does. InShapes are
	// their shapes, given for a layer that reads more than one.
	Inputs        []int    `json:"inputs,omitempty"`
	InShapes      [][]int  `json:"in_shapes,omitempty"`
	Out           int      `json:"out,omitempty"`
	W             *Ref     `json:"w,omitempty"` // dense [in, out]; conv2d [out, in/groups, kh, kw]; conv-transpose2d [in, out/groups, kh, kw]; batch-norm the scale [C]
	B             *Ref     `json:"b,omitempty"` // the bias [out]; batch-norm the shift [C]
	Kernel        [2]int   `json:"kernel,omitzero"`
	Stride        [2]int   `json:"stride,omitzero"`
	Padding       [2]int   `json:"padding,omitzero"`
	OutputPadding [2]int   `json:"output_padding,omitzero"`
	Groups        int      `json:"groups,omitempty"`  // conv2d, conv-transpose2d: absent is 1
	Dilation      [2]int   `json:"dilation,omitzero"` // conv2d, conv-transpose2d: absent is [1, 1]
	Scale         [2]int   `json:"scale,omitzero"`    // upsample (nearest)
	Shape         []int    `json:"shape,omitempty"`   // reshape: [channels, height, width]
	Slope         float64  `json:"slope,omitempty"`   // leaky-relu
	Min           *float64 `json:"min,omitempty"`     // clip: either absent for none
	Max           *float64 `json:"max,omitempty"`
	Alpha         float64  `json:"alpha,omitempty"`       // elu, hard-sigmoid
	Beta          float64  `json:"beta,omitempty"`        // hard-sigmoid
	Approximate   string   `json:"approximate,omitempty"` // gelu: "" erf, "tanh"
	// Mask is a dropout layer's fixed masks [K, units or channels], each value 0 or 1/(1−rate); PerChannel says
	// they scale an image's channels (else a vector's units).
	Mask       *Ref `json:"mask,omitempty"`
	PerChannel bool `json:"per_channel,omitempty"`
}

// PeerNetwork is a network's layers.
type PeerNetwork struct {
	Layers []PeerLayer `json:"layers"`
}

// SearchSpec is the search every implementation runs.
type SearchSpec struct {
	N            int     `json:"n"`     // restarts
	Steps        int     `json:"steps"` // Adam updates per restart, exactly (no early stopping)
	LearningRate float64 `json:"learning_rate"`
	Beta1        float64 `json:"beta1"`
	Beta2        float64 `json:"beta2"`
	Eps          float64 `json:"eps"`
	Delta        float64 `json:"delta"`    // the L2 ball's radius around z0
	WTotal       float64 `json:"w_total"`  // weight of H_total
	LambdaX      float64 `json:"lambda_x"` // weight of the summed L1 distance of the decoded image to x0
	Seed         uint64  `json:"seed"`
	Scheme       string  `json:"scheme"`
}

// Header is the workload file's JSON header.
type Header struct {
	// Format is 1 when every network is a chain of the layers of the description's format 1 (the file reads as it
	// always did), 2 when one is a graph or has a layer or setting of format 2.
	Format      int    `json:"format"`
	Models      string `json:"models"` // the description's name
	Fingerprint uint32 `json:"fingerprint"`
	Item        string `json:"item"` // what x0 is
	// Image is the decoded image's and the classifier's input shape [channels, height, width].
	Image      []int       `json:"image"`
	Latent     int         `json:"latent"`
	Classes    int         `json:"classes"`
	Bernoulli  bool        `json:"bernoulli"` // the image is the sigmoid of the decoder's output (else the output itself)
	Decoder    PeerNetwork `json:"decoder"`
	Classifier struct {
		Uncertainty string        `json:"uncertainty"` // mc-dropout or ensemble
		Samples     int           `json:"samples"`     // K
		Networks    []PeerNetwork `json:"networks"`
	} `json:"classifier"`
	Search SearchSpec `json:"search"`
	X0     Ref        `json:"x0"`
	Z0     Ref        `json:"z0"`
	Starts Ref        `json:"starts"` // [n, latent]
	// Checks is how many restarts (the first ones) the peers report the first step of: cost and gradient.
	Checks int `json:"checks"`
}

// Workload is the search as every implementation runs it, with what the engine computes for it.
type Workload struct {
	Header Header
	data   []float32
	// For the harness: the engine's models and problem, the parameters, and the starts as float64.
	Models *clue.Models
	Prob   *clue.Problem
	Params clue.Params
	Starts [][]float64
}

// add appends a tensor to the data and returns its reference.
func (w *Workload) add(v []float32, shape ...int) *Ref {
	r := &Ref{Offset: len(w.data), Shape: slices.Clone(shape)}
	w.data = append(w.data, v...)
	return r
}

// shapeOf is a description shape as the peers read it.
func shapeOf(s weights.Shape) []int {
	if s.Flat {
		return []int{s.C}
	}
	return []int{s.C, s.H, s.W}
}

// tensorShape is the stored shape of a file's tensor.
func tensorShape(f *weights.File, name string) ([]int, error) {
	for _, t := range f.Manifest.Tensors {
		if t.Name == name {
			return t.Shape, nil
		}
	}
	return nil, fmt.Errorf("%s has no tensor %q", f.Name, name)
}

// peerOps are the layers the peers build (peer.py all of them; tfjs/peer.js those of tfjsOps).
var peerOps = []string{weights.OpDense, weights.OpConv, weights.OpConvTranspose, weights.OpMaxPool, weights.OpAvgPool,
	weights.OpUpsample, weights.OpFlatten, weights.OpReshape, weights.OpReLU, weights.OpLeakyReLU, weights.OpSigmoid,
	weights.OpTanh, weights.OpDropout, weights.OpAdd, weights.OpMul, weights.OpConcat, weights.OpSiLU, weights.OpGELU,
	weights.OpClip, weights.OpHardSigmoid, weights.OpHardSwish, weights.OpELU, weights.OpSoftplus, weights.OpSoftmax,
	weights.OpLogSoftmax, weights.OpGlobalAvgPool, weights.OpGlobalMaxPool, weights.OpIdentity, weights.OpBatchNorm}

// network converts a description's network, from a value of shape in, with the masks of its dropout layers
// (masks[k][l]: sample k, dropout layer l, in layer order; nil for none). A graph's layers say what they read
// (PeerLayer.Inputs); a chain's are written as they always were.
func (w *Workload) network(where string, n weights.Network, files map[string]*weights.File, in weights.Shape, masks [][][]float32) (PeerNetwork, error) {
	f := files[n.File]
	var out PeerNetwork
	g, err := n.Graph(where, in, files)
	if err != nil {
		return out, err
	}
	chain := g.IsChain()
	dropouts := 0
	for i, node := range g.Nodes {
		l, s := node.Layer, node.In[0]
		fail := func(err error) (PeerNetwork, error) {
			return out, fmt.Errorf("%s, layer %d (%s): %w", where, i, l.Op, err)
		}
		p := PeerLayer{Op: l.Op, In: shapeOf(s)}
		if !chain {
			p.Inputs = slices.Clone(node.From)
			if len(node.In) > 1 {
				for _, t := range node.In {
					p.InShapes = append(p.InShapes, shapeOf(t))
				}
			}
		}
		tensor := func(name string, isWeights bool) (*Ref, error) {
			shape, err := tensorShape(f, name)
			if err != nil {
				return nil, err
			}
			v, err := f.Tensor(name, shape...)
			if err != nil {
				return nil, err
			}
			if isWeights && l.Op == weights.OpDense && len(shape) != 2 { // [in, out] whatever image shape it was stored for
				shape = []int{s.Size(), l.Out}
			}
			return w.add(v, shape...), nil
		}
		switch l.Op {
		case weights.OpDense, weights.OpConv, weights.OpConvTranspose, weights.OpBatchNorm:
			p.Out, p.Kernel, p.Stride, p.Padding, p.OutputPadding = l.Out, l.Kernel, l.Stride, l.Padding, l.OutputPadding
			p.Groups, p.Dilation = l.Groups, l.Dilation
			if p.W, err = tensor(l.Weights, true); err == nil {
				p.B, err = tensor(l.Bias, false)
			}
			if err != nil {
				return fail(err)
			}
		case weights.OpMaxPool, weights.OpAvgPool:
			p.Kernel, p.Stride, p.Padding = l.Kernel, l.Stride, l.Padding
		case weights.OpUpsample:
			p.Scale = l.Scale
		case weights.OpReshape:
			p.Shape = slices.Clone(l.Shape)
		case weights.OpLeakyReLU:
			p.Slope = l.Slope
		case weights.OpClip:
			p.Min, p.Max = l.Min, l.Max
		case weights.OpELU, weights.OpHardSigmoid:
			p.Alpha, p.Beta = l.Alpha, l.Beta
		case weights.OpGELU:
			p.Approximate = l.Approximate
		case weights.OpDropout:
			if masks == nil {
				return fail(errors.New("a dropout layer outside an MC-dropout classifier"))
			}
			width := s.C
			var m []float32
			for k := range masks {
				if len(masks[k][dropouts]) != width {
					return fail(fmt.Errorf("masks of %d values for %d units or channels", len(masks[k][dropouts]), width))
				}
				m = append(m, masks[k][dropouts]...)
			}
			p.Mask, p.PerChannel = w.add(m, len(masks), width), !s.Flat
			dropouts++
		default:
			if !slices.Contains(peerOps, l.Op) {
				return fail(fmt.Errorf("the peers do not implement %q (they run %s)", l.Op, strings.Join(peerOps, ", ")))
			}
		}
		out.Layers = append(out.Layers, p)
	}
	return out, nil
}

// newWorkload builds the workload for the models' bundle, the image x0 (what item says it is) and the search
// parameters p (which must stop no restart early), reporting the first step of the first checks restarts.
func newWorkload(b *weights.Bundle, models *clue.Models, x0 []float32, item string, p clue.Params, checks int) (*Workload, error) {
	if p.Scheme != clue.S1 || p.Rho != clue.L2 || p.Constraint != clue.Project || p.LambdaY != 0 || p.LambdaD != 0 ||
		p.WAleatoric != 0 || p.WEpistemic != 0 || p.DistanceMean {
		return nil, fmt.Errorf("the peers run the default search's loss and constraint only (S1, L2 ball, H_total + λx·L1)")
	}
	d := b.Description
	prob, err := clue.NewProblem(models, x0)
	if err != nil {
		return nil, err
	}
	starts, err := clue.Starts(prob, p)
	if err != nil {
		return nil, err
	}
	// The search projects each start into the ball (in float64) before its first step: only rounding can move
	// one, but the peers get exactly the point the engine's search evaluates first.
	z0 := make([]float64, len(prob.Z0))
	for i, v := range prob.Z0 {
		z0[i] = float64(v)
	}
	for _, z := range starts {
		project(z, z0, p.Delta)
	}
	w := &Workload{Models: models, Prob: prob, Params: p, Starts: starts}
	h := &w.Header
	in := d.InputShape()
	h.Format, h.Models, h.Fingerprint, h.Item = 1, d.Name, b.Fingerprint(), item
	for _, n := range append([]weights.Network{d.VAE.Decoder}, d.Classifier.Networks...) {
		if n.UsesGraphs() {
			h.Format = 2 // a graph, or a layer or setting that came with graphs
		}
	}
	h.Image, h.Latent, h.Classes = shapeOf(in), d.VAE.Latent, len(d.Classes)
	h.Bernoulli = d.VAE.Likelihood == weights.LikelihoodBernoulli
	if h.Decoder, err = w.network("the VAE's decoder", d.VAE.Decoder, b.Files, weights.Vector(d.VAE.Latent), nil); err != nil {
		return nil, err
	}
	c := d.Classifier
	h.Classifier.Uncertainty, h.Classifier.Samples = c.Uncertainty, c.Samples
	for i, n := range c.Networks {
		pn, err := w.network(c.NetworkName(i), n, b.Files, in, engine.DropoutMasks(c, n, in))
		if err != nil {
			return nil, err
		}
		h.Classifier.Networks = append(h.Classifier.Networks, pn)
	}
	h.Search = SearchSpec{N: p.Restarts(), Steps: p.MaxSteps, LearningRate: p.LearningRate, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8,
		Delta: p.Delta, WTotal: p.WTotal, LambdaX: p.LambdaX, Seed: p.Seed, Scheme: p.Scheme.String()}
	h.X0 = *w.add(prob.X0, h.Image...)
	h.Z0 = *w.add(prob.Z0, h.Latent)
	flat := make([]float32, 0, len(starts)*h.Latent)
	for _, z := range starts {
		for _, v := range z {
			flat = append(flat, float32(v))
		}
	}
	h.Starts = *w.add(flat, len(starts), h.Latent)
	h.Checks = min(checks, len(starts))
	return w, nil
}

// project puts z back onto the ball of radius delta around z0 when it has left it, as clue's search does.
func project(z, z0 []float64, delta float64) {
	var s float64
	for i := range z {
		s += (z[i] - z0[i]) * (z[i] - z0[i])
	}
	if rho := math.Sqrt(s); rho > delta {
		for i := range z {
			z[i] = z0[i] + delta*(z[i]-z0[i])/rho
		}
	}
}

// StartsF32 are the starts as the engine's objective first sees them, [n·latent].
func (w *Workload) StartsF32() []float32 {
	r := w.Header.Starts
	return w.data[r.Offset : r.Offset+r.Shape[0]*r.Shape[1]]
}

// Bytes encodes the workload file.
func (w *Workload) Bytes() ([]byte, error) {
	head, err := json.Marshal(w.Header)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	buf.WriteString(workloadMagic)
	binary.Write(&buf, binary.LittleEndian, uint32(len(head)))
	buf.Write(head)
	for buf.Len()%4 != 0 {
		buf.WriteByte(0)
	}
	if err := binary.Write(&buf, binary.LittleEndian, w.data); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteFile writes the workload file.
func (w *Workload) WriteFile(path string) error {
	b, err := w.Bytes()
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
