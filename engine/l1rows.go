//go:build !js

package engine

// L1Rows is Σ_j |x_j − targets[i]_j| for each point i's row of x (per point: x.PerPoint must be 1), as a
// column [batch, 1]; targets holds a row of x.Cols values for each of the graph's capacity points: what a
// GLAM-CLUE translation's loss measures, each member's decoded image against that member's own. (The search
// never needs it, so the workers leave this constructor out; the op is L1's.)
func (g *Graph) L1Rows(x *Tensor, targets []float32) *Tensor {
	if x.PerPoint != 1 || len(targets) != x.Cols*g.capacity {
		panic("engine: L1Rows needs a per-point input and a target row for each point")
	}
	out := g.newTensor(1, 1, x.Grad != nil)
	o := &l1Op{x: x, out: out, target: targets, stride: x.Cols}
	g.use(x, o)
	g.add(o)
	return out
}
