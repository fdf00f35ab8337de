package sharelink

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"encoding/binary"
	"hash/crc32"
	"math"
	"sync"

	"github.com/deltaclue/deltaclue/engine/clue"
)

// u8 and u16 store a whole number, or all ones when it does not fit: every count, n and step limit a link
// stores has a valid range well below that, so Encode never turns an invalid state into a valid other one.
func u8(v int) uint8 {
	if v < 0 || v > math.MaxUint8 {
		return math.MaxUint8
	}
	return uint8(v)
}

func u16(v int) uint16 {
	if v < 0 || v > math.MaxUint16 {
		return math.MaxUint16
	}
	return uint16(v)
}

// Encode returns the fragment (without "#") for s: version 2 for the digits' models and image (their links stay
// what they were), version 3 for any other model. It does not check s: Decode rejects a link made from an
// invalid state.
func Encode(s State) string {
	if s.isDigits() && s.Params.Lock == "" && !s.Params.Sparse {
		b := make([]byte, 0, payload2Length+8*len(s.Sweep.Radii)+crcLength)
		b = append(b, 'D', 'C', 2)
		b = appendFields(b, s)
		b = append(b, s.Image...)
		return prefix2 + compress(b)
	}
	le := binary.LittleEndian
	h, w, c := s.Shape()
	name := s.ModelsName()
	b := make([]byte, 0, 4+len(name)+payload2Length-Pixels+8*len(s.Sweep.Radii)+5+len(s.Image)+crcLength)
	b = append(b, 'D', 'C', 3, u8(len(name)))
	b = append(b, name...)
	b = appendFields(b, s)
	b = append(b, u8(c))
	b = le.AppendUint16(b, u16(h))
	b = le.AppendUint16(b, u16(w))
	b = append(b, s.Image...)
	if lock := s.Params.Lock; lock != "" {
		lock = lock[:min(len(lock), maxLock+1)] // too long: Decode refuses it, as it would refuse the search
		b = append(b, 'L')
		b = le.AppendUint16(b, uint16(len(lock)))
		b = append(b, lock...)
	}
	return prefix3 + compress(b)
}

// appendFields writes the fields v2 and v3 share, from the model fingerprint to the sweep's radii.
func appendFields(b []byte, s State) []byte {
	le := binary.LittleEndian
	f64 := func(b []byte, v float64) []byte { return le.AppendUint64(b, math.Float64bits(v)) }
	p := s.Params
	b = le.AppendUint32(b, s.Model)
	b = f64(b, p.Delta)
	b = le.AppendUint16(b, u16(p.N))
	b = append(b, u8(int(p.Scheme)))
	b = f64(b, p.WTotal)
	b = f64(b, p.WAleatoric)
	b = f64(b, p.WEpistemic)
	b = f64(b, p.LambdaX)
	var flags uint8
	if p.DistanceMean {
		flags |= 1
	}
	if p.Rho == clue.LInf {
		flags |= 2
	}
	if p.Constraint == clue.Filter {
		flags |= 4
	}
	if p.Convergence == clue.CLUERule {
		flags |= 8
	}
	if p.Sparse {
		flags |= 16
	}
	b = append(b, flags)
	b = f64(b, p.LambdaY)
	b = f64(b, p.LambdaD)
	b = f64(b, p.LearningRate)
	b = le.AppendUint16(b, u16(p.MaxSteps))
	b = append(b, u8(p.Window))
	b = f64(b, p.RelTol)
	b = f64(b, p.AbsTol)
	b = le.AppendUint16(b, u16(p.MinSteps))
	b = f64(b, p.HThreshold)
	b = f64(b, p.DedupL1)
	b = le.AppendUint64(b, p.Seed)
	sel := s.Selected
	if sel < math.MinInt16 || sel > math.MaxInt16 {
		sel = math.MinInt16 // out of range either way
	}
	b = le.AppendUint16(b, uint16(int16(sel)))
	radii := s.Sweep.Radii[:min(len(s.Sweep.Radii), math.MaxUint8)]
	b = append(b, uint8(len(radii)))
	if len(radii) == 0 {
		b = le.AppendUint16(b, 0)
	} else {
		b = le.AppendUint16(b, u16(s.Sweep.N))
	}
	for _, r := range radii {
		b = f64(b, r)
	}
	return b
}

// compress appends the payload's CRC-32 and returns it DEFLATEd, in URL-safe base64 without padding.
func compress(b []byte) string {
	b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	var z bytes.Buffer
	deflater.Lock()
	deflater.make()
	deflater.w.Reset(&z)
	deflater.w.Write(b)
	deflater.w.Close()
	deflater.Unlock()
	return base64.RawURLEncoding.EncodeToString(z.Bytes())
}

// deflater is the compressor kept for every link: a new one at BestCompression allocates and clears about a
// megabyte of tables, which made writing the address after every change of the page's input take it tens of
// ms (and start a collection) in WebAssembly. A reset one writes the same bytes. (Not a sync.Pool: a pool is
// emptied by every other collection, and the page would make the megabyte again.)
var deflater keptWriter

type keptWriter struct {
	sync.Mutex
	w *flate.Writer
}

func (k *keptWriter) make() {
	if k.w == nil {
		k.w, _ = flate.NewWriter(nil, flate.BestCompression)
	}
}

// Warm makes the compressor that links are written with, so that the first link written does not pay for it:
// the page calls it while it loads, not when a link is opened.
func Warm() {
	deflater.Lock()
	deflater.make()
	deflater.Unlock()
}
