package engine

// ---- the members of an ensemble, stacked as samples ----

type stackOp struct {
	xs  []*Tensor
	out *Tensor
}

// Stack makes per-point tensors of one width (an ensemble's members' logits) one per-sample tensor, member k as
// sample k, for Predictive to average as it averages MC-dropout samples.
func (g *Graph) Stack(xs ...*Tensor) *Tensor {
	grad := false
	for _, x := range xs {
		if x.PerPoint != 1 || x.Cols != xs[0].Cols {
			panic("engine: Stack takes per-point tensors of one width")
		}
		grad = grad || x.Grad != nil
	}
	out := g.newTensor(xs[0].Cols, len(xs), grad)
	o := &stackOp{xs: xs, out: out}
	out.producer = o
	for _, x := range xs {
		g.use(x, o)
	}
	g.add(o)
	return out
}

func (o *stackOp) forward() {
	for k, x := range o.xs {
		copy(block(o.out, k, false), x.Live())
	}
}

func (o *stackOp) backward() {
	for k, x := range o.xs {
		if x.Grad != nil {
			addInto(x.Grad[:x.Rows()*x.Cols], block(o.out, k, true))
		}
	}
}
