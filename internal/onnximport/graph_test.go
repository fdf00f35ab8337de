//go:build !js

package onnximport

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/deltaclue/deltaclue/engine"
	"github.com/deltaclue/deltaclue/internal/onnxfile"
	"github.com/deltaclue/deltaclue/internal/ortnode"
	"github.com/deltaclue/deltaclue/internal/testbundle"
	"github.com/deltaclue/deltaclue/internal/testenv"
	"github.com/deltaclue/deltaclue/weights"
)

// torchvisionModels are graphs.py's models from torchvision.
var torchvisionModels = []string{"resnet18", "mobilenet_v2", "efficientnet_b0"}

// exportGraphs runs testdata/graphs.py for the models named into a temporary folder: NAME_13.onnx,
// NAME_17.onnx and NAME_18.onnx each.
func exportGraphs(t *testing.T, names ...string) string {
	t.Helper()
	modules := []string{"torch", "onnx"}
	for _, name := range names {
		if slices.Contains(torchvisionModels, name) {
			modules = []string{"torch", "onnx", "torchvision"} // Debian's python3-torchvision
		}
	}
	py := testenv.Python(t, "the import of graphs is not checked against PyTorch's exports", modules...)
	dir := t.TempDir()
	if out, err := exec.Command(py, append([]string{"testdata/graphs.py", dir}, names...)...).CombinedOutput(); err != nil {
		t.Fatalf("graphs.py: %v\n%s", err, out)
	}
	return dir
}

// tinyVAE is a VAE for a classifier of input in, so that the classifier makes a bundle the engine loads: an
// encoder to 2 latent values and a decoder back, dense.
func tinyVAE(in weights.Shape) (*weights.VAE, []weights.Named) {
	r := rand.New(rand.NewPCG(1, 2))
	values := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(r.NormFloat64() * 0.05)
		}
		return v
	}
	n := in.Size()
	tensors := []weights.Named{
		{Name: "vae/enc/weights", Shape: []int{n, 2}, Values: values(2 * n)}, {Name: "vae/enc/biases", Shape: []int{2}, Values: values(2)},
		{Name: "vae/dec/weights", Shape: []int{2, n}, Values: values(2 * n)}, {Name: "vae/dec/biases", Shape: []int{n}, Values: values(n)},
	}
	return &weights.VAE{Latent: 2, Likelihood: weights.LikelihoodGaussian,
		Encoder: weights.Network{File: weights.BundleVAE, Layers: []weights.Layer{{Op: weights.OpFlatten},
			{Op: weights.OpDense, Out: 2, Weights: "vae/enc/weights", Bias: "vae/enc/biases"}}},
		Decoder: weights.Network{File: weights.BundleVAE, Layers: []weights.Layer{
			{Op: weights.OpDense, Out: n, Weights: "vae/dec/weights", Bias: "vae/dec/biases"},
			{Op: weights.OpReshape, Shape: []int{in.C, in.H, in.W}}}},
	}, tensors
}

// lastGemm is the name of the file's last Gemm node, where the tests place MC dropout.
func lastGemm(m *onnxfile.Model) string {
	name := ""
	for _, n := range m.Graph.Nodes {
		if n.Op == "Gemm" {
			name = n.Name
		}
	}
	return name
}

// engineLacksGraphs says why the engine does not run graph descriptions yet ("" once it does): engine.Load of
// testbundle.Graph, a description of every layer of format 2, fails.
var engineLacksGraphs = sync.OnceValue(func() string {
	b, err := testbundle.Graph(1)
	if err == nil {
		_, _, err = engine.Load(b.Description, b.Files)
	}
	if err != nil {
		return err.Error()
	}
	return ""
})

// needEngineGraphs skips the test, loudly, until the engine loads graph descriptions: the conversion is then
// checked, and its agreement with the runtime waits.
func needEngineGraphs(t *testing.T) {
	t.Helper()
	if why := engineLacksGraphs(); why != "" {
		t.Skipf("SKIPPED: the engine does not load graph descriptions yet (engine.Load of testbundle.Graph: %s): the conversion is checked, its agreement with the runtime is not", why)
	}
}

// agree describes the converted classifier net of the file at path as a bundle (with a tiny VAE) and checks
// the engine's forward against the independent runtime on 8 random inputs, as the import does.
func agree(t *testing.T, path string, net *Network, ort *ortnode.Runtime) Agreement {
	t.Helper()
	needEngineGraphs(t)
	vae, vaeTensors := tinyVAE(net.In)
	classes := make([]string, net.Out.Size())
	for i := range classes {
		classes[i] = string(rune('a' + i))
	}
	d, files, err := Describe(Parts{Classifier: []*Network{net}, VAE: vae, VAETensors: vaeTensors},
		Info{Name: "graph", Classes: classes, Samples: 4, MaskSeed: 1})
	if err != nil {
		t.Fatalf("describe: %v", err)
	}
	if d.Format != weights.DescriptionFormat {
		t.Errorf("a graph's description is format %d, want %d", d.Format, weights.DescriptionFormat)
	}
	r := rand.New(rand.NewPCG(3, 4))
	x := make([]float32, 8*net.In.Size())
	for i := range x {
		x[i] = r.Float32()
	}
	got, err := Check(context.Background(), d, files, []File{{Role: "the classifier", Path: path, Net: net}}, x, 8, ort)
	if err != nil {
		t.Fatal(err)
	}
	return got[0]
}

