// Package rng is a small, seedable random number generator whose stream is fixed by this code alone, so that
// the same seed gives the same numbers natively, in WASM and in every future Go release (math/rand makes no
// such promise for its derived functions).
//
// The generator is SplitMix64 (Steele, Lea and Flood, 2014): 64 bits of state, passes BigCrush, and any seed,
// including 0, is fine.
package rng

import (
	"math"

	"github.com/deltaclue/deltaclue/engine/fmath"
)

// Rand is a SplitMix64 generator. The zero value is a valid generator with seed 0.
type Rand struct{ state uint64 }

// New returns a generator seeded with seed.
func New(seed uint64) *Rand { return &Rand{state: seed} }

// Derive returns a seed for an independent stream, mixing seed with a stream number. Use it to give each
// part of a computation (each restart, each mask) its own generator, so that results do not depend on the order
// in which parts draw.
func Derive(seed, stream uint64) uint64 {
	r := Rand{state: seed ^ (stream * 0xd1b54a32d192ed03)}
	r.Uint64()
	return r.Uint64()
}

// Uint64 returns 64 uniformly random bits.
func (r *Rand) Uint64() uint64 {
	r.state += 0x9e3779b97f4a7c15
	z := r.state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Float64 returns a uniform number in [0, 1) with 53 random bits.
func (r *Rand) Float64() float64 { return float64(r.Uint64()>>11) / (1 << 53) }

// IntN returns a uniform integer in [0, n). It panics if n <= 0.
func (r *Rand) IntN(n int) int {
	if n <= 0 {
		panic("rng: IntN with n <= 0")
	}
	// Rejection sampling on the top bits: unbiased, and simple enough to keep the stream obvious.
	bound := uint64(n)
	limit := math.MaxUint64 - math.MaxUint64%bound
	for {
		v := r.Uint64()
		if v < limit {
			return int(v % bound)
		}
	}
}

// Norm returns a standard normal number (Marsaglia's polar method, using only the project's own Log so the
// value is the same on every platform).
func (r *Rand) Norm() float64 {
	for {
		u := 2*r.Float64() - 1
		v := 2*r.Float64() - 1
		s := u*u + v*v
		if s > 0 && s < 1 {
			return u * math.Sqrt(-2*fmath.Log(s)/s)
		}
	}
}

// Perm returns a random permutation of 0..n-1 (Fisher–Yates).
func (r *Rand) Perm(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	for i := n - 1; i > 0; i-- {
		j := r.IntN(i + 1)
		p[i], p[j] = p[j], p[i]
	}
	return p
}
