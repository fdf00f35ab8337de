package engine

import (
	"math/bits"
	"sync"
)

// oneShots keeps the forward-only graphs of one of the one-off calls (Encode, DecodeImages, Classify) to run them
// again: building a graph (its tensors, and the compacted products' buffers, several MB for the BNN's twenty
// networks) cost more than running it on a few rows; an amortised answer's eight rows spent 60 % of their time
// building. Graphs are kept by capacity, a power of two up to maxOneShot; a call runs one at its own batch (the
// live rows), and rows never mix, so the bits are those of a graph built for the call. Each capacity has a
// sync.Pool: calls from several goroutines each take their own graph, and the pools let the garbage collector
// have them back.
type oneShots struct {
	build func(capacity int) *oneShot
	pools [oneShotSizes]sync.Pool // capacities 1, 2, 4, …, maxOneShot
}

// maxOneShot is the largest capacity kept, the last of oneShotSizes powers of two; a larger call builds a graph
// of its own.
const (
	oneShotSizes = 7
	maxOneShot   = 1 << (oneShotSizes - 1)
)

// oneShot is one forward-only graph: its input, and what a call reads of it (out, or the BNN's prediction p).
type oneShot struct {
	g   *Graph
	in  *Tensor
	out *Tensor
	p   Prediction
}

// forward runs a graph on data (rows of cols values; nothing for none) and lets read take what it wants of it
// before the graph is kept for the next call.
func (o *oneShots) forward(data []float32, cols int, read func(*oneShot)) {
	n := len(data) / cols
	if n == 0 {
		return
	}
	var s *oneShot
	b, capacity := bits.Len(uint(n-1)), n // the smallest power of two ≥ n is 1 << b
	if n <= maxOneShot {
		s, _ = o.pools[b].Get().(*oneShot)
		capacity = 1 << b
	}
	if s == nil {
		s = o.build(capacity)
	}
	s.g.SetBatch(n)
	copy(s.in.Data, data[:n*cols])
	s.g.Forward()
	read(s)
	if n <= maxOneShot {
		o.pools[b].Put(s)
	}
}

func (v *VAE) initOneShots() {
	v.encodes = &oneShots{build: func(capacity int) *oneShot {
		g := NewGraph(capacity)
		x := g.Input(v.Image.Size(), false)
		return &oneShot{g: g, in: x, out: v.EncodeMean(g, x)}
	}}
	v.decodes = &oneShots{build: func(capacity int) *oneShot {
		g := NewGraph(capacity)
		z := g.Input(v.Latent, false)
		_, img := v.Decode(g, z)
		return &oneShot{g: g, in: z, out: img}
	}}
}

func (b *BNN) initOneShots() {
	b.classifies = &oneShots{build: func(capacity int) *oneShot {
		g := NewGraph(capacity)
		x := g.Input(b.Input.Size(), false)
		return &oneShot{g: g, in: x, p: b.Predict(g, x, nil)}
	}}
}
