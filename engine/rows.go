//go:build !denseonly

package engine

import (
	"fmt"
	"math"

	"github.com/deltaclue/deltaclue/engine/fmath"
	"github.com/deltaclue/deltaclue/weights"
)

// A model of rows (weights.KindTable, issue 41) reads a flattened row: each number or integer standardised,
// each category a one-hot block. Its VAE's decoder gives, in that layout, each number's standardised mean and
// each category's logits over its levels (weights.LikelihoodMixed): not yet a row. The row head turns that raw
// output into a valid row that keeps the columns' constraints, forward and backward:
//
//   - a category: the hard one-hot of its logits' argmax (the first of equals) forward, and the softmax's
//     Jacobian backward (CLUE's straight-through scheme): ∂raw_j = s_j·(∂x_j − Σ_k s_k·∂x_k), s = softmax(raw);
//   - an integer: raw·std + mean rounded to a whole number (half away from zero), then clamped into its bounds,
//     standardised again as weights.Columns.Standardise does; backward straight through the rounding;
//   - a number: raw clamped into its bounds (in standardised units, which are an increasing affine map of the
//     natural ones, with bounds rounded inwards so that the natural value is inside too);
//   - a column the user locks or whose change rule is "never": x0's values, bit for bit; no gradient.
//
// A number's or integer's bounds are its range, narrowed to [x0's value, max] if it may only go up and to
// [min, x0's value] if it may only go down. The clamp's gradient is the identity inside the bounds (closed)
// and, outside them, passes ∂x only when a descent step would move raw back towards the bounds (∂x < 0 below,
// ∂x > 0 above), and is 0 otherwise: an "inward straight-through". The true gradient (0 outside) would leave a
// column decoded past a bound with no way back (an "up" column starts at its bound x0 half the time), and a
// plain straight-through would let raw drift outwards without limit while the row stays the same.
//
// A NaN raw value gives NaN in its column's output (a category's whole block), so that the NaN policy holds: the
// point's cost is NaN and the search marks its restart failed.

// Kinds of a row head's column.
const (
	rowFixed    = iota // locked or never: x0's values
	rowNumber          // clamped
	rowInteger         // rounded, clamped
	rowCategory        // hard one-hot of the argmax
)

type rowColumn struct {
	kind       int
	start, end int     // its slice of the flattened row
	lo, hi     float32 // a number's bounds, standardised (inward-rounded)
	loN, hiN   float64 // an integer's bounds, natural (whole)
	mean, std  float64
	level0     int // a category: x0's level
}

// RowHead is what the row head of one search needs: the table's columns, x0's flattened row and which columns
// are held at x0's values. Build it with NewRowHead; graphs read it and never write it.
type RowHead struct {
	Columns weights.Columns
	X0      []float32 // x0's flattened row: Columns.Standardise of its row in natural units
	Locked  []bool    // per column: held at x0's value (the user's locks and every "never" column)
	cols    []rowColumn
}

