package main

import (
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/glam"
	"github.com/deltaclue/deltaclue/internal/modelsource"
	"github.com/deltaclue/deltaclue/internal/ortnode"
	"github.com/deltaclue/deltaclue/internal/testenv"
	"github.com/deltaclue/deltaclue/training"
	"github.com/deltaclue/deltaclue/weights"
)

// ortDir is the repository's onnxruntime-web folder (make onnxruntime), or the test skips loudly (fails under CI=true).
func ortDir(t *testing.T) string {
	t.Helper()
	testenv.ONNXRuntime(t, filepath.Join("..", ".."), "the import cannot check a decoder's ConvTranspose")
	return filepath.Join("..", "..", ortnode.DefaultDir)
}

var example struct {
	once sync.Once
	dir  string
	err  error
}

// pytorchExample runs examples/pytorch/train_export.py once for the package's tests, small (600 training
// images, 5 s a model), into a folder kept until the tests end.
func pytorchExample(t *testing.T) string {
	t.Helper()
	py := testenv.Python(t, "the PyTorch example is not run", "torch", "onnx")
	example.once.Do(func() {
		dir, err := os.MkdirTemp("", "deltaclue-example-")
		if err != nil {
			example.err = err
			return
		}
		example.dir = dir
		out, err := exec.Command(py, "../../examples/pytorch/train_export.py", dir, "--train", "600", "--test", "120", "--epochs", "15", "--vae-epochs", "15", "--threads", "1").CombinedOutput()
		if err != nil {
			example.err = fmt.Errorf("%v\n%s", err, out)
		}
	})
	if example.err != nil {
		t.Fatalf("the PyTorch example: %v", example.err)
	}
	return example.dir
}

var exampleClasses = "T-shirt or top,Trouser,Pullover,Dress,Coat,Sandal,Shirt,Sneaker,Bag,Ankle boot"

func exampleArgs(ex, out, ort string) []string {
	return []string{"-classifier", filepath.Join(ex, "clf.onnx"), "-encoder", filepath.Join(ex, "enc.onnx"), "-decoder", filepath.Join(ex, "dec.onnx"),
		"-data", filepath.Join(ex, "train"), "-test", filepath.Join(ex, "test"), "-classes", exampleClasses, "-dropout", "/fc2/Gemm=0.3",
		"-out", out, "-onnxruntime", ort, "-max-uncertain", "60", "-min-members", "2"}
}

