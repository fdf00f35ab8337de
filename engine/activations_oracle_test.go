//go:build !js || gomlxwasm

package engine

// The activations of activations.go against gomlx (float64, its own autodiff for the input gradient), written
// from their definitions, on random image shapes (layerCase with in = out). Natively with every `go test`; in
// WASM under Node with -tags gomlxwasm (make test-wasm runs it).

import (
	"fmt"
	"math"
	"testing"

	gx "github.com/gomlx/gomlx/core/graph"

	"github.com/deltaclue/deltaclue/engine/rng"
)

// TestActivationsAgreeWithGomlx: SiLU, GELU (both forms), clip, hard sigmoid, hard swish, ELU and softplus, at
// several parameters, forward values and input gradients against gomlx, on four random shapes each.
func TestActivationsAgreeWithGomlx(t *testing.T) {
	r := rng.New(2030)
	inf := float32(math.Inf(1))
	// gomlx's derivative of Min and Max at a tie is not PyTorch's, and finite differences have none: the inputs
	// keep 0.1 from every kink (awayFrom), and the definitions take float32 parameters as the engine does.
	sigmoid := func(x *gx.Node) *gx.Node { return gx.Sigmoid(x) }
	for trial := 0; trial < 4; trial++ {
		in := randShape(r)
		clip := func(lo, hi float32, scale float64) layerCase {
			return layerCase{name: fmt.Sprintf("clip [%v, %v] %v", lo, hi, in), in: in, out: in,
				init:   awayFrom(scale, float64(lo), float64(hi)),
				engine: func(g *Graph, x *Tensor) *Tensor { return g.Clip(x, lo, hi) },
				gomlx:  func(x *gx.Node) *gx.Node { return gx.MinScalar(gx.MaxScalar(x, float64(lo)), float64(hi)) }}
		}
		hardSigmoid := func(alpha, beta float32, scale float64) layerCase {
			a, b := float64(alpha), float64(beta)
			return layerCase{name: fmt.Sprintf("hard sigmoid %v·x + %v %v", alpha, beta, in), in: in, out: in,
				init:   awayFrom(scale, -b/a, (1-b)/a),
				engine: func(g *Graph, x *Tensor) *Tensor { return g.HardSigmoid(x, alpha, beta) },
				gomlx: func(x *gx.Node) *gx.Node {
					return gx.MinScalar(gx.MaxScalar(gx.AddScalar(gx.MulScalar(x, a), b), 0.0), 1.0)
				}}
		}
		elu := func(alpha float32) layerCase {
			return layerCase{name: fmt.Sprintf("elu %v %v", alpha, in), in: in, out: in, init: awayFrom(2, 0),
				engine: func(g *Graph, x *Tensor) *Tensor { return g.ELU(x, alpha) },
				gomlx: func(x *gx.Node) *gx.Node {
					// e^x − 1 of the negative part only, so that no branch overflows
					neg := gx.MulScalar(gx.AddScalar(gx.Exp(gx.MinScalar(x, 0.0)), -1.0), float64(alpha)) // (Expm1 has no gradient in gomlx)
					return gx.Where(gx.GreaterThan(x, gx.ZerosLike(x)), x, neg)
				}}
		}
		cases := []layerCase{
			{name: fmt.Sprintf("silu %v", in), in: in, out: in, init: awayFrom(3),
				engine: func(g *Graph, x *Tensor) *Tensor { return g.SiLU(x) },
				gomlx:  func(x *gx.Node) *gx.Node { return gx.Mul(x, sigmoid(x)) }},
			{name: fmt.Sprintf("gelu %v", in), in: in, out: in, init: awayFrom(3),
				engine: func(g *Graph, x *Tensor) *Tensor { return g.GELU(x, false) },
				gomlx: func(x *gx.Node) *gx.Node {
					return gx.Mul(gx.MulScalar(x, 0.5), gx.OnePlus(gx.Erf(gx.MulScalar(x, 1/math.Sqrt2))))
				}},
			{name: fmt.Sprintf("gelu, tanh form %v", in), in: in, out: in, init: awayFrom(3),
				engine: func(g *Graph, x *Tensor) *Tensor { return g.GELU(x, true) },
				gomlx: func(x *gx.Node) *gx.Node {
					u := gx.MulScalar(gx.Add(x, gx.MulScalar(gx.Mul(x, gx.Mul(x, x)), 0.044715)), math.Sqrt(2/math.Pi))
					return gx.Mul(gx.MulScalar(x, 0.5), gx.OnePlus(gx.Tanh(u)))
				}},
			clip(-0.5, 0.7, 1),
			clip(0, 6, 4),
			clip(-inf, 0.3, 1),
			clip(-1, inf, 1),
			hardSigmoid(0.2, 0.5, 3),
			hardSigmoid(1.0/6, 0.5, 4),
			hardSigmoid(-0.7, 0.1, 2),
			{name: fmt.Sprintf("hard swish %v", in), in: in, out: in, init: awayFrom(4, -3, 3),
				engine: func(g *Graph, x *Tensor) *Tensor { return g.HardSwish(x) },
				gomlx: func(x *gx.Node) *gx.Node {
					return gx.DivScalar(gx.Mul(x, gx.MinScalar(gx.MaxScalar(gx.AddScalar(x, 3.0), 0.0), 6.0)), 6.0)
				}},
			elu(1),
			elu(0.3),
			{name: fmt.Sprintf("softplus %v", in), in: in, out: in, init: awayFrom(4),
				engine: func(g *Graph, x *Tensor) *Tensor { return g.Softplus(x) },
				gomlx: func(x *gx.Node) *gx.Node {
					return gx.Add(gx.MaxScalar(x, 0.0), gx.Log1p(gx.Exp(gx.Neg(gx.Abs(x)))))
				}},
		}
		for _, lc := range cases {
			lc.check(t, r, 1+r.IntN(3))
		}
	}
}