// NewRowHead prepares the row head for the table's columns around x0, a row in natural units (one value per
// column, a category its level's index, as weights.Columns reads them), with the columns of locked held at
// x0's values (locked may be nil; "never" columns are held whatever it says). X0 is the row flattened by
// Columns.Standardise.
func NewRowHead(columns weights.Columns, row []float64, locked []bool) (*RowHead, error) {
	if err := columns.Check(); err != nil {
		return nil, err
	}
	if locked != nil && len(locked) != len(columns) {
		return nil, fmt.Errorf("%d locks for %d columns", len(locked), len(columns))
	}
	if err := columns.CheckRow(row); err != nil {
		return nil, err
	}
	x0, err := columns.Standardise(row)
	if err != nil {
		return nil, err
	}
	natural := row
	h := &RowHead{Columns: columns, X0: x0, Locked: make([]bool, len(columns))}
	off := columns.Offsets()
	for i, col := range columns {
		c := rowColumn{start: off[i], end: off[i+1], mean: col.Mean, std: col.Std}
		h.Locked[i] = col.Change == weights.ChangeNever || (locked != nil && locked[i])
		lo, hi := col.Range[0], col.Range[1]
		switch col.Change {
		case weights.ChangeUp:
			lo = natural[i]
		case weights.ChangeDown:
			hi = natural[i]
		}
		switch {
		case h.Locked[i]:
			c.kind = rowFixed
		case col.Kind == weights.ColumnCategory:
			c.kind, c.level0 = rowCategory, int(natural[i])
		case col.Kind == weights.ColumnInteger:
			c.kind, c.loN, c.hiN = rowInteger, lo, hi
		default:
			c.kind = rowNumber
			c.lo, c.hi = inwardBounds(col, lo, hi)
			// x0's own bits are inside whatever the rounding: the row may stay exactly where it is. (A value at its
			// range's end may flatten to a float32 whose natural value is just outside; no other value is.)
			c.lo, c.hi = min(c.lo, x0[c.start]), max(c.hi, x0[c.start])
			if col.Change == weights.ChangeUp {
				c.lo = x0[c.start]
			}
			if col.Change == weights.ChangeDown {
				c.hi = x0[c.start]
			}
		}
		h.cols = append(h.cols, c)
	}
	return h, nil
}

// natural is a standardised value in natural units, as weights.Columns.Unstandardise computes it (the product
// rounded before the sum: no fused multiply-add on any platform).
func natural(v float32, mean, std float64) float64 { return float64(float64(v)*std) + mean }

// inwardBounds are a number's bounds [lo, hi] (natural units) standardised to float32, each moved inwards until
// its natural value lies inside [lo, hi].
func inwardBounds(col weights.Column, lo, hi float64) (float32, float32) {
	l := float32((lo - col.Mean) / col.Std)
	for natural(l, col.Mean, col.Std) < lo {
		l = math.Nextafter32(l, float32(math.Inf(1)))
	}
	h := float32((hi - col.Mean) / col.Std)
	for natural(h, col.Mean, col.Std) > hi {
		h = math.Nextafter32(h, float32(math.Inf(-1)))
	}
	return l, h
}

// ---- the row head ----

type rowOp struct {
	raw, out *Tensor
	h        *RowHead
	soft     []float32 // each category's softmax, for the backward pass, in the row's layout
	arg, ex  []float64 // scratch: a block's shifted logits and their exponentials
}

// Row adds the row head to g: raw [batch, Columns.Width()] (a mixed VAE's decoder output) to valid rows
// [batch, Columns.Width()] that keep h's constraints. raw must be per point.
func (g *Graph) Row(raw *Tensor, h *RowHead) *Tensor {
	if raw.PerPoint != 1 || raw.Cols != len(h.X0) {
		panic("engine: Row needs a per-point input of the table's flattened width")
	}
	out := g.newTensor(raw.Cols, 1, raw.Grad != nil)
	widest := 1
	for _, c := range h.cols {
		widest = max(widest, c.end-c.start)
	}
	o := &rowOp{raw: raw, out: out, h: h, soft: make([]float32, len(out.Data)), arg: make([]float64, widest), ex: make([]float64, widest)}
	g.use(raw, o)
	g.add(o)
	return out
}

func (o *rowOp) forward() {
	w := o.raw.Cols
	x0 := o.h.X0
	for r := 0; r < o.raw.Rows(); r++ {
		raw, out, soft := o.raw.Data[r*w:(r+1)*w], o.out.Data[r*w:(r+1)*w], o.soft[r*w:(r+1)*w]
		for i := range o.h.cols {
			c := &o.h.cols[i]
			switch c.kind {
			case rowFixed:
				copy(out[c.start:c.end], x0[c.start:c.end])
			case rowNumber:
				v := raw[c.start]
				if v < c.lo {
					v = c.lo
				} else if v > c.hi {
					v = c.hi
				}
				out[c.start] = v // NaN passes
			case rowInteger:
				n := math.Round(natural(raw[c.start], c.mean, c.std))
				if n < c.loN {
					n = c.loN
				} else if n > c.hiN {
					n = c.hiN
				}
				out[c.start] = float32((n - c.mean) / c.std)
			case rowCategory:
				o.category(raw[c.start:c.end], out[c.start:c.end], soft[c.start:c.end])
			}
		}
	}
}

