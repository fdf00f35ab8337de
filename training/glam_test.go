package training

import (
	"math"
	"testing"

	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/deltaclue/deltaclue/engine"
	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/rng"
	"github.com/deltaclue/deltaclue/mnist"
	"github.com/deltaclue/deltaclue/weights"
)

// glamMembers is a small group: the first n uncertain test digits (H_total > 0.3), their codes and images.
func glamMembers(t *testing.T, n int) (z, x []float32, m *clue.Models) {
	t.Helper()
	m, err := clue.ShippedModels()
	if err != nil {
		t.Fatal(err)
	}
	set, err := mnist.HeldOut()
	if err != nil {
		t.Fatal(err)
	}
	img := make([]float32, 784)
	for i := 0; i < set.Len() && len(x) < n*784; i++ {
		set.Float(i, img)
		if m.BNN.Classify(img)[0].Total > 0.3 {
			x = append(x, img...)
		}
	}
	return m.VAE.Encode(x), x, m
}

// TestTranslationLossIsTheEngines checks GLAM-CLUE's group loss in gomlx against the engine's δ-CLUE objective
// (H_total, λx = 0.03 and λy = 1 with the one-hot target as y0, so that d_y = −log p̄_b), member by member at a
// translated point, and its gomlx gradient with respect to t against the mean of the engine's ∂L_i/∂z_i.
func TestTranslationLossIsTheEngines(t *testing.T) {
	const n, b, lambdaX = 6, 7, 0.03
	z, x, m := glamMembers(t, n)
	vae, _ := weights.ShippedVAE()
	bnn, _ := weights.ShippedBNN()
	latent := m.VAE.Latent
	shift := make([]float32, latent)
	r := rng.New(3)
	for j := range shift {
		shift[j] = float32(r.Norm() * 0.4)
	}
	va, ba, p := vae.Manifest.Architecture, bnn.Manifest.Architecture, FileParams(vae, bnn)
	exec := MustNewExec(Backend(), func(tn, zn, xn *Node) []*Node {
		loss := TranslationLoss(va, ba, p, tn, zn, xn, b, lambdaX)
		return []*Node{loss, Gradient(loss, tn)[0]}
	})
	out := exec.MustExec(tensors.FromFlatDataAndDimensions(shift, 1, latent), tensors.FromFlatDataAndDimensions(z, n, latent),
		tensors.FromFlatDataAndDimensions(x, n, 784))
	gLoss := float64(tensors.MustCopyFlatData[float32](out[0])[0])
	gGrad := tensors.MustCopyFlatData[float32](out[1])

	onehot := make([]float32, 10)
	onehot[b] = 1
	var eLoss float64
	eGrad := make([]float64, latent)
	for i := 0; i < n; i++ {
		o, err := engine.NewObjective(m.VAE, m.BNN, 1, engine.LossWeights{Total: 1, LambdaX: lambdaX, LambdaY: 1}, x[i*784:(i+1)*784], onehot)
		if err != nil {
			t.Fatal(err)
		}
		if err := o.Graph.SetBatch(1); err != nil {
			t.Fatal(err)
		}
		for j := 0; j < latent; j++ {
			o.Z.Data[j] = z[i*latent+j] + shift[j]
		}
		o.Forward()
		o.Backward()
		eLoss += float64(o.Cost.Data[0]) / n
		for j := 0; j < latent; j++ {
			eGrad[j] += float64(o.Z.Grad[j]) / n
		}
	}
	if d := math.Abs(gLoss - eLoss); d > 1e-4*math.Abs(eLoss) {
		t.Errorf("group loss: gomlx %.7f, engine %.7f", gLoss, eLoss)
	}
	for j := range eGrad {
		if d := math.Abs(float64(gGrad[j]) - eGrad[j]); d > 1e-3*math.Abs(eGrad[j])+1e-5 {
			t.Errorf("∂L/∂t[%d]: gomlx %.6g, engine %.6g", j, gGrad[j], eGrad[j])
		}
	}
	t.Logf("group loss %.6f (engine %.6f); n = %d, b = %d", gLoss, eLoss, n, b)
}

