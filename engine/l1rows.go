//go:build !js

package engine

// ---- L1 distance to a row of its own for each point (native tools only) ----

// l1RowsOp is l1Op with a target row per point: what a GLAM-CLUE translation's loss measures, each member's
// decoded image against that member's own image. The search never needs it, so the workers leave it out.
type l1RowsOp struct {
	x, out  *Tensor
	targets []float32
}

// L1Rows is Σ_j |x_j − targets[i]_j| for each point i's row of x (per point: x.PerPoint must be 1), as a
// column [batch, 1]; targets holds a row of x.Cols values for each of the graph's capacity points.
func (g *Graph) L1Rows(x *Tensor, targets []float32) *Tensor {
	if x.PerPoint != 1 || len(targets) != x.Cols*g.capacity {
		panic("engine: L1Rows needs a per-point input and a target row for each point")
	}
	out := g.newTensor(1, 1, x.Grad != nil)
	o := &l1RowsOp{x, out, targets}
	g.use(x, o)
	g.add(o)
	return out
}

func (o *l1RowsOp) forward() {
	c := o.x.Cols
	for r := 0; r < o.x.Rows(); r++ {
		var d float64
		t := o.targets[r*c : (r+1)*c]
		for j, v := range o.x.Row(r) {
			e := v - t[j]
			if e < 0 {
				e = -e
			}
			d += float64(e)
		}
		o.out.Data[r] = float32(d)
	}
}

// backward: ∂/∂x_j = sign(x_j − target_j), with sign(0) = 0.
func (o *l1RowsOp) backward() {
	if o.x.Grad == nil {
		return
	}
	c := o.x.Cols
	for r := 0; r < o.x.Rows(); r++ {
		gr := o.out.Grad[r]
		x, dx, t := o.x.Row(r), o.x.Grad[r*c:(r+1)*c], o.targets[r*c:(r+1)*c]
		for j, v := range x {
			switch {
			case v > t[j]:
				dx[j] += gr
			case v < t[j]:
				dx[j] -= gr
			}
		}
	}
}