// category writes a block's hard one-hot and keeps its softmax (in float64 with fmath.Exp, rounded to float32).
// A NaN logit makes the whole block NaN.
func (o *rowOp) category(raw, out, soft []float32) {
	best := 0
	bad := false
	for j, v := range raw {
		bad = bad || v != v || math.IsInf(float64(v), 0)
		if v > raw[best] {
			best = j
		}
	}
	if bad {
		for j := range out {
			out[j], soft[j] = float32(math.NaN()), float32(math.NaN())
		}
		return
	}
	m := float64(raw[best])
	arg, ex := o.arg[:len(raw)], o.ex[:len(raw)]
	for j, v := range raw {
		arg[j] = float64(v) - m
	}
	fmath.ExpTo(ex, arg)
	var sum float64
	for _, e := range ex {
		sum += e
	}
	for j := range out {
		out[j] = 0
		soft[j] = float32(ex[j] / sum)
	}
	out[best] = 1
}

func (o *rowOp) backward() {
	if o.raw.Grad == nil {
		return
	}
	w := o.raw.Cols
	for r := 0; r < o.raw.Rows(); r++ {
		raw, dout, draw := o.raw.Data[r*w:(r+1)*w], o.out.Grad[r*w:(r+1)*w], o.raw.Grad[r*w:(r+1)*w]
		soft := o.soft[r*w : (r+1)*w]
		for i := range o.h.cols {
			c := &o.h.cols[i]
			switch c.kind {
			case rowNumber:
				draw[c.start] += inward(raw[c.start] < c.lo, raw[c.start] > c.hi, dout[c.start])
			case rowInteger:
				n := math.Round(natural(raw[c.start], c.mean, c.std))
				draw[c.start] += inward(n < c.loN, n > c.hiN, dout[c.start])
			case rowCategory:
				s, d := soft[c.start:c.end], dout[c.start:c.end]
				var dot float64
				for j, v := range s {
					dot += float64(float64(v) * float64(d[j])) // rounded before the sum: never fused
				}
				dr := draw[c.start:c.end]
				for j, v := range s {
					dr[j] += float32(float64(v) * (float64(d[j]) - dot))
				}
			}
		}
	}
}

// inward is the clamp's gradient: d inside the bounds; outside, d when a descent step (raw −= d) moves raw back
// towards them, else 0.
func inward(below, above bool, d float32) float32 {
	switch {
	case below && d >= 0, above && d <= 0:
		return 0
	}
	return d
}

// ---- the distance of rows ----

type rowDistanceOp struct {
	x, out *Tensor
	h      *RowHead
}

// RowDistance is each row's distance to x0 [batch, 1]: the L1 distance over the standardised numbers and
// integers plus the number of categories whose level differs from x0's. On the row head's output (hard one-hots)
// a changed category's block differs from x0's in two places by 1, so the count is half the block's L1 distance,
// exactly. Its gradient is that of half the L1 distance between the softmax s behind the one-hot and x0's
// one-hot, ½·sign(s_j − x0_j): −½ at x0's level and +½ at the others, for any s inside the simplex (whether the
// level has changed or not). Through the softmax's Jacobian that is the gradient of 1 − s_{x0's level}, the
// probability of a change: a category is pulled towards x0's level before the argmax leaves it, not only once it
// has (sign(0) = 0 would give the hard block no gradient until it changed). A number's is sign(x − x0), 0 at
// x0. Held columns (locked, never) contribute 0 and get no gradient.
func (g *Graph) RowDistance(x *Tensor, h *RowHead) *Tensor {
	if x.PerPoint != 1 || x.Cols != len(h.X0) {
		panic("engine: RowDistance needs a per-point input of the table's flattened width")
	}
	out := g.newTensor(1, 1, x.Grad != nil)
	o := &rowDistanceOp{x: x, out: out, h: h}
	g.use(x, o)
	g.add(o)
	return out
}

