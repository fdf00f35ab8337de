//go:build !js

package main

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"encoding/binary"
	"math"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/mnist"
)

// encodeV1 writes a share link (the fragment, without "#") in the first format, v1, which every build of the
// page since share links exist reads, for a base build that predates v2 (commit 61e9a68). The layout is the
// one documented at the top of that commit's app/sharelink/sharelink.go (now engine/clue/sharelink): "v1." + base64url, no padding, of
// DEFLATE of
//
//	"DC" | version 1 | model fingerprint u32 | delta f64 | n u16 | scheme u8 | w_total f64 | w_aleatoric f64 |
//	w_epistemic f64 | lambda_x f64 | flags u8 (1 distance_mean, 2 rho = linf, 4 constraint = filter) |
//	lambda_y f64 | lambda_d f64 | learning_rate f64 | max_steps u16 | window u8 | rel_tol f64 | abs_tol f64 |
//	min_steps u16 | h_threshold f64 | dedup_l1 f64 | seed u64 | 784 pixel bytes (a digit's 28×28, k/255)
//
// all little-endian (904 bytes, no checksum). A v1 link holds one of the digits, as every link did then.
func encodeV1(image [mnist.Pixels]uint8, p clue.Params, model uint32) string {
	le := binary.LittleEndian
	f64 := func(b []byte, v float64) []byte { return le.AppendUint64(b, math.Float64bits(v)) }
	b := make([]byte, 0, 904)
	b = append(b, 'D', 'C', 1)
	b = le.AppendUint32(b, model)
	b = f64(b, p.Delta)
	b = le.AppendUint16(b, uint16(p.N))
	b = append(b, uint8(p.Scheme))
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
	b = append(b, flags)
	b = f64(b, p.LambdaY)
	b = f64(b, p.LambdaD)
	b = f64(b, p.LearningRate)
	b = le.AppendUint16(b, uint16(p.MaxSteps))
	b = append(b, uint8(p.Window))
	b = f64(b, p.RelTol)
	b = f64(b, p.AbsTol)
	b = le.AppendUint16(b, uint16(p.MinSteps))
	b = f64(b, p.HThreshold)
	b = f64(b, p.DedupL1)
	b = le.AppendUint64(b, p.Seed)
	b = append(b, image[:]...)
	var z bytes.Buffer
	fw, _ := flate.NewWriter(&z, flate.BestCompression)
	fw.Write(b)
	fw.Close()
	return "v1." + base64.RawURLEncoding.EncodeToString(z.Bytes())
}
