package clue

import (
	"fmt"
	"math"

	"github.com/deltaclue/deltaclue/engine"
	"github.com/deltaclue/deltaclue/engine/fmath"
	"github.com/deltaclue/deltaclue/engine/rng"
)

// norm is ‖v‖ in the parameters' ρ.
func (p Params) norm(v []float64) float64 {
	var s float64
	for _, x := range v {
		if p.Rho == LInf {
			s = math.Max(s, math.Abs(x))
		} else {
			s += x * x
		}
	}
	if p.Rho == LInf {
		return s
	}
	return math.Sqrt(s)
}

// project puts z back into the ball of radius δ around z0 when it has left it: z0 + δ·(z − z0)/‖z − z0‖ for
// L2 (the paper's formula, with the "+ z0" its print omits), coordinate clipping for L∞.
func (p Params) project(z, z0 []float64) {
	if p.Rho == LInf {
		for i := range z {
			z[i] = z0[i] + math.Max(-p.Delta, math.Min(p.Delta, z[i]-z0[i]))
		}
		return
	}
	var s float64
	for i := range z {
		s += (z[i] - z0[i]) * (z[i] - z0[i])
	}
	if rho := math.Sqrt(s); rho > p.Delta {
		for i := range z {
			z[i] = z0[i] + p.Delta*(z[i]-z0[i])/rho
		}
	}
}

// direction returns a uniformly random direction (a normalised standard normal vector) of dimension d.
func direction(r *rng.Rand, d int) []float64 {
	for {
		u := make([]float64, d)
		var s float64
		for i := range u {
			u[i] = r.Norm()
			s += u[i] * u[i]
		}
		if s > 0 {
			return u
		}
	}
}

// along returns z0 + radius·u/‖u‖_ρ.
func (p Params) along(z0, u []float64, radius float64) []float64 {
	n := p.norm(u)
	z := make([]float64, len(z0))
	for i := range z {
		z[i] = z0[i] + radius*u[i]/n
	}
	return z
}

// Starts returns the starting points of every restart (Params.Restarts of them) around the problem's z0.
// Random schemes draw restart i from its own generator, seeded from (Seed, i), so a restart's start does not
// depend on which others run.
func Starts(prob *Problem, p Params) ([][]float64, error) {
	if err := p.ValidateFor(prob.models); err != nil {
		return nil, err
	}
	z0 := prob.z0
	d := len(z0)
	n := p.Restarts()
	starts := make([][]float64, n)
	switch p.Scheme {
	case S1, S3, S4:
		for i := range starts {
			r := rng.New(rng.Derive(p.Seed, uint64(i)))
			switch p.Scheme {
			case S1: // radius uniform in [0, δ] (in radius, not in volume)
				starts[i] = p.along(z0, direction(r, d), p.Delta*r.Float64())
			case S3: // radius half-normal with σ = δ/2, redrawn until it is at most δ
				radius := math.Inf(1)
				for radius > p.Delta {
					radius = math.Abs(r.Norm()) * p.Delta / 2
				}
				starts[i] = p.along(z0, direction(r, d), radius)
			case S4:
				starts[i] = uniformInBall(r, p, z0)
			}
		}
	case S2:
		// Over the classes with anchors only: a class the classifier is never sure of has none to start toward.
		// With every class anchored this is every class, as it always was.
		anchored := prob.models.AnchoredClasses()
		counts, at := perClass(n, len(anchored)), 0
		for i, m := range counts {
			if m == 0 {
				continue
			}
			y := anchored[i]
			zy, err := prob.nearestAnchor(y, p)
			if err != nil {
				return nil, err
			}
			u := make([]float64, d)
			for k := range u {
				u[k] = zy[k] - z0[k]
			}
			if p.norm(u) == 0 { // the anchor is z0 itself: any direction is as good
				u[0] = 1
			}
			for j := 1; j <= m; j++ {
				starts[at] = p.along(z0, u, p.Delta*float64(j)/float64(m))
				at++
			}
		}
	case S6:
		centres, err := prob.amortisedCentres()
		if err != nil {
			return nil, err
		}
		// Restart i starts towards centre i mod T: the first T at the centres themselves, the rest jittered by a
		// random direction times a radius uniform in [0, δ/2], all projected into the ball.
		for i := range starts {
			c := centres[i%len(centres)]
			z := append([]float64(nil), c...)
			if i >= len(centres) {
				r := rng.New(rng.Derive(p.Seed, uint64(i)))
				z = p.along(c, direction(r, d), p.Delta/2*r.Float64())
			}
			p.project(z, z0)
			starts[i] = z
		}
	case S5:
		paths, err := gradientPaths(prob, p)
		if err != nil {
			return nil, err
		}
		counts, at := perClass(n, prob.models.BNN.Classes), 0
		for y, path := range paths {
			for j := 1; j <= counts[y]; j++ {
				starts[at] = path.at(float64(j) / float64(counts[y]))
				at++
			}
		}
	}
	return starts, nil
}