func (o *rowDistanceOp) forward() {
	w := o.x.Cols
	for r := 0; r < o.x.Rows(); r++ {
		o.out.Data[r] = o.h.Distance(o.x.Data[r*w : (r+1)*w])
	}
}

// Distance is RowDistance of one flattened row x: the L1 distance of its numbers and integers to x0's (in
// standard units) plus the number of categories it changes, summed over the columns in order.
func (h *RowHead) Distance(x []float32) float32 {
	var d float64
	for i := range h.cols {
		d += h.part(x, i)
	}
	return float32(d)
}

// Part is column i's part of Distance(x): |x − x0| in standard units for a number or an integer, 1 for a
// changed category, 0 for one that keeps x0's level.
func (h *RowHead) Part(x []float32, i int) float64 { return h.part(x, i) }

func (h *RowHead) part(x []float32, i int) float64 {
	c, x0 := &h.cols[i], h.X0
	switch c.kind {
	case rowNumber, rowInteger:
		return math.Abs(float64(x[c.start]) - float64(x0[c.start]))
	case rowCategory:
		var l1 float64
		for j := c.start; j < c.end; j++ {
			l1 += math.Abs(float64(x[j]) - float64(x0[j]))
		}
		return l1 / 2
	}
	return 0
}

func (o *rowDistanceOp) backward() {
	if o.x.Grad == nil {
		return
	}
	w := o.x.Cols
	x0 := o.h.X0
	for r := 0; r < o.x.Rows(); r++ {
		gr := o.out.Grad[r]
		x, dx := o.x.Data[r*w:(r+1)*w], o.x.Grad[r*w:(r+1)*w]
		half := gr / 2
		for i := range o.h.cols {
			c := &o.h.cols[i]
			switch c.kind {
			case rowNumber, rowInteger:
				switch v, t := x[c.start], x0[c.start]; {
				case v > t:
					dx[c.start] += gr
				case v < t:
					dx[c.start] -= gr
				}
			case rowCategory:
				for j := c.start; j < c.end; j++ {
					if j-c.start == c.level0 {
						dx[j] -= half
					} else {
						dx[j] += half
					}
				}
			}
		}
	}
}

// ---- the objective on rows ----

// DecodeRow adds the decoder and the row head to g: the raw decoder output and the valid rows of latent points z.
func (v *VAE) DecodeRow(g *Graph, z *Tensor, h *RowHead) (raw, row *Tensor) {
	raw = v.decoder.apply(g, z)
	return raw, g.Row(raw, h)
}

// NewRowObjective is NewObjective for a model of rows: the decoder's output goes through the row head (Logits
// is the raw output, Image the valid row the classifier reads) and d_x is RowDistance. With DistanceMean, d_x is
// divided by the number of columns.
func NewRowObjective(v *VAE, b *BNN, capacity int, w LossWeights, h *RowHead, y0 []float32) (*Objective, error) {
	if v.Image.Size() != len(h.X0) || v.Image != b.Input {
		return nil, fmt.Errorf("the table's columns flatten to %d values; the VAE decodes %v and the classifier reads %v", len(h.X0), v.Image, b.Input)
	}
	if v.bernoulli {
		return nil, fmt.Errorf("a model of rows has a mixed likelihood, not a Bernoulli one")
	}
	if err := checkY0(b, w, y0); err != nil {
		return nil, err
	}
	g := NewGraph(capacity)
	o := &Objective{Graph: g}
	o.Z = g.Input(v.Latent, true)
	o.Logits, o.Image = v.DecodeRow(g, o.Z, h)
	if err := o.rowTerms(b, w, h, y0); err != nil {
		return nil, err
	}
	return o, nil
}

