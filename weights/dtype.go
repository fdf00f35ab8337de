package weights

import (
	"fmt"
	"math"
)

// The dtypes a tensor can be stored in (Tensor.DType). Every one decodes to float32, the same bits on every
// platform: a float16 value is exactly representable in float32, and an int8 value q with its scale s decodes to
// float32(q) * s, one IEEE float32 multiplication of two float32 values (correctly rounded everywhere, natively
// and in WASM; there is no addition for a compiler to fuse).
const (
	Float32 = "float32" // 4 bytes a value, little-endian IEEE binary32 (format versions 1 and 2)
	Float16 = "float16" // 2 bytes a value, little-endian IEEE binary16, rounded to nearest-even from float32 (version 2)
	Int8    = "int8"    // 1 byte a value (two's complement, −127…127) and a float32 scale per index of ScaleAxis (version 2)
)

// storedBytes returns how many payload bytes a tensor of n values takes in dtype, with scales scales (int8).
func storedBytes(dtype string, n, scales int) int {
	switch dtype {
	case Float16:
		return 2 * n
	case Int8:
		return n + 4*scales
	}
	return 4 * n
}

// Float16Bits returns the IEEE binary16 bits nearest to f (ties to even), and false when f is NaN or infinite or
// its magnitude rounds beyond the largest half, 65504.
func Float16Bits(f float32) (uint16, bool) {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b >> 23 & 0xff)
	mant := b & 0x7fffff
	if exp == 0xff {
		return 0, false
	}
	e := exp - 127 // unbiased
	if e > 15 {
		return 0, false
	}
	if e >= -14 { // a normal half, unless rounding carries it to infinity
		h := uint32(e+15)<<10 | mant>>13
		rem := mant & 0x1fff
		if rem > 0x1000 || rem == 0x1000 && h&1 == 1 {
			h++ // a carry out of the mantissa correctly increments the exponent
		}
		if h >= 0x7c00 {
			return 0, false
		}
		return sign | uint16(h), true
	}
	if exp == 0 { // zero or a float32 subnormal, below 2^−126: rounds to a signed zero
		return sign, true
	}
	// A half subnormal counts units of 2^−24: |f| = full·2^(e−23) = (full >> shift) units, shift = −e−1 ≥ 14.
	full := mant | 0x800000
	shift := uint(-e - 1)
	if shift >= 25 { // |f| < 2^−25, half a unit: rounds to zero
		return sign, true
	}
	h := full >> shift
	rem := full & (1<<shift - 1)
	half := uint32(1) << (shift - 1)
	if rem > half || rem == half && h&1 == 1 {
		h++ // may become 0x400, the smallest normal: the right encoding
	}
	return sign | uint16(h), true
}

// Float16Value returns the float32 value of the IEEE binary16 bits h (exact), and false for an infinity or NaN.
func Float16Value(h uint16) (float32, bool) {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f:
		return 0, false
	case exp == 0 && mant == 0:
		return math.Float32frombits(sign), true
	case exp == 0: // subnormal, mant·2^−24: normalise
		e := uint32(127 - 14)
		for mant&0x400 == 0 {
			mant <<= 1
			e--
		}
		return math.Float32frombits(sign | e<<23 | (mant&0x3ff)<<13), true
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13), true
}

// scaleIndex returns, for a tensor of the given shape quantised along axis, the stride and count of that axis:
// value e (row-major) uses scale (e / stride) % count.
func scaleIndex(shape []int, axis int) (stride, count int) {
	stride = 1
	for _, d := range shape[axis+1:] {
		stride *= d
	}
	return stride, shape[axis]
}

// QuantizeInt8 quantises v (row-major, of the given shape) symmetrically with one scale per index of axis:
// scale = max|v| / 127 over the values sharing that index, q = round(v / scale) (half away from zero), so that
// the largest magnitude maps to ±127. An all-zero slice gets scale 0. It fails on a NaN or infinite value.
func QuantizeInt8(v []float32, shape []int, axis int) (q []int8, scales []float32, err error) {
	if axis < 0 || axis >= len(shape) {
		return nil, nil, fmt.Errorf("scale axis %d of a tensor of shape %v", axis, shape)
	}
	stride, count := scaleIndex(shape, axis)
	maxAbs := make([]float32, count)
	for e, x := range v {
		if x != x || math.IsInf(float64(x), 0) {
			return nil, nil, fmt.Errorf("value %d is %v", e, x)
		}
		k := e / stride % count
		maxAbs[k] = max(maxAbs[k], float32(math.Abs(float64(x))))
	}
	scales = make([]float32, count)
	for k, m := range maxAbs {
		scales[k] = m / 127
	}
	q = make([]int8, len(v))
	for e, x := range v {
		s := scales[e/stride%count]
		if s == 0 {
			continue
		}
		r := math.Round(float64(x) / float64(s))
		q[e] = int8(max(-127, min(127, r)))
	}
	return q, scales, nil
}