// TestGraphModels: classifiers with branches, exported by PyTorch at opsets 13, 17 and 18 (the opset-17 file
// raised to 18 as opset 18 writes ReduceMean), become networks of the layers expected, with MC dropout placed
// before their last Gemm (-dropout), and the engine's forward of each gives the independent runtime's
// probabilities within Tolerance on random inputs: small ResNets and a MobileNetV2 block (PyTorch's fused
// BatchNorm and the import's folding of it, into a depthwise convolution too), pre-activation blocks and a DenseNet block (BatchNorm that cannot fold: batch-norm layers),
// SiLU, GELU (Erf and tanh), MobileNetV2's and EfficientNet's blocks (ReLU6, depthwise, squeeze-and-
// excitation), and the other activations with grouped and dilated convolutions.
func TestGraphModels(t *testing.T) {
	checkGraphs(t, map[string]map[string]int{
		"resnet":        {"conv2d": 6, "relu": 5, "add": 2, "avg-pool": 1, "flatten": 1, "dropout": 1, "dense": 1},
		"resnet_raw":    {"conv2d": 6, "relu": 5, "add": 2, "avg-pool": 1, "flatten": 1, "dropout": 1, "dense": 1},
		"preact":        {"conv2d": 3, "batch-norm": 3, "relu": 3, "add": 2, "max-pool": 1, "flatten": 1, "dropout": 1, "dense": 1},
		"densenet":      {"conv2d": 4, "batch-norm": 4, "relu": 4, "concat": 3, "avg-pool": 1, "flatten": 1, "dropout": 1, "dense": 1},
		"silu":          {"conv2d": 2, "silu": 2, "flatten": 1, "dropout": 1, "dense": 1},
		"gelu":          {"flatten": 1, "dense": 3, "gelu": 2, "dropout": 1},
		"mobilenet":     {"conv2d": 4, "clip": 3, "add": 1, "avg-pool": 1, "flatten": 1, "dropout": 1, "dense": 1},
		"mobilenet_raw": {"conv2d": 4, "clip": 3, "add": 1, "avg-pool": 1, "flatten": 1, "dropout": 1, "dense": 1},
		"efficientnet":  {"conv2d": 6, "silu": 4, "sigmoid": 1, "mul": 1, "add": 1, "avg-pool": 2, "flatten": 1, "dropout": 1, "dense": 1},
		"zoo": {"conv2d": 3, "conv-transpose2d": 1, "hard-swish": 1, "elu": 1, "batch-norm": 1, "softplus": 1, "hard-sigmoid": 1,
			"leaky-relu": 1, "add": 1, "max-pool": 1, "flatten": 1, "dropout": 1, "dense": 1},
	})
}

// TestTorchvisionModels: torchvision's resnet18 (11 M parameters), mobilenet_v2 and efficientnet_b0, of 4
// classes with a 1-channel first convolution, at opsets 13, 17 and 18, as TestGraphModels.
func TestTorchvisionModels(t *testing.T) {
	checkGraphs(t, map[string]map[string]int{
		"resnet18":        {"conv2d": 20, "relu": 17, "add": 8, "max-pool": 1, "avg-pool": 1, "flatten": 1, "dropout": 1, "dense": 1},
		"mobilenet_v2":    {"conv2d": 52, "clip": 35, "add": 10, "avg-pool": 1, "flatten": 1, "dropout": 1, "dense": 1},
		"efficientnet_b0": {"conv2d": 81, "silu": 49, "sigmoid": 16, "mul": 16, "add": 9, "avg-pool": 17, "flatten": 1, "dropout": 1, "dense": 1},
	})
}

// checkGraphs exports each model named at opsets 13, 17 and 18, converts it with MC dropout before its last
// Gemm, compares its layers' ops with those wanted, and checks the engine against the independent runtime.
func checkGraphs(t *testing.T, want map[string]map[string]int) {
	dir := exportGraphs(t, slices.Sorted(maps.Keys(want))...)
	var ort *ortnode.Runtime
	for _, name := range slices.Sorted(maps.Keys(want)) {
		for _, opset := range []int64{13, 17, 18} {
			t.Run(fmt.Sprintf("%s_%d", name, opset), func(t *testing.T) {
				path := filepath.Join(dir, fmt.Sprintf("%s_%d.onnx", name, opset))
				m, err := onnxfile.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if m.Opset() != opset {
					t.Fatalf("the file is opset %d", m.Opset())
				}
				net := convertFile(t, path, Options{Prefix: "bnn", Dropout: map[string]float64{lastGemm(m): 0.2}})
				counts := map[string]int{}
				named := 0
				for _, l := range net.Layers {
					counts[l.Op]++
					if l.Name != "" {
						named++
					}
				}
				if !maps.Equal(counts, want[name]) {
					t.Errorf("layers %v, want %v", counts, want[name])
				}
				if branches := name != "silu" && name != "gelu"; branches != (named > 0) {
					t.Errorf("%d layers are named", named)
				}
				if ReferenceLacks(m) != "" && ort == nil {
					ort = testenv.ONNXRuntime(t, filepath.Join("..", ".."), "graphs with ops onnx-gomlx does not run are not checked")
				}
				a := agree(t, path, net, ort)
				t.Logf("%d layers (%d named); the engine agrees with %s within %.2g (%d values)", len(net.Layers), named, a.Runtime, a.MaxDiff, a.Values)
			})
		}
	}
}

