package engine

import (
	"math"
	"testing"

	"github.com/deltaclue/deltaclue/engine/rng"
)

// testHead is a regression head over a target standardised by mean 35 and std 16, with three ranges.
func testHead(logVar bool) RegressionHead {
	return RegressionHead{Mean: 35, Std: 16, LogVar: logVar, InnerEdges: []float64{20, 40}}
}

// TestRegressionGradients: ∂/∂input of each of a regression's outputs (its standard deviations, the λy term, and
// all at once), with either form of σ, one target or one per point, agree with finite differences.
func TestRegressionGradients(t *testing.T) {
	r := rng.New(3)
	s1 := []Layer{*randLayer(r, 6, 2), *randLayer(r, 6, 2), *randLayer(r, 6, 2), *randLayer(r, 6, 2)}
	for _, logVar := range []bool{false, true} {
		h := testHead(logVar)
		cases := []struct {
			name  string
			build func(g *Graph, x *Tensor) *Tensor
		}{
			{"σ total", func(g *Graph, x *Tensor) *Tensor { return g.Regressive(g.DenseSamples(x, s1), h, nil).Total }},
			{"σ aleatoric", func(g *Graph, x *Tensor) *Tensor { return g.Regressive(g.DenseSamples(x, s1), h, nil).Aleatoric }},
			{"σ epistemic", func(g *Graph, x *Tensor) *Tensor { return g.Regressive(g.DenseSamples(x, s1), h, nil).Epistemic }},
			{"λy term", func(g *Graph, x *Tensor) *Tensor {
				return g.Regressive(g.DenseSamples(x, s1), h, []float32{41}).CrossEnt
			}},
			{"λy term, a target per point", func(g *Graph, x *Tensor) *Tensor {
				y0 := make([]float32, g.Capacity())
				for i := range y0 {
					y0[i] = float32(20 + 7*i)
				}
				return g.Regressive(g.DenseSamples(x, s1), h, y0).CrossEnt
			}},
			{"all at once", func(g *Graph, x *Tensor) *Tensor {
				p := g.Regressive(g.DenseSamples(x, s1), h, []float32{30})
				return g.Sum(Term{1, p.Total}, Term{0.5, p.Aleatoric}, Term{-2, p.Epistemic}, Term{0.3, p.CrossEnt})
			}},
		}
		for _, c := range cases {
			for _, batch := range []int{1, 4} {
				name := c.name
				if logVar {
					name += ", log variance"
				}
				gradCheck(t, name, batch, 6, normal, c.build)
			}
		}
	}
}

// TestRegressionValues: the forward pass against the definitions computed here in float64: the predictive mean,
// the three standard deviations, the λy term and the ranges' probabilities (which sum to 1).
func TestRegressionValues(t *testing.T) {
	for _, logVar := range []bool{false, true} {
		h := testHead(logVar)
		const k, batch = 3, 2
		g := NewGraph(batch)
		outs := g.Input(2, false)
		outs.PerPoint = k
		outs.Data = make([]float32, k*batch*2)
		// Row s·batch + i is point i's sample s: (o0, o1).
		vals := []float32{0.1, -0.5, 1.5, 0.2, -0.3, 0.4, 0.9, -1, 0.2, 1.2, 1.1, 0.05}
		copy(outs.Data, vals)
		p := g.Regressive(outs, h, []float32{41})
		g.Forward()
		for i := 0; i < batch; i++ {
			var mu, sigma [k]float64
			var mean float64
			for s := 0; s < k; s++ {
				o0, o1 := float64(vals[(s*batch+i)*2]), float64(vals[(s*batch+i)*2+1])
				mu[s] = h.Mean + h.Std*o0
				if logVar {
					sigma[s] = h.Std * math.Exp(o1/2)
				} else {
					sigma[s] = h.Std * math.Log1p(math.Exp(o1))
				}
				mean += mu[s] / k
			}
			var ale, epi float64
			for s := 0; s < k; s++ {
				ale += sigma[s] * sigma[s] / k
				epi += (mu[s] - mean) * (mu[s] - mean) / k
			}
			near := func(what string, got float32, want float64) {
				if math.Abs(float64(got)-want) > 1e-5*math.Max(1, math.Abs(want)) {
					t.Errorf("log variance %v, point %d: %s %v, want %v", logVar, i, what, got, want)
				}
			}
			near("mean", p.Mean.Data[i], mean)
			near("σ total", p.Total.Data[i], math.Sqrt(ale+epi))
			near("σ aleatoric", p.Aleatoric.Data[i], math.Sqrt(ale))
			near("σ epistemic", p.Epistemic.Data[i], math.Sqrt(epi))
			near("λy term", p.CrossEnt.Data[i], (mean-41)*(mean-41)/(h.Std*h.Std))
			var sum float64
			for j, edges := range [][2]float64{{math.Inf(-1), 20}, {20, 40}, {40, math.Inf(1)}} {
				var want float64
				for s := 0; s < k; s++ {
					cdf := func(e float64) float64 { return 0.5 * math.Erfc(-(e-mu[s])/(sigma[s]*math.Sqrt2)) }
					want += (cdf(edges[1]) - cdf(edges[0])) / k
				}
				near("a range's probability", p.ProbsRow(i)[j], want)
				sum += float64(p.ProbsRow(i)[j])
			}
			if math.Abs(sum-1) > 1e-6 {
				t.Errorf("point %d: the ranges' probabilities sum to %v", i, sum)
			}
		}
	}
}

// TestRegressionNoAllocations: a regression's forward and backward allocate nothing.
func TestRegressionNoAllocations(t *testing.T) {
	r := rng.New(5)
	s1 := []Layer{*randLayer(r, 6, 2), *randLayer(r, 6, 2)}
	g := NewGraph(8)
	x := g.Input(6, true)
	normal(r, x.Data)
	p := g.Regressive(g.DenseSamples(x, s1), testHead(false), []float32{30})
	loss := g.Sum(Term{1, p.Total}, Term{0.1, p.CrossEnt})
	g.Forward()
	g.Backward(loss, nil)
	if n := testing.AllocsPerRun(10, func() { g.Forward(); g.Backward(loss, nil) }); n != 0 {
		t.Errorf("%v allocations a step", n)
	}
}