// TestImportThePyTorchExample: the example's PyTorch models become a models folder that opens, explains and
// predicts, with its global view measured; the float32 import's eval-mode probabilities are PyTorch's own within 1e-4; nothing is overwritten.
func TestImportThePyTorchExample(t *testing.T) {
	ex := pytorchExample(t)
	ort := ortDir(t)
	out := filepath.Join(t.TempDir(), "clothes")
	if err := importCmd(exampleArgs(ex, out, ort)); err != nil {
		t.Fatal(err)
	}
	m, err := modelsource.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	d := m.Description()
	if d.Name != "clothes" || len(d.Classes) != 10 || d.Classes[0] != "T-shirt or top" || m.Test == nil || m.Test.Len() != 120 {
		t.Fatalf("the folder: name %q, classes %v, test items %v", d.Name, d.Classes, m.Test)
	}
	// The int8 measures in the manifests were the engine's; gomlx's graphs, which measured them before, agree.
	tensors, err := training.FileTensors(m.Bundle.Files[weights.BundleBNN], m.Bundle.Files[weights.BundleVAE])
	if err != nil {
		t.Fatal(err)
	}
	wc, _ := training.MeasureClassifierWith(training.Backend(), d, tensors, m.Test)
	wv := training.MeasureDescribedVAE(training.Backend(), d, tensors, tensors, m.Test)
	test, _ := m.Bundle.Files[weights.BundleBNN].Manifest.Metrics["test"].(map[string]any)
	clf, _ := test["classifier"].(map[string]any)
	vae, _ := test["vae"].(map[string]any)
	for _, c := range []struct {
		name  string
		got   any
		gomlx float64
	}{{"accuracy", clf["accuracy"], wc.Accuracy}, {"NLL", clf["nll"], wc.NLL}, {"ECE", clf["ece"], wc.ECE}, {"AUROC", clf["auroc"], wc.AUROC},
		{"reconstructions keep the label", vae["recon_label_agreement"], wv.ReconLabelAgreement}} {
		if v, ok := c.got.(float64); !ok || math.Abs(v-c.gomlx) > 1e-6 {
			t.Errorf("the int8 %s measured by the import: %v; gomlx: %v", c.name, c.got, c.gomlx)
		}
	}
	if _, ts, err := glam.LoadBundle(m.Bundle); err != nil || m.Bundle.Anchors == nil || len(ts) == 0 {
		t.Errorf("the folder's anchors and translations: %d translations, %v", len(ts), err)
	}
	// The global view, measured on the test items: what the page's section shows.
	var global globalReport
	if err := json.Unmarshal(m.Groups, &global); err != nil || len(global.Groups) == 0 || global.Uncertain == 0 {
		t.Errorf("the folder's groups.json: %d groups over %d uncertain test items, %v", len(global.Groups), global.Uncertain, err)
	}
	var probe struct {
		Probs []float64 `json:"probs"`
		Label int       `json:"label"`
	}
	b, err := os.ReadFile(filepath.Join(ex, "probe.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		t.Fatal(err)
	}
	p, said, err := predictFile(filepath.Join(out, "float32"), filepath.Join(ex, "probe.png"), true)
	if err != nil {
		t.Fatal(err)
	}
	if said != "" {
		t.Errorf("a 28×28 grey image was changed: %s", said)
	}
	worst := 0.0
	for k, v := range probe.Probs {
		worst = math.Max(worst, math.Abs(v-float64(p.Probs[k])))
	}
	if worst > 1e-4 || p.Label != probe.Label {
		t.Errorf("predict -eval on the float32 import: %v (label %d), PyTorch %v (label %d): differs by %.3g", p.Probs, p.Label, probe.Probs, probe.Label, worst)
	}
	var probes []struct {
		File  string    `json:"file"`
		Probs []float64 `json:"probs"`
		Label int       `json:"label"`
	}
	if b, err = os.ReadFile(filepath.Join(ex, "probes.json")); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &probes); err != nil || len(probes) != 16 {
		t.Fatalf("probes.json: %d probes, %v", len(probes), err)
	}
	for _, pr := range probes {
		p, _, err := predictFile(filepath.Join(out, "float32"), filepath.Join(ex, pr.File), true)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range pr.Probs {
			worst = math.Max(worst, math.Abs(v-float64(p.Probs[k])))
		}
		if p.Label != pr.Label {
			t.Errorf("%s: predict -eval reads %d, PyTorch %d", pr.File, p.Label, pr.Label)
		}
	}
	if worst > 1e-4 {
		t.Errorf("predict -eval on the float32 import differs from PyTorch by %.3g over 17 images", worst)
	}
	t.Logf("predict -eval agrees with PyTorch within %.2g over 17 images", worst)
	mc, _, err := predictFile(out, filepath.Join(ex, "probe.png"), false)
	if err != nil {
		t.Fatal(err)
	}
	if !(mc.Epistemic > 0) || math.Abs(float64(mc.Entropy-mc.Aleatoric-mc.Epistemic)) > 1e-5 || mc.Class != d.Classes[mc.Label] {
		t.Errorf("the MC-dropout prediction: %+v", mc)
	}
	if err := explain([]string{"-models", out, "-index", "3", "-n", "8", "-out", filepath.Join(t.TempDir(), "explained")}); err != nil {
		t.Errorf("explain on the imported models: %v", err)
	}
	if err := importCmd(exampleArgs(ex, out, ort)); err == nil || !strings.Contains(err.Error(), "already holds models") {
		t.Errorf("importing over a models folder: %v", err)
	}
}

