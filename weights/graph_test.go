package weights_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/deltaclue/deltaclue/internal/testbundle"
	"github.com/deltaclue/deltaclue/weights"
)

// TestGraphDescription: a description whose networks are graphs with every layer of format 2 checks against
// its files, resolves each layer's inputs and readers, says format 2, and opens from a bundle.
func TestGraphDescription(t *testing.T) {
	b, err := testbundle.Graph(5)
	if err != nil {
		t.Fatal(err)
	}
	d := b.Description
	if d.MinFormat() != 2 || d.DenseOnly() {
		t.Errorf("the graph model: format %d, dense only %v", d.MinFormat(), d.DenseOnly())
	}
	used := map[string]bool{}
	for _, n := range append(d.Classifier.Networks, d.VAE.Encoder, d.VAE.Decoder) {
		for _, l := range n.Layers {
			used[l.Op] = true
		}
	}
	for _, op := range weights.Ops {
		if !used[op] && op != weights.OpLogSoftmax && op != weights.OpSigmoid && op != weights.OpMaxPool && op != weights.OpAvgPool && op != weights.OpUpsample {
			t.Errorf("the graph model uses no %s layer", op)
		}
	}
	g, err := d.Classifier.Networks[0].Graph("the classifier", d.InputShape(), b.Files)
	if err != nil {
		t.Fatal(err)
	}
	if g.IsChain() || g.Out != weights.Vector(3) || g.Dropouts != 2 {
		t.Errorf("the classifier's graph: chain %v, out %v, %d dropouts", g.IsChain(), g.Out, g.Dropouts)
	}
	// The stem's ReLU is read by the block's first convolution and by the add; the add reads it and the block.
	stem, add := g.Nodes[2], g.Nodes[7]
	if len(stem.Readers) != 2 || stem.Readers[0] != 3 || stem.Readers[1] != 7 || len(add.From) != 2 || add.From[0] != 2 || add.From[1] != 6 {
		t.Errorf("the stem is read by %v, the add reads %v", stem.Readers, add.From)
	}
	if g.Parameters < 1000 || g.MultiplyAdds < g.Parameters {
		t.Errorf("the classifier: %d parameters, %d multiply-adds", g.Parameters, g.MultiplyAdds)
	}
	opened, err := weights.OpenBundleFiles(b.Bytes, false)
	if err != nil {
		t.Fatal(err)
	}
	if opened.Description.Name != "graph-test" {
		t.Errorf("the bundle opens to %q", opened.Description.Name)
	}
	// A chain is still format 1, and a chain written with names is the same network.
	if weights.DigitsDescription().MinFormat() != 1 {
		t.Error("the digits' chain needs format 2")
	}
}