// TestTrainTranslation checks that Adam lowers the group loss and that the same inputs give the same bits.
func TestTrainTranslation(t *testing.T) {
	const n, b = 8, 9
	z, x, _ := glamMembers(t, n)
	vae, _ := weights.ShippedVAE()
	bnn, _ := weights.ShippedBNN()
	c := DefaultTranslation
	c.Steps = 15
	t1, losses, err := TrainTranslation(Backend(), vae, bnn, z, x, n, b, c)
	if err != nil {
		t.Fatal(err)
	}
	if len(losses) != c.Steps+1 || !(losses[c.Steps] < 0.8*losses[0]) {
		t.Errorf("losses %v: want %d values, the last below 0.8× the first", losses, c.Steps+1)
	}
	t2, _, _ := TrainTranslation(Backend(), vae, bnn, z, x, n, b, c)
	for j := range t1 {
		if math.Float32bits(t1[j]) != math.Float32bits(t2[j]) {
			t.Fatalf("two runs differ at t[%d]: %v, %v", j, t1[j], t2[j])
		}
	}
	for _, bad := range []func() error{
		func() error { _, _, err := TrainTranslation(Backend(), vae, bnn, z[:5], x, n, b, c); return err },
		func() error { _, _, err := TrainTranslation(Backend(), vae, bnn, z, x, n, 10, c); return err },
		func() error {
			cc := c
			cc.LR = math.NaN()
			_, _, err := TrainTranslation(Backend(), vae, bnn, z, x, n, b, cc)
			return err
		},
	} {
		if bad() == nil {
			t.Error("a bad input was accepted")
		}
	}
}

// TestDescribedTranslationLossIsTheDigits: the group loss built from a description (any models) is, on the
// digits' description, the loss of the digits' own graphs, and so is its gradient with respect to t.
func TestDescribedTranslationLossIsTheDigits(t *testing.T) {
	const n, b, lambdaX = 5, 3, 0.03
	z, x, m := glamMembers(t, n)
	vae, _ := weights.ShippedVAE()
	bnn, _ := weights.ShippedBNN()
	latent := m.VAE.Latent
	shift := make([]float32, latent)
	r := rng.New(4)
	for j := range shift {
		shift[j] = float32(r.Norm() * 0.4)
	}
	pt, err := FileTensors(vae, bnn)
	if err != nil {
		t.Fatal(err)
	}
	d := weights.DigitsDescription()
	va, ba, p := vae.Manifest.Architecture, bnn.Manifest.Architecture, FileParams(vae, bnn)
	exec := MustNewExec(Backend(), func(tn, zn, xn *Node) []*Node {
		old := TranslationLoss(va, ba, p, tn, zn, xn, b, lambdaX)
		described := DescribedTranslationLoss(d, pt, tn, zn, xn, b, lambdaX)
		return []*Node{old, described, Gradient(old, tn)[0], Gradient(described, tn)[0]}
	})
	out := exec.MustExec(tensors.FromFlatDataAndDimensions(shift, 1, latent), tensors.FromFlatDataAndDimensions(z, n, latent),
		tensors.FromFlatDataAndDimensions(x, n, 784))
	v := func(i int) []float32 { return tensors.MustCopyFlatData[float32](out[i]) }
	if a, c := v(0)[0], v(1)[0]; math.Abs(float64(a-c)) > 1e-5*math.Abs(float64(a)) {
		t.Errorf("group loss: the digits' graphs %.7f, the description's %.7f", a, c)
	}
	g1, g2 := v(2), v(3)
	for j := range g1 {
		if math.Abs(float64(g1[j]-g2[j])) > 1e-4*math.Abs(float64(g1[j]))+1e-6 {
			t.Errorf("∂L/∂t[%d]: the digits' graphs %.6g, the description's %.6g", j, g1[j], g2[j])
		}
	}
}
