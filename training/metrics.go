package training

import (
	"math"
	"sort"
)

// Classification holds the quality measures of a probabilistic classifier on a labelled set.
type Classification struct {
	Accuracy float64 `json:"accuracy"`
	NLL      float64 `json:"nll"`   // mean −log p(true label), nats
	ECE      float64 `json:"ece"`   // expected calibration error, 15 equal-width confidence bins
	AUROC    float64 `json:"auroc"` // of predictive entropy, for telling the model's mistakes from its hits
}

// Classify measures predictive probabilities probs [N·classes] against labels.
func Classify(probs []float32, labels []uint8) Classification {
	const bins = 15
	n := len(labels)
	classes := len(probs) / n
	var c Classification
	binCount, binCorrect, binConf := make([]float64, bins), make([]float64, bins), make([]float64, bins)
	entropy := make([]float64, n)
	wrong := make([]bool, n)
	for i := 0; i < n; i++ {
		p := probs[i*classes : (i+1)*classes]
		best := 0
		for k := range p {
			if p[k] > p[best] {
				best = k
			}
			if p[k] > 0 {
				entropy[i] -= float64(p[k]) * math.Log(float64(p[k]))
			}
		}
		correct := best == int(labels[i])
		wrong[i] = !correct
		if correct {
			c.Accuracy++
		}
		c.NLL -= math.Log(math.Max(float64(p[labels[i]]), 1e-12))
		conf := float64(p[best])
		b := min(int(conf*bins), bins-1)
		binCount[b]++
		binConf[b] += conf
		if correct {
			binCorrect[b]++
		}
	}
	for b := range bins {
		if binCount[b] > 0 {
			c.ECE += math.Abs(binCorrect[b]-binConf[b]) / float64(n)
		}
	}
	c.Accuracy /= float64(n)
	c.NLL /= float64(n)
	c.AUROC = AUROC(entropy, wrong)
	return c
}

// AUROC is the area under the ROC curve of score for detecting positives: the probability that a random
// positive scores above a random negative, ties counting one half (the Mann–Whitney statistic).
func AUROC(score []float64, positive []bool) float64 {
	idx := make([]int, len(score))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return score[idx[a]] < score[idx[b]] })
	var rankSum, pos float64
	for i := 0; i < len(idx); {
		j := i
		for j < len(idx) && score[idx[j]] == score[idx[i]] {
			j++
		}
		rank := float64(i+j+1) / 2 // average of ranks i+1..j
		for k := i; k < j; k++ {
			if positive[idx[k]] {
				rankSum += rank
				pos++
			}
		}
		i = j
	}
	neg := float64(len(score)) - pos
	if pos == 0 || neg == 0 {
		return math.NaN()
	}
	return (rankSum - pos*(pos+1)/2) / (pos * neg)
}