// TestGraphRefusals: a graph the project cannot run is refused in a sentence naming the network, the layer and
// what is wrong: a cycle, an input that names no layer, merges of shapes that do not fit, a layer nothing reads,
// a softmax inside, groups that do not divide, and graphs too large.
func TestGraphRefusals(t *testing.T) {
	cases := []struct {
		name   string
		change func(layers []weights.Layer) []weights.Layer
		want   string
	}{
		{"a cycle (a layer reading a later one)", func(l []weights.Layer) []weights.Layer { l[3].Inputs = []string{"res"}; return l },
			`layer 3 (conv2d): it reads "res", which is neither "input" nor an earlier layer's name (a layer reads only layers before it: a graph has no cycles)`},
		{"a layer reading itself", func(l []weights.Layer) []weights.Layer { l[7].Inputs = []string{"stem", "res"}; return l },
			`layer 7 (add): it reads "res", which is neither`},
		{"an input that names no layer", func(l []weights.Layer) []weights.Layer { l[7].Inputs = []string{"stem", "nowhere"}; return l },
			`it reads "nowhere"`},
		{"an add of mismatched shapes", func(l []weights.Layer) []weights.Layer { l[7].Inputs = []string{"stem", weights.InputName}; return l },
			"layer 7 (add): its inputs are 8×16×16 and 1×16×16: an add takes inputs of one shape"},
		{"an add of one input", func(l []weights.Layer) []weights.Layer { l[7].Inputs = []string{"block"}; return l },
			"it adds 1 inputs: two or more"},
		{"a concat of mismatched sizes", func(l []weights.Layer) []weights.Layer { l[19].Inputs = []string{"g", "se"}; return l },
			"its inputs are 12×8×8 and 8×16×16: a concat joins channels of one height and width"},
		{"a mul of mismatched shapes", func(l []weights.Layer) []weights.Layer { l[14].Inputs = []string{"r6", weights.InputName}; return l },
			"a mul takes two of one shape, or an image and one value per channel"},
		{"two inputs to a convolution", func(l []weights.Layer) []weights.Layer { l[3].Inputs = []string{"stem", "stem"}; return l },
			"layer 3 (conv2d): it reads 2 inputs: one"},
		{"a layer nothing reads", func(l []weights.Layer) []weights.Layer { l[7].Inputs = []string{"stem", "stem"}; return l },
			"layer 6 (conv2d): nothing reads its output"},
		{"a name given twice", func(l []weights.Layer) []weights.Layer { l[8].Name = "stem"; return l },
			`layer 8 (clip): its name "stem" is taken`},
		{"a name that is the input's", func(l []weights.Layer) []weights.Layer { l[8].Name = weights.InputName; return l },
			`its name "input" is taken`},
		{"a softmax inside", func(l []weights.Layer) []weights.Layer { l[26].Op = weights.OpSoftmax; return l },
			"layer 26 (softmax): a softmax may only end a classifier"},
		{"groups that do not divide", func(l []weights.Layer) []weights.Layer { l[15].Groups = 5; return l },
			"5 groups: a whole divisor of both its 8 input and 12 output channels"},
		{"grouped weights of the wrong shape", func(l []weights.Layer) []weights.Layer { l[15].Groups = 2; return l },
			"the layer needs [12 4 3 3]"},
		{"dilation on a pool", func(l []weights.Layer) []weights.Layer { l[9].Dilation = [2]int{2, 2}; return l },
			"groups and dilation are a convolution's settings"},
		{"a clip upside down", func(l []weights.Layer) []weights.Layer { lo := 7.0; l[8].Min = &lo; return l }, "min 7 is above max 6"},
		{"an ELU without alpha", func(l []weights.Layer) []weights.Layer { l[18].Alpha = 0; return l }, "alpha 0: above 0"},
		{"a gelu of another form", func(l []weights.Layer) []weights.Layer { l[21].Approximate = "sigmoid"; return l }, `approximate "sigmoid"`},
		{"too many layers", func(l []weights.Layer) []weights.Layer {
			for len(l) <= weights.MaxLayers {
				l = append([]weights.Layer{{Op: weights.OpIdentity}}, l...)
			}
			return l
		}, "layers: 1 to 1024"},
	}
	for _, c := range cases {
		b, err := testbundle.Graph(5)
		if err != nil {
			t.Fatal(err)
		}
		d := b.Description
		d.Classifier.Networks[0].Layers = c.change(d.Classifier.Networks[0].Layers)
		err = d.Check(b.Files)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "the classifier") {
			t.Errorf("%s: %v, want it to say %q", c.name, err, c.want)
			continue
		}
		t.Logf("%s: %v", c.name, err)
	}
	// Too large: bounds on parameters and multiply-adds, checked from the settings alone.
	big := weights.Network{File: "x", Layers: []weights.Layer{{Op: weights.OpFlatten}, {Op: weights.OpDense, Out: 1 << 20}, {Op: weights.OpDense, Out: 100}}}
	if _, err := big.Graph("the classifier", weights.Image(3, 32, 32), nil); err == nil || !strings.Contains(err.Error(), "parameters: at most") {
		t.Errorf("a network of 3 G parameters: %v", err)
	}
	wide := weights.Network{File: "x", Layers: []weights.Layer{{Op: weights.OpConv, Out: 64, Kernel: [2]int{9, 9}, Stride: [2]int{1, 1}, Padding: [2]int{4, 4}}}}
	for range 30 {
		wide.Layers = append(wide.Layers, weights.Layer{Op: weights.OpConv, Out: 64, Kernel: [2]int{9, 9}, Stride: [2]int{1, 1}, Padding: [2]int{4, 4}})
	}
	if _, err := wide.Graph("the classifier", weights.Image(3, 128, 128), nil); err == nil || !strings.Contains(err.Error(), "multiply-adds per input: at most") {
		t.Errorf("a network of 270 G multiply-adds: %v", err)
	}
	// The VAE may not end in a softmax.
	b, _ := testbundle.Graph(5)
	b.Description.VAE.Decoder.Layers = append(b.Description.VAE.Decoder.Layers, weights.Layer{Op: weights.OpFlatten}, weights.Layer{Op: weights.OpSoftmax})
	if err := b.Description.Check(b.Files); err == nil || !strings.Contains(err.Error(), "may not end in a softmax") {
		t.Errorf("a decoder ending in a softmax: %v", err)
	}
}

// TestGraphDescriptionRoundTrip: the graph model's description survives JSON (names, inputs, pointers to
// bounds) and checks again.
func TestGraphDescriptionRoundTrip(t *testing.T) {
	b, err := testbundle.Graph(5)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(b.Description)
	d, err := weights.ParseDescription(raw)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Check(b.Files); err != nil {
		t.Fatal(err)
	}
	again, _ := json.Marshal(d)
	if string(again) != string(raw) {
		t.Errorf("the description changed through JSON:\n%s\n%s", raw, again)
	}
}

// TestDropoutFolds: a dropout's masks fold into the dense or conv2d layer that alone reads it (through flatten,
// reshape and identity), as every chain has had them; elsewhere they multiply activations, and a model that
// needs that is not one the dense-only worker runs.
func TestDropoutFolds(t *testing.T) {
	b, err := testbundle.Graph(5)
	if err != nil {
		t.Fatal(err)
	}
	d := b.Description
	g, err := d.Classifier.Networks[0].Graph("the classifier", d.InputShape(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var folds []int
	for i, n := range g.Nodes {
		if n.Op == weights.OpDropout {
			folds = append(folds, g.FoldsInto(i))
		}
	}
	// The channel dropout before the tanh GELU multiplies activations; the unit dropout folds into the last dense.
	if len(folds) != 2 || folds[0] != -1 || g.Nodes[folds[1]].Op != weights.OpDense {
		t.Errorf("the graph model's dropouts fold into %v", folds)
	}
	digits := weights.DigitsDescription()
	if !digits.DenseOnly() {
		t.Error("the digits' MLP is not dense-only")
	}
	// The digits' BNN with its first dropout before its ReLU (a chain of format 1's layers): the masks multiply
	// the activations, which only the full worker runs.
	l := digits.Classifier.Networks[0].Layers
	l[2], l[3] = l[3], l[2]
	if digits.DenseOnly() {
		t.Error("a dropout before a ReLU leaves the model dense-only")
	}
}