// TestImportRefusals: what the import cannot do is refused in a sentence that names it, and nothing is written.
func TestImportRefusals(t *testing.T) {
	ex := pytorchExample(t)
	ort := ortDir(t)
	tmp := t.TempDir()
	with := func(args []string, flag, value string) []string {
		out := append([]string(nil), args...)
		for i := 0; i < len(out); i += 2 {
			if out[i] == flag {
				if value == "" {
					return append(out[:i], out[i+2:]...)
				}
				out[i+1] = value
				return out
			}
		}
		return append(out, flag, value)
	}
	base := exampleArgs(ex, filepath.Join(tmp, "m"), ort)
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"no classifier", with(base, "-classifier", ""), "-classifier names"},
		{"no decoder", with(base, "-decoder", ""), "-encoder and -decoder"},
		{"no data", with(base, "-data", ""), "-data names"},
		{"a file that is not ONNX", with(base, "-encoder", filepath.Join(ex, "probe.json")), "probe.json"},
		{"the encoder as decoder", with(base, "-decoder", filepath.Join(ex, "enc.onnx")), "decoder"},
		{"dropout at a node that is not there", with(base, "-dropout", "/nowhere/Gemm=0.3"), "/nowhere/Gemm"},
		{"a dropout rate of 1", with(base, "-dropout", "/fc2/Gemm=1"), "between 0 and 1"},
		{"no dropout", with(base, "-dropout", ""), "-dropout NODE=RATE"},
		{"too few classes", with(base, "-classes", "T-shirt or top,Trouser"), "not among the classes"},
		{"a bad name", with(base, "-name", "My Model"), "lowercase"},
		{"no second checker", with(base, "-onnxruntime", filepath.Join(tmp, "none")), "ConvTranspose"},
		{"an absurd test share", with(base, "-test-share", "1.5"), "-test-share"},
	} {
		err := importCmd(c.args)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line naming %q", c.name, err, c.want)
		}
		if _, err := os.Stat(filepath.Join(tmp, "m")); err == nil {
			t.Fatalf("%s: the folder was written", c.name)
		}
	}
	// Images of another size than the classifier's input.
	small := filepath.Join(tmp, "small", "Trouser")
	os.MkdirAll(small, 0o755)
	writeGreyPNG(t, filepath.Join(small, "a.png"), 14, 14)
	if err := importCmd(with(with(base, "-data", filepath.Join(tmp, "small")), "-test", "")); err == nil || !strings.Contains(err.Error(), "14×14") {
		t.Errorf("images of 14×14: %v", err)
	}
}

// writeGreyPNG writes a w×h grey PNG, a gradient.
func writeGreyPNG(t *testing.T, path string, w, h int) {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 7)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
}

// TestImportTrainsAVAE: without -encoder and -decoder the import trains a convolutional VAE on the data (gomlx),
// reports its ELBO, and the folder explains; the data may be an IDX file as MNIST's are distributed.
func TestImportTrainsAVAE(t *testing.T) {
	ex := pytorchExample(t)
	out := filepath.Join(t.TempDir(), "trained")
	args := []string{"-classifier", filepath.Join(ex, "clf.onnx"), "-dropout", "/fc2/Gemm=0.3", "-data", filepath.Join(ex, "train"),
		"-test", filepath.Join(ex, "test"), "-classes", exampleClasses, "-out", out, "-vae-epochs", "3", "-latent", "8", "-max-uncertain", "10", "-global=false"}
	if err := importCmd(args); err != nil {
		t.Fatal(err)
	}
	m, err := modelsource.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	d := m.Description()
	if d.VAE.Latent != 8 || d.VAE.LogVariance == nil || d.VAE.Likelihood != "bernoulli" {
		t.Errorf("the trained VAE: %+v", d.VAE)
	}
	q, err := measureQuality(&models{Models: m}, m.Test)
	if err != nil {
		t.Fatal(err)
	}
	// A decoder that knows nothing (every pixel 0.5) scores 784·ln 2 = 543 nats an image; three epochs on 540
	// images do better by some tens.
	if q.ELBO == nil || !(*q.ELBO > -784*math.Ln2+15) || !(*q.ELBO < 0) || q.ReconstructionsKeepLabel <= 0 {
		t.Errorf("the trained VAE's quality: ELBO %v, reconstructions keep the label %.2f", q.ELBO, q.ReconstructionsKeepLabel)
	}
	t.Logf("trained VAE: ELBO %.1f nats, reconstructions keep the label %.2f, accuracy %.3f", *q.ELBO, q.ReconstructionsKeepLabel, q.Accuracy)
	if err := importCmd(append(args[:len(args):len(args)], "-encoder", filepath.Join(ex, "enc.onnx"))); err == nil || !strings.Contains(err.Error(), "both, or neither") {
		t.Errorf("an encoder without a decoder: %v", err)
	}
}

