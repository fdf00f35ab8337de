package training

import (
	"math"

	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph"

	"github.com/deltaclue/deltaclue/engine/rng"
	"github.com/deltaclue/deltaclue/internal/dataset"
	"github.com/deltaclue/deltaclue/weights"
)

// MeasureDescribedELBO is MeasureDescribedVAE's ELBO alone (the same 10-sample estimate per item, with the same
// noise, nats; NaN without a log-variance head), for a caller that measures the reconstructions otherwise (with
// the engine, as deltaclue import does).
func MeasureDescribedELBO(backend compute.Backend, d *weights.Description, vae Tensors, set dataset.Items) float64 {
	if d.VAE.LogVariance == nil || set.Len() == 0 {
		return math.NaN()
	}
	v := VAEGraphs{vae, d}
	const samples = 10
	elboExec := MustNewExec(backend, func(x, eps *Node) *Node { return ReduceAllSum(v.negELBO(x, eps)) })
	r := rng.New(12345)
	var elbo float64
	batchChunks(set.Len(), 500, func(lo, hi int) {
		x := itemFloats(set, lo, hi)
		for range samples {
			elbo -= float64(elboExec.MustExec(x, noise(r, hi-lo, d.VAE.Latent))[0].Value().(float32))
		}
	})
	return elbo / float64(samples*set.Len())
}
