// Package mcmask draws the BNN's fixed Monte-Carlo dropout masks from what its weights file stores (dropout
// rate, sample count, mask seed, widths), with the project's own generator (engine/rng), so that every platform
// averages over the same K networks.
//
// The masks live here, not in package weights, so that the dependency runs one way: weights describes and decodes
// the stored data, and the packages that run the BNN draw its masks. Nor do they live in package engine: the
// gomlx reference (package training) draws the same masks, and engine's tests import training.
package mcmask

import (
	"github.com/deltaclue/deltaclue/engine/rng"
	"github.com/deltaclue/deltaclue/weights"
)

// Draw returns the BNN's fixed MC-dropout masks: masks[k][l] scales hidden layer l's activations in posterior
// sample k, each unit kept (scaled by 1/(1−p)) or dropped (0). The masks are a function of the architecture
// alone: a.MCSamples masks of the shape a.MaskWidths(), sample k drawn from its own stream of a.MaskSeed.
func Draw(a weights.Architecture) [][][]float32 {
	hidden := a.MaskWidths()
	rates := make([]float64, len(hidden))
	for l := range rates {
		rates[l] = a.Dropout
	}
	return DrawLayers(a.MaskSeed, a.MCSamples, hidden, rates)
}

// DrawLayers returns the fixed masks of a network's dropout layers: masks[k][l] is dropout layer l's mask in
// posterior sample k, widths[l] values (units, or an image's channels), each kept (1/(1−rates[l])) or dropped
// (0); sample k is drawn from its own stream of seed, its layers in order. Draw is DrawLayers with one rate.
func DrawLayers(seed uint64, samples int, widths []int, rates []float64) [][][]float32 {
	masks := make([][][]float32, samples)
	for k := range masks {
		r := rng.New(rng.Derive(seed, uint64(k)))
		masks[k] = make([][]float32, len(widths))
		for l, width := range widths {
			keep := float32(1 / (1 - rates[l]))
			m := make([]float32, width)
			for j := range m {
				if r.Float64() >= rates[l] {
					m[j] = keep
				}
			}
			masks[k][l] = m
		}
	}
	return masks
}