// amortisedCentres is S6's centres: the models' amortised points for x0, in float64.
func (prob *Problem) amortisedCentres() ([][]float64, error) {
	if prob.models.Amortised == nil {
		return nil, fmt.Errorf("scheme S6 needs GLAM-CLUE's translations, and the models have none")
	}
	from := prob.Pred0.Label()
	points := prob.models.Amortised(prob.X0, prob.Z0, from)
	if len(points) == 0 {
		return nil, fmt.Errorf("scheme S6 has no translation from label %d: no group of uncertain training inputs read as %d had enough members", from, from)
	}
	centres := make([][]float64, len(points))
	for i, pt := range points {
		if len(pt) != len(prob.z0) {
			return nil, fmt.Errorf("scheme S6: an amortised point of dimension %d for a latent space of %d", len(pt), len(prob.z0))
		}
		centres[i] = make([]float64, len(pt))
		for k, v := range pt {
			centres[i][k] = float64(v)
		}
	}
	return centres, nil
}

// uniformInBall draws a point uniformly from the ball of radius δ around z0. For S4 the paper draws every
// coordinate from U(−δ, δ) and rejects points outside the ball; since the ball lies inside that cube, the
// accepted points are exactly uniform in the ball, which this draws directly (in 16 dimensions only one cube
// draw in about 280,000 would land in the L2 ball). For L∞ the ball is the cube and no draw is rejected.
func uniformInBall(r *rng.Rand, p Params, z0 []float64) []float64 {
	z := make([]float64, len(z0))
	if p.Rho == LInf {
		for i := range z {
			z[i] = z0[i] + p.Delta*(2*r.Float64()-1)
		}
		return z
	}
	u := direction(r, len(z0))
	// Volume-uniform radius, P(R ≤ ρ) = (ρ/δ)^d: R = δ·U^(1/d), with the project's own exp and log (math.Pow
	// uses assembly on amd64 and would not give WASM's bits).
	radius := p.Delta * fmath.Exp(fmath.Log(1-r.Float64())/float64(len(z0)))
	return p.along(z0, u, radius)
}

// nearestAnchor is the low-uncertainty training code of class y nearest to z0 (in ρ).
func (prob *Problem) nearestAnchor(y int, p Params) ([]float64, error) {
	if prob.models.Anchors == nil || len(prob.models.Anchors[y]) == 0 {
		return nil, fmt.Errorf("scheme S2 needs the training anchors of class %d, and the models have none", y)
	}
	d := len(prob.z0)
	codes := prob.models.Anchors[y]
	best, bestDist := 0, math.Inf(1)
	diff := make([]float64, d)
	for i := 0; i < len(codes)/d; i++ {
		for k := range diff {
			diff[k] = float64(codes[i*d+k]) - prob.z0[k]
		}
		if dist := p.norm(diff); dist < bestDist {
			best, bestDist = i, dist
		}
	}
	out := make([]float64, d)
	for k := range out {
		out[k] = float64(codes[best*d+k])
	}
	return out, nil
}

// polyline is a path from z0, with the arc length at each vertex.
type polyline struct {
	points [][]float64
	arc    []float64
}

// at returns the point a fraction f of the way along the path (by arc length).
func (pl polyline) at(f float64) []float64 {
	total := pl.arc[len(pl.arc)-1]
	target := f * total
	for i := 1; i < len(pl.points); i++ {
		if pl.arc[i] >= target || i == len(pl.points)-1 {
			seg := pl.arc[i] - pl.arc[i-1]
			t := 1.0
			if seg > 0 {
				t = math.Min(1, math.Max(0, (target-pl.arc[i-1])/seg))
			}
			out := make([]float64, len(pl.points[i]))
			for k := range out {
				out[k] = pl.points[i-1][k] + t*(pl.points[i][k]-pl.points[i-1][k])
			}
			return out
		}
	}
	return append([]float64(nil), pl.points[0]...)
}