// TestGraphStructure: what the converted networks read, for three of the exports: the ResNet's skip
// connections and downsampling shortcut, the DenseNet block's concatenations of the running input, and the
// EfficientNet block's squeeze-and-excitation, whose per-channel gate multiplies the depthwise convolution's
// SiLU; the unfolded ResNet folds its BatchNormalization nodes to PyTorch's own fused convolutions.
func TestGraphStructure(t *testing.T) {
	dir := exportGraphs(t, "resnet", "resnet_raw", "densenet", "efficientnet")
	reads := func(n *Network) []string {
		index := map[string]int{weights.InputName: -1}
		var out []string
		for i, l := range n.Layers {
			from := []int{i - 1}
			if len(l.Inputs) > 0 {
				from = nil
				for _, in := range l.Inputs {
					from = append(from, index[in])
				}
			}
			if l.Name != "" {
				index[l.Name] = i
			}
			if len(l.Inputs) > 0 {
				var s []string
				for _, f := range from {
					s = append(s, n.Layers[max(f, 0)].Op+"@"+itoa(f))
				}
				out = append(out, l.Op+"@"+itoa(i)+"<-"+strings.Join(s, ","))
			}
		}
		return out
	}
	resnet := convertFile(t, filepath.Join(dir, "resnet_17.onnx"), Options{Prefix: "p"})
	// The stem (conv, relu) read by block 1's conv and its skip; block 2's shortcut conv reads block 1's relu.
	// Only the layers that read more than the layer before them are listed.
	want := []string{"add@5<-conv2d@4,relu@1", "conv2d@10<-relu@6", "add@11<-conv2d@9,conv2d@10"}
	if got := reads(resnet); !slices.Equal(got, want) {
		t.Errorf("the ResNet reads %v, want %v", got, want)
	}
	raw := convertFile(t, filepath.Join(dir, "resnet_raw_17.onnx"), Options{Prefix: "p"})
	if !slices.Equal(reads(raw), want) || !slices.Equal(layerOps(raw), layerOps(resnet)) {
		t.Errorf("the unfolded ResNet: %v, %v", layerOps(raw), reads(raw))
	}
	for i := range raw.Tensors {
		if d := maxAbsDiff(raw.Tensors[i].Values, resnet.Tensors[i].Values); d > 1e-5 {
			t.Errorf("tensor %s: the import's folding differs from PyTorch's by %.2g", raw.Tensors[i].Name, d)
		}
	}
	// Each dense layer's batch-norm, relu and conv read the concatenation before them in turn.
	dense := convertFile(t, filepath.Join(dir, "densenet_17.onnx"), Options{Prefix: "p"})
	want = []string{"concat@4<-conv2d@0,conv2d@3", "concat@8<-concat@4,conv2d@7", "concat@12<-concat@8,conv2d@11"}
	if got := reads(dense); !slices.Equal(got, want) {
		t.Errorf("the DenseNet block reads %v, want %v", got, want)
	}
	eff := convertFile(t, filepath.Join(dir, "efficientnet_17.onnx"), Options{Prefix: "p"})
	want = []string{"mul@11<-silu@5,sigmoid@10", "add@13<-silu@1,conv2d@12"}
	if got := reads(eff); !slices.Equal(got, want) {
		t.Errorf("the EfficientNet block reads %v, want %v", got, want)
	}
}

// itoa is a layer's index, "input" for the network's input.
func itoa(i int) string {
	if i < 0 {
		return weights.InputName
	}
	return strconv.Itoa(i)
}

// TestGraphRefusals: PyTorch's exports of an LSTM, of attention (a product of two activations) and of a
// NonZero are refused at that node, by name and op, in a sentence that says what the import reads.
func TestGraphRefusals(t *testing.T) {
	dir := exportGraphs(t, "lstm", "attention", "nonzero")
	for name, want := range map[string]string{
		"lstm":      "node /lstm/LSTM (LSTM): a recurrent layer, which the engine does not run; the import reads Gemm",
		"attention": "node /MatMul (MatMul): a product of two activations (attention's scores, or its weights times the values); the import reads MatMul by constant weights",
		"nonzero":   "node /NonZero (NonZero): an op whose output's shape depends on the data, which the engine does not run; the import reads Gemm",
	} {
		for _, opset := range []string{"13", "17", "18"} {
			m, err := onnxfile.ReadFile(filepath.Join(dir, name+"_"+opset+".onnx"))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Convert(m, Options{}); err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("%s at opset %s: %v, want %q", name, opset, err, want)
			}
		}
	}
}
