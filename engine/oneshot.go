package engine

import (
	"math/bits"
	"sync"
)

// oneShots keeps the forward-only graphs of the one-off calls (Encode, DecodeImages, Classify) to run them
// again: building a graph (its tensors, and the compacted products' buffers, several MB for the BNN's twenty
// networks) cost more than running it on a few rows; an amortised answer's eight rows spent 60 % of their time
// building. Graphs are kept by capacity, a power of two up to maxOneShot; a call runs one at its own batch (the
// live rows), and rows never mix, so the bits are those of a graph built for the call. Each capacity has a
// sync.Pool: calls from several goroutines each take their own graph, and the pools let the garbage collector
// have them back.
type oneShots[G any] struct {
	build func(capacity int) *G
	pools [oneShotSizes]sync.Pool // capacities 1, 2, 4, …, maxOneShot
}

// maxOneShot is the largest capacity kept, the last of oneShotSizes powers of two; a larger call builds a graph
// of its own.
const (
	oneShotSizes = 7
	maxOneShot   = 1 << (oneShotSizes - 1)
)

// run calls f with a graph of capacity ≥ n ≥ 1, built by build or kept from before.
func (o *oneShots[G]) run(n int, f func(*G)) {
	if n > maxOneShot {
		f(o.build(n))
		return
	}
	b := bits.Len(uint(n - 1)) // the smallest power of two ≥ n is 1 << b
	g, _ := o.pools[b].Get().(*G)
	if g == nil {
		g = o.build(1 << b)
	}
	f(g)
	o.pools[b].Put(g)
}

// encodeGraph is Encode's graph: images in, the encoder means out.
type encodeGraph struct {
	g    *Graph
	x, z *Tensor
}

// decodeGraph is DecodeImages's graph: latent points in, images out.
type decodeGraph struct {
	g        *Graph
	z, image *Tensor
}

// classifyGraph is Classify's graph: images in, the BNN's prediction out.
type classifyGraph struct {
	g *Graph
	x *Tensor
	p Prediction
}

func (v *VAE) initOneShots() {
	v.encodes = &oneShots[encodeGraph]{build: func(capacity int) *encodeGraph {
		g := NewGraph(capacity)
		x := g.Input(Pixels, false)
		return &encodeGraph{g: g, x: x, z: v.EncodeMean(g, x)}
	}}
	v.decodes = &oneShots[decodeGraph]{build: func(capacity int) *decodeGraph {
		g := NewGraph(capacity)
		z := g.Input(v.Latent, false)
		_, img := v.Decode(g, z)
		return &decodeGraph{g: g, z: z, image: img}
	}}
}

func (b *BNN) initOneShots() {
	b.classifies = &oneShots[classifyGraph]{build: func(capacity int) *classifyGraph {
		g := NewGraph(capacity)
		x := g.Input(Pixels, false)
		return &classifyGraph{g: g, x: x, p: b.Predict(g, x, nil)}
	}}
}