// TestImportAnEnsemble: -classifier a.onnx,b.onnx makes a deep ensemble of those members (here the example's
// network twice, so its eval-mode mean is PyTorch's softmax), and -dropout with an ensemble is refused.
func TestImportAnEnsemble(t *testing.T) {
	ex := pytorchExample(t)
	ort := ortDir(t)
	out := filepath.Join(t.TempDir(), "pair")
	clf := filepath.Join(ex, "clf.onnx")
	args := []string{"-classifier", clf + "," + clf, "-encoder", filepath.Join(ex, "enc.onnx"), "-decoder", filepath.Join(ex, "dec.onnx"),
		"-data", filepath.Join(ex, "train"), "-test", filepath.Join(ex, "test"), "-classes", exampleClasses, "-out", out,
		"-onnxruntime", ort, "-max-uncertain", "5", "-global=false"}
	if err := importCmd(append(args[:len(args):len(args)], "-dropout", "/fc2/Gemm=0.3")); err == nil || !strings.Contains(err.Error(), "ensemble") {
		t.Errorf("-dropout with an ensemble: %v", err)
	}
	if err := importCmd(args); err != nil {
		t.Fatal(err)
	}
	m, err := modelsource.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	if c := m.Description().Classifier; c.Uncertainty != "ensemble" || c.Samples != 2 || len(c.Networks) != 2 {
		t.Errorf("the classifier: %s of %d (%d networks)", c.Uncertainty, c.Samples, len(c.Networks))
	}
	var probe struct{ Probs []float64 }
	b, _ := os.ReadFile(filepath.Join(ex, "probe.json"))
	json.Unmarshal(b, &probe)
	p, _, err := predictFile(filepath.Join(out, "float32"), filepath.Join(ex, "probe.png"), false)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range probe.Probs {
		if math.Abs(v-float64(p.Probs[k])) > 1e-4 {
			t.Fatalf("the two-member ensemble's class %d: %v, PyTorch %v", k, p.Probs[k], v)
		}
	}
}

// TestImportAWeakModel: a classifier never sure of a class (here its training images of "T-shirt or top" are
// the example's trousers, which it reads as Trouser) is imported, not refused: that class gets no anchors, the
// import says so in one line and goes on, and S2 runs on the folder over the other nine classes.
func TestImportAWeakModel(t *testing.T) {
	ex := pytorchExample(t)
	ort := ortDir(t)
	tmp := t.TempDir()
	data := filepath.Join(tmp, "train")
	for _, class := range strings.Split(exampleClasses, ",") {
		from := class
		if class == "T-shirt or top" {
			from = "Trouser"
		}
		if err := os.CopyFS(filepath.Join(data, class), os.DirFS(filepath.Join(ex, "train", from))); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(tmp, "weak")
	args := append(exampleArgs(ex, out, ort), "-data", data, "-max-uncertain", "5", "-global=false") // (the later flags win)
	log, err := os.CreateTemp(tmp, "stdout")
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stdout
	os.Stdout = log
	err = importCmd(args)
	os.Stdout = saved
	said, _ := os.ReadFile(log.Name())
	if err != nil {
		t.Fatalf("%v\n%s", err, said)
	}
	line := regexp.MustCompile(`(?m)^anchors: no training image of class T-shirt or top is read right with entropy below [0-9.]+ nats: S2 starts no restart toward it$`)
	if !line.Match(said) {
		t.Errorf("the import does not say which class has no anchors:\n%s", said)
	}
	m, err := modelsource.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	search, err := clue.LoadBundle(m.Bundle)
	if err != nil {
		t.Fatal(err)
	}
	if got := search.UnanchoredClasses(); len(got) != 1 || got[0] != 0 {
		t.Errorf("the classes without anchors: %v, want [0]", got)
	}
	if err := explain([]string{"-models", out, "-index", "3", "-scheme", "S2", "-n", "18", "-max-steps", "10", "-out", filepath.Join(tmp, "explained")}); err != nil {
		t.Errorf("explain -scheme S2 on the weak model: %v", err)
	}
}