// rowTerms adds the objective's terms on the rows in o.Image: the classifier's prediction (against y0 where λy
// weighs it), the row distance and their weighted sum, the cost.
func (o *Objective) rowTerms(b *BNN, w LossWeights, h *RowHead, y0 []float32) error {
	var target []float32
	if w.LambdaY != 0 {
		target = y0
	}
	o.Pred = b.Predict(o.Graph, o.Image, target)
	o.Distance = o.Graph.RowDistance(o.Image, h)
	return o.sum(w, len(h.Columns))
}

// NewRowScorer builds the objective's terms after the row head for batches of up to capacity rows given
// directly: set the flattened rows in Image (its first rows, after Graph.SetBatch), call Forward, and read Pred,
// Distance and Cost. They are the ops NewRowObjective runs on the rows the head gives it, so a row scores the
// same bits here as there. Z and Logits are nil.
func NewRowScorer(b *BNN, capacity int, w LossWeights, h *RowHead, y0 []float32) (*Objective, error) {
	if b.Input.Size() != len(h.X0) {
		return nil, fmt.Errorf("the table's columns flatten to %d values; the classifier reads %v", len(h.X0), b.Input)
	}
	if err := checkY0(b, w, y0); err != nil {
		return nil, err
	}
	o := &Objective{Graph: NewGraph(capacity)}
	o.Image = o.Graph.Input(len(h.X0), false)
	if err := o.rowTerms(b, w, h, y0); err != nil {
		return nil, err
	}
	return o, nil
}

// CheckRow says, in one sentence naming the column, how the flattened row x breaks the head's constraints, or
// nil: every held column (locked, never) x0's values bit for bit; each category block a one-hot (+0s and one 1);
// each integer a whole number in natural units, flattened as weights.Columns.Standardise writes it; each number
// or integer inside its range (a number may also keep x0's own flattened value, which rounding may put a hair
// outside when x0 is at an end); an "up" column never below x0's value and a "down" one never above. It is
// written apart from the row head's forward pass, in natural units, so that tests hold one against the other.
func (h *RowHead) CheckRow(x []float32) error {
	if len(x) != len(h.X0) {
		return fmt.Errorf("the row has %d values, the table's columns flatten to %d", len(x), len(h.X0))
	}
	off := h.Columns.Offsets()
	row0, _ := h.Columns.Unstandardise(h.X0)
	for i, col := range h.Columns {
		xs, x0 := x[off[i]:off[i+1]], h.X0[off[i]:off[i+1]]
		same := true
		for j, v := range xs {
			same = same && math.Float32bits(v) == math.Float32bits(x0[j])
		}
		fail := func(format string, a ...any) error {
			return fmt.Errorf("column %q: "+format, append([]any{col.Name}, a...)...)
		}
		switch {
		case h.Locked[i] && !same:
			return fail("held at x0's %v, it is %v", x0, xs)
		case same:
			continue
		case col.Kind == weights.ColumnCategory:
			ones := 0
			for _, v := range xs {
				switch math.Float32bits(v) {
				case math.Float32bits(1):
					ones++
				case 0:
				default:
					return fail("%v is not a one-hot block", xs)
				}
			}
			if ones != 1 {
				return fail("%v is not a one-hot block", xs)
			}
			continue
		}
		v := natural(xs[0], col.Mean, col.Std)
		if col.Kind == weights.ColumnInteger {
			n := math.Round(v)
			if math.Float32bits(float32((n-col.Mean)/col.Std)) != math.Float32bits(xs[0]) {
				return fail("%v (%v) is not a whole number as the table flattens it", xs[0], v)
			}
			v = n
		}
		switch {
		case !(v >= col.Range[0] && v <= col.Range[1]):
			return fail("%v is outside its range %s", v, col.RangeText())
		case col.Change == weights.ChangeUp && !(xs[0] >= x0[0] && v >= row0[i]):
			return fail("may only go up, and went from %v to %v", row0[i], v)
		case col.Change == weights.ChangeDown && !(xs[0] <= x0[0] && v <= row0[i]):
			return fail("may only go down, and went from %v to %v", row0[i], v)
		}
	}
	return nil
}