// gradientPaths follows, for every class y at once (one batch), the direction of ∇z p(y | μθ(z)) from z0 in
// steps of length δ/(4m) until the path reaches radius δ (the last step cut at the radius), the gradient
// vanishes or 16m steps have been taken; the S5 starting points lie at fractions j/m of each path's length.
// The direction of −∇z(−log p(y)) is the direction of ∇z p(y), so the batch descends the cross-entropy to the
// one-hot target of its row's class.
func gradientPaths(prob *Problem, p Params) ([]polyline, error) {
	v, b := prob.models.VAE, prob.models.BNN
	d := v.Latent
	classes := b.Classes
	m := perClass(p.Restarts(), classes)[0] // the most any class takes
	targets := make([]float32, classes*classes)
	for y := 0; y < classes; y++ {
		targets[y*classes+y] = 1
	}
	g := engine.NewGraph(classes)
	z := g.Input(d, true)
	img, err := prob.decode(g, z, p) // a model of rows: through the row head, as the search will see it
	if err != nil {
		return nil, err
	}
	cost := b.Predict(g, img, targets).CrossEnt
	step := p.Delta / float64(4*m)
	paths := make([]polyline, classes)
	pos := make([][]float64, classes)
	done := make([]bool, classes)
	for y := range paths {
		pos[y] = append([]float64(nil), prob.z0...)
		paths[y] = polyline{points: [][]float64{append([]float64(nil), prob.z0...)}, arc: []float64{0}}
	}
	for it := 0; it < 16*m; it++ {
		for y := range pos {
			for k := 0; k < d; k++ {
				z.Data[y*d+k] = float32(pos[y][k])
			}
		}
		g.Forward()
		g.Backward(cost, nil)
		remaining := 0
		for y := range pos {
			if done[y] {
				continue
			}
			dir := make([]float64, d)
			var n2 float64
			for k := range dir {
				dir[k] = -float64(z.Grad[y*d+k])
				n2 += dir[k] * dir[k]
			}
			if !(n2 > 0) || !finite(n2) {
				done[y] = true
				continue
			}
			next := make([]float64, d)
			off := make([]float64, d)
			for k := range next {
				next[k] = pos[y][k] + step*dir[k]/math.Sqrt(n2)
				off[k] = next[k] - prob.z0[k]
			}
			length := step
			if p.norm(off) >= p.Delta { // cut the step where it crosses the sphere
				lo, hi := 0.0, 1.0
				for range 60 {
					mid := (lo + hi) / 2
					for k := range off {
						off[k] = pos[y][k] + mid*(next[k]-pos[y][k]) - prob.z0[k]
					}
					if p.norm(off) >= p.Delta {
						hi = mid
					} else {
						lo = mid
					}
				}
				for k := range next {
					next[k] = pos[y][k] + hi*(next[k]-pos[y][k])
				}
				length = hi * step
				done[y] = true
			}
			pos[y] = next
			paths[y].points = append(paths[y].points, append([]float64(nil), next...))
			paths[y].arc = append(paths[y].arc, paths[y].arc[len(paths[y].arc)-1]+length)
			if !done[y] {
				remaining++
			}
		}
		if remaining == 0 {
			break
		}
	}
	for y := range paths {
		if len(paths[y].points) == 1 { // no step was possible: every start of this class is z0
			paths[y].points = append(paths[y].points, paths[y].points[0])
			paths[y].arc = append(paths[y].arc, 0)
		}
	}
	return paths, nil
}

// perClass spreads S2's and S5's restarts over classes, in class order: as many to each, and what is left one
// more to the first ones. S5 spreads them over all the model's classes, S2 over those with anchors. The digits'
// ten classes take restarts/10 each (Restarts is a multiple of Classes for these schemes); a model of other
// classes, or with fewer anchored, takes the same number of restarts, so that a link's set has the size the page
// and the workers expect without knowing the model.
func perClass(restarts, classes int) []int {
	counts := make([]int, classes)
	for y := range counts {
		counts[y] = restarts / classes
		if y < restarts%classes {
			counts[y]++
		}
	}
	return counts
}
