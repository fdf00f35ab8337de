package clue

import (
	"math"
	"testing"
)

// synthetic builds a problem whose x0 and z0 are small hand-made vectors, for checking the metrics by hand.
func synthetic(t *testing.T, x0, z0 []float32) *Problem {
	m, err := shipped()
	if err != nil {
		t.Fatal(err)
	}
	return &Problem{models: m, X0: x0, Z0: z0}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func TestSummaryByHand(t *testing.T) {
	prob := synthetic(t, []float32{0, 0.5}, []float32{0, 0})
	probs := func(c int, p float32) []float32 {
		v := make([]float32, 10)
		for i := range v {
			v[i] = (1 - p) / 9
		}
		v[c] = p
		return v
	}
	exps := []Explanation{
		{Restart: 0, Label: 7, Probs: probs(7, 0.9), HTotal: 0.1, Distance: 2, Cost: 0.5, Rho: 1, OnShell: true, Accepted: true, Converged: true,
			Image: []float32{1, 0.5}, Z: []float32{1, 0}},
		{Restart: 1, Label: 9, Probs: probs(9, 0.8), HTotal: 0.2, Distance: 4, Cost: 1, Rho: 1, OnShell: true, Accepted: true, Converged: true,
			Image: []float32{0, 1}, Z: []float32{0, 1}},
		{Restart: 2, Label: 7, Probs: probs(7, 0.95), HTotal: 0.05, Distance: 3, Cost: 0.25, Rho: 0.5, Accepted: true, Converged: true,
			Image: []float32{0.5, 0}, Z: []float32{-1, 0}},
		{Restart: 3, Label: 3, Probs: probs(3, 0.5), HTotal: 1.2, Distance: 1, Cost: 2, Rho: 0.2, Converged: true,
			Image: []float32{0.1, 0.1}, Z: []float32{0, -1}},
		{Restart: 4, Failed: "NaN"},
	}
	p := Defaults()
	p.DedupL1 = 0.01
	s := Summarize(prob.X0, prob.Z0, prob.Models().BNN.Classes, p, exps)
	if s.Restarts != 5 || s.Accepted != 3 || s.Failed != 1 || s.Converged != 4 || s.Duplicates != 0 {
		t.Errorf("counts %+v", s)
	}
	f32 := func(a, b float64) bool { return math.Abs(a-b) < 1e-7 } // H is float32
	if !f32(s.H.Min, 0.05) || !f32(s.H.Max, 0.2) || !f32(s.H.Mean, 0.35/3) || !near(s.D.Mean, 3) {
		t.Errorf("H %+v, d %+v", s.H, s.D)
	}
	if s.ShellFraction != 0.5 { // 2 of the 4 restarts that did not fail
		t.Errorf("shell fraction %v", s.ShellFraction)
	}
	if s.DistinctLabels != 2 || s.LabelCounts[7] != 2 || s.LabelCounts[9] != 1 || !near(s.DistinctFraction, 0.2) {
		t.Errorf("labels %v", s.LabelCounts)
	}
	wantH := -(2.0/3*math.Log(2.0/3) + 1.0/3*math.Log(1.0/3))
	if !near(s.LabelEntropy, wantH) || !near(s.LabelEntropyNorm, wantH/math.Log(10)) {
		t.Errorf("label entropy %v, want %v", s.LabelEntropy, wantH)
	}
	// p(y) ∝ 1/cost_min(y)²: label 7 has 1/0.25² = 16, label 9 has 1/1² = 1.
	if !near(s.LabelDistribution[7], 16.0/17) || !near(s.LabelDistribution[9], 1.0/17) || s.LabelDistribution[3] != 0 {
		t.Errorf("label distribution %v", s.LabelDistribution)
	}
	// Prediction coverage: (1/10) Σ_c max_j p_j(c) over the accepted ones.
	var pc float64
	for c := 0; c < 10; c++ {
		best := 0.0
		for _, e := range exps[:3] {
			best = math.Max(best, float64(e.Probs[c]))
		}
		pc += best / 10
	}
	if math.Abs(s.PredictionCoverage-pc) > 1e-7 {
		t.Errorf("prediction coverage %v, want %v", s.PredictionCoverage, pc)
	}
	// Input space, images (1, .5), (0, 1), (.5, 0) around x0 = (0, .5): L1 distances 1.5, 1, 1.5.
	// K = [[1, 1/2.5, 1/2], [1/2.5, 1, 1/2.5], [1/2, 1/2.5, 1]].
	k := [][]float64{{1, 0.4, 0.5}, {0.4, 1, 0.4}, {0.5, 0.4, 1}}
	det := k[0][0]*(k[1][1]*k[2][2]-k[1][2]*k[2][1]) - k[0][1]*(k[1][0]*k[2][2]-k[1][2]*k[2][0]) + k[0][2]*(k[1][0]*k[2][1]-k[1][1]*k[2][0])
	if !near(s.Input.DPP, det) || !near(s.Input.AvgPairwise, (1.5+1+1.5)/3) {
		t.Errorf("input diversity %+v, want DPP %v and average 4/3", s.Input, det)
	}
	// Coverage: pixel 0: max(x−x0) = 1, max(x0−x) = 0; pixel 1: max = .5, max(x0 − x) = .5 → (1 + 1)/2.
	if !near(s.Input.Coverage, 1) {
		t.Errorf("input coverage %v, want 1", s.Input.Coverage)
	}
	// Latent: points (1,0), (0,1), (−1,0): L2 distances √2, 2, √2; coverage (1+1 + 1+0)/2 = 1.5.
	if !near(s.Latent.AvgPairwise, (2*math.Sqrt2+2)/3) || !near(s.Latent.Coverage, 1.5) {
		t.Errorf("latent diversity %+v", s.Latent)
	}
	if s.Modes[7] != 1 || s.Modes[9] != 1 || s.Modes[3] != 0 || exps[0].Mode != 0 || exps[3].Mode != -1 {
		t.Errorf("modes %v", s.Modes)
	}
}

func TestDedupKeepsTheCheapest(t *testing.T) {
	prob := synthetic(t, []float32{0, 0}, []float32{0})
	exps := []Explanation{
		{Restart: 0, Label: 1, Probs: make([]float32, 10), Cost: 0.9, Accepted: true, Image: []float32{0.5, 0.5}, Z: []float32{0}},
		{Restart: 1, Label: 1, Probs: make([]float32, 10), Cost: 0.3, Accepted: true, Image: []float32{0.5, 0.51}, Z: []float32{0}},
		{Restart: 2, Label: 1, Probs: make([]float32, 10), Cost: 0.5, Accepted: true, Image: []float32{0.9, 0.1}, Z: []float32{1}},
	}
	p := Defaults()
	p.DedupL1 = 0.1
	s := Summarize(prob.X0, prob.Z0, prob.Models().BNN.Classes, p, exps)
	if s.Duplicates != 1 || exps[0].DuplicateOf != 1 || exps[1].DuplicateOf != -1 || exps[2].DuplicateOf != -1 {
		t.Errorf("duplicates %d, marks %d %d %d", s.Duplicates, exps[0].DuplicateOf, exps[1].DuplicateOf, exps[2].DuplicateOf)
	}
}

func TestModesFindSeparatedClusters(t *testing.T) {
	var two, one [][]float64
	for i := 0; i < 12; i++ {
		jitter := float64(i%4) * 0.05
		two = append(two, []float64{jitter, 0}, []float64{5 + jitter, 5})
		one = append(one, []float64{jitter, float64(i) * 0.1})
	}
	assign, k := chooseClusters(two, 1)
	if k != 2 {
		t.Fatalf("two separated blobs gave %d modes", k)
	}
	for i := 0; i < len(two); i += 2 {
		if assign[i] == assign[i+1] || assign[i] != assign[0] {
			t.Fatal("the blobs were not split apart")
		}
	}
	if _, k := chooseClusters(one, 1); k != 1 {
		t.Errorf("one elongated blob gave %d modes", k)
	}
	if s := silhouette(two, assign, 2); s < 0.9 {
		t.Errorf("silhouette of clean clusters %v", s)
	}
}

func TestLabelEntropyCurve(t *testing.T) {
	exps := []Explanation{{Label: 1, Accepted: true}, {Label: 2, Accepted: false}, {Label: 2, Accepted: true}, {Label: 1, Accepted: true}}
	c := LabelEntropyCurve(exps, 10)
	want := []float64{0, 0, math.Log(2), -(2.0/3*math.Log(2.0/3) + 1.0/3*math.Log(1.0/3))}
	for i := range want {
		if !near(c[i], want[i]) {
			t.Errorf("curve %v, want %v", c, want)
		}
	}
}

func TestDeterminant(t *testing.T) {
	if d := determinant([][]float64{{0, 2}, {3, 4}}); d != -6 {
		t.Errorf("det %v, want −6 (needs a pivot)", d)
	}
	if d := determinant([][]float64{{1, 1}, {1, 1}}); d != 0 {
		t.Errorf("singular det %v", d)
	}
}

func TestMostUncertain(t *testing.T) {
	m, _ := shipped()
	prob := uncertainDigit(t)
	confident := m.VAE.DecodeImages(prob.Z0) // a reconstruction: still a plausible digit
	images := append(append([]float32(nil), confident...), prob.X0...)
	got := MostUncertain(m.BNN, images, 1)
	preds := m.BNN.Classify(images)
	want := 0
	if preds[1].Total > preds[0].Total {
		want = 1
	}
	if len(got) != 1 || got[0] != want {
		t.Errorf("MostUncertain = %v, want [%d] (entropies %v, %v)", got, want, preds[0].Total, preds[1].Total)
	}
}
