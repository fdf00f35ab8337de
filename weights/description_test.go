package weights

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func shippedFiles(t testing.TB) map[string]*File {
	t.Helper()
	v, err1 := ShippedVAE()
	b, err2 := ShippedBNN()
	a, err3 := ShippedAnchors()
	for _, err := range []error{err1, err2, err3} {
		if err != nil {
			t.Fatal(err)
		}
	}
	return map[string]*File{BundleVAE: v, BundleBNN: b, BundleAnchors: a}
}

// TestDigitsDescription: the digits' description checks against the shipped files, and the shipped bundle
// carries it (and opens to it); a bundle without one is taken to be the digits' once its files agree.
func TestDigitsDescription(t *testing.T) {
	d := DigitsDescription()
	if err := d.Check(shippedFiles(t)); err != nil {
		t.Fatal(err)
	}
	if d.Name != "digits" || len(d.Classes) != 10 || d.Classes[7] != "7" || d.InputShape() != Image(1, 28, 28) || d.Input.Noun != "digit" {
		t.Errorf("the digits' description: %+v", d)
	}
	b, err := OpenBundleFiles(ShippedBundle(), false)
	if err != nil {
		t.Fatal(err)
	}
	if b.Description.Name != "digits" || len(b.Files) != 4 {
		t.Errorf("the shipped bundle opens to %q with %d weights files", b.Description.Name, len(b.Files))
	}
	// Made from the files' manifests, the description is the shipped one, field for field.
	files := shippedFiles(t)
	made, _ := json.Marshal(DescribeFiles(files[BundleVAE], files[BundleBNN]))
	shipped, _ := json.Marshal(d)
	if string(made) != string(shipped) {
		t.Errorf("the description made from the files' manifests:\n%s\nthe shipped one:\n%s", made, shipped)
	}
	old := EncodeBundle([]BundleFile{{BundleVAE, vaeBytes}, {BundleBNN, bnnBytes}, {BundleAnchors, anchorBytes}})
	if b, err := OpenBundleFiles(old, false); err != nil || b.Description.Name != "digits" {
		t.Errorf("a bundle made before descriptions: %v", err)
	}
}

// TestDescriptionRefusals: what makes a description one the project cannot run is refused in a sentence that
// says what and where, whether the bundle carries it or is taken to be the digits'.
func TestDescriptionRefusals(t *testing.T) {
	files := shippedFiles(t)
	cases := []struct {
		name   string
		change func(d *Description)
		want   string
	}{
		{"a layer the engine does not run", func(d *Description) { d.Classifier.Networks[0].Layers[2].Op = "lstm" }, `layer 2 (lstm): the engine does not run "lstm"`},
		{"shapes that do not chain", func(d *Description) { d.Classifier.Networks[0].Layers[4].Out = 64 }, `tensor "bnn/1/weights" is [256 128]`},
		{"a decoder that does not give the input", func(d *Description) {
			d.VAE.Decoder.Layers = d.VAE.Decoder.Layers[:len(d.VAE.Decoder.Layers)-1]
			d.VAE.Decoder.Layers = append(d.VAE.Decoder.Layers, Layer{Op: OpReshape, Shape: []int{4, 14, 14}})
		}, "the VAE's decoder ends in 4×14×14, not the classifier's input 1×28×28"},
		{"an encoder that misses the latent", func(d *Description) { d.VAE.Latent = 8 }, "not the latent size 8"},
		{"a log-variance head that misses the latent", func(d *Description) {
			enc := d.VAE.Encoder.Layers
			d.VAE.LogVariance = &Network{File: d.VAE.Encoder.File, Layers: enc[:len(enc)-2]}
		}, "the VAE's log-variance ends in 256 values, not the latent size 16"},
		{"classes the classifier does not give", func(d *Description) { d.Classes = d.Classes[:9] }, "not the 9 classes"},
		{"a class named twice", func(d *Description) { d.Classes[3] = "2" }, `class 3's name "2" is given twice`},
		{"a missing tensor", func(d *Description) { d.VAE.Encoder.Layers[1].Weights = "encoder/9/weights" }, `has no tensor "encoder/9/weights"`},
		{"a file the bundle does not hold", func(d *Description) { d.VAE.Encoder.File = "other.dcw" }, `"other.dcw", which the bundle does not hold`},
		{"a convolution of a vector", func(d *Description) {
			d.Classifier.Networks[0].Layers = append([]Layer{{Op: OpFlatten}}, d.Classifier.Networks[0].Layers...)
			d.Classifier.Networks[0].Layers[1] = Layer{Op: OpConv, Out: 4, Kernel: [2]int{3, 3}, Stride: [2]int{1, 1}, Weights: "w", Bias: "b"}
		}, "it takes an image, not 784 values"},
		{"a window that does not fit", func(d *Description) {
			d.Classifier.Networks[0].Layers[0] = Layer{Op: OpMaxPool, Kernel: [2]int{40, 40}, Stride: [2]int{1, 1}}
		}, "does not fit 1×28×28"},
		{"an MC-dropout classifier without dropout", func(d *Description) {
			l := d.Classifier.Networks[0].Layers
			d.Classifier.Networks[0].Layers = append(append(append([]Layer{}, l[:3]...), l[4:6]...), l[7:]...)
		}, "has no dropout layer"},
		{"an ensemble with too few members", func(d *Description) { d.Classifier.Uncertainty = UncertaintyEnsemble }, "an ensemble of 20 members names 1 networks"},
		{"colour on one channel", func(d *Description) { d.Input.Drawing = DrawColour }, `drawn as "colour" with 1 channels`},
		{"two channels", func(d *Description) { d.Input.Channels = 2 }, "has 2 channels"},
		{"a dropout rate of 1", func(d *Description) { d.Classifier.Networks[0].Layers[3].Rate = 1 }, "rate 1: above 0 and below 1"},
		{"a name with spaces", func(d *Description) { d.Name = "my model" }, `the model's name "my model"`},
		{"a future format", func(d *Description) { d.Format = 9 }, "format 9"},
		{"weights on a ReLU", func(d *Description) { d.Classifier.Networks[0].Layers[2].Weights = "bnn/0/weights" }, "it has no weights, but names some"},
		{"a graph's layers on a format 1 description", func(d *Description) {
			d.Format = 1
			d.Classifier.Networks[0].Layers[2].Op = OpSiLU
		}, "says format 1, but its networks are graphs or use layers of format 2"},
		{"a reshape that loses values", func(d *Description) {
			d.VAE.Decoder.Layers[len(d.VAE.Decoder.Layers)-1].Shape = []int{1, 28, 27}
		}, "784 values cannot become 1×28×27: 784 values against 756"},
	}
	for _, c := range cases {
		d := DigitsDescription()
		c.change(d)
		err := d.Check(files)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want it to say %q", c.name, err, c.want)
			continue
		}
		t.Logf("%s: %v", c.name, err)
		// The same through a bundle that carries it.
		raw, _ := json.Marshal(d)
		b := EncodeBundle([]BundleFile{{DescriptionFile, raw}, {BundleVAE, vaeBytes}, {BundleBNN, bnnBytes}, {BundleAnchors, anchorBytes}})
		if _, err := OpenBundleFiles(b, false); err == nil || !strings.Contains(err.Error(), "model.json") {
			t.Errorf("%s: a bundle carrying it opens (%v)", c.name, err)
		}
	}
	for name, raw := range map[string]string{
		"not JSON":          "{",
		"an unknown field":  `{"format": 1, "colour_depth": 8}`,
		"two objects":       `{"format": 1} {}`,
		"a string for size": `{"format": 1, "input": {"height": "28"}}`,
	} {
		if _, err := ParseDescription([]byte(raw)); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
}

// FuzzDescription: any bytes as a bundle's description are parsed and checked against the shipped files
// without a panic, and what passes can be built on: its networks chain to the shapes Check promised.
func FuzzDescription(f *testing.F) {
	f.Add(digitsJSON)
	f.Add([]byte(`{"format": 1, "name": "x"}`))
	f.Add([]byte(`{"format":1,"name":"c","title":"","input":{"height":8,"width":8,"channels":3,"range":[0,1],"drawing":"colour","noun":"x"},` +
		`"classes":["a","b"],"classifier":{"uncertainty":"ensemble","samples":1,"networks":[{"file":"bnn.dcw","layers":[` +
		`{"op":"conv2d","out":2,"kernel":[3,3],"stride":[2,2],"padding":[1,1],"weights":"w","bias":"b"},{"op":"max-pool","kernel":[2,2],"stride":[2,2]},` +
		`{"op":"upsample","scale":[2,2]},{"op":"conv-transpose2d","out":1,"kernel":[2,2],"stride":[2,2],"output_padding":[1,1]},{"op":"flatten"},{"op":"dense","out":2}]}]}}`))
	// The digits' BNN as a graph: its first hidden layer added to itself by name, and a GELU.
	g := DigitsDescription()
	l := g.Classifier.Networks[0].Layers
	l[2].Name = "h"
	g.Format, g.Classifier.Networks[0].Layers = DescriptionFormat, append(append(append([]Layer{}, l[:3]...),
		Layer{Op: OpAdd, Inputs: []string{"h", "h"}}, Layer{Op: OpGELU, Approximate: ApproximateTanh}), l[3:]...)
	if seed, err := json.Marshal(g); err == nil {
		f.Add(seed)
	}
	// A table (format 3), whose files are added to the shipped ones.
	if seed, err := json.Marshal(tableDescription()); err == nil {
		f.Add(seed)
	}
	files := shippedFiles(f)
	for name, file := range tableFiles(f, 5) {
		files[name] = file
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ParseDescription(data)
		if err != nil {
			return
		}
		if err := d.Check(files); err != nil {
			if err.Error() == "" {
				t.Fatal("an empty refusal")
			}
			return
		}
		if out, _, err := d.VAE.Decoder.Chain("decoder", Vector(d.VAE.Latent), files); err != nil || out.Size() != d.InputShape().Size() {
			t.Fatalf("a description that checks: its decoder gives %v, %v", out, err)
		}
		if d.Check(nil) != nil {
			t.Fatal("it checks against its files but not on its own")
		}
		if d.Input.IsTable() {
			// A table that checks flattens to what its networks read, and a row of its columns' midpoints
			// (a category's first level) standardises to that width and back.
			c := d.Input.Columns
			row := make([]float64, len(c))
			for i, col := range c {
				if col.Kind != ColumnCategory {
					row[i] = (col.Range[0] + col.Range[1]) / 2
					if col.Kind == ColumnInteger {
						row[i] = math.Floor(row[i])
					}
				}
			}
			if err := c.CheckRow(row); err != nil {
				t.Fatalf("the columns' midpoints: %v", err)
			}
			x, err := c.Standardise(row)
			if err != nil || len(x) != d.InputShape().Size() {
				t.Fatalf("a row standardises to %d values (%v), the input is %v", len(x), err, d.InputShape())
			}
			if _, err := c.Unstandardise(x); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestBundleFingerprint: the digits' bundle keeps the fingerprint its links have always carried, with its
// model.json or without; the same weights described otherwise are other models.
func TestBundleFingerprint(t *testing.T) {
	want, err := ShippedFingerprint()
	if err != nil {
		t.Fatal(err)
	}
	b, err := OpenBundleFiles(ShippedBundle(), false)
	if err != nil {
		t.Fatal(err)
	}
	old, err := OpenBundleFiles(EncodeBundle([]BundleFile{{BundleVAE, vaeBytes}, {BundleBNN, bnnBytes}, {BundleAnchors, anchorBytes}}), false)
	if err != nil {
		t.Fatal(err)
	}
	if b.Fingerprint() != want || old.Fingerprint() != want {
		t.Errorf("fingerprints %08x (with model.json) and %08x (without), want %08x", b.Fingerprint(), old.Fingerprint(), want)
	}
	d := DigitsDescription()
	d.Classes[0] = "zero"
	raw, _ := json.Marshal(d)
	renamed, err := OpenBundleFiles(EncodeBundle([]BundleFile{{DescriptionFile, raw}, {BundleVAE, vaeBytes}, {BundleBNN, bnnBytes}, {BundleAnchors, anchorBytes}}), false)
	if err != nil {
		t.Fatal(err)
	}
	if renamed.Fingerprint() == want {
		t.Error("the digits' weights with another class's name keep the digits' fingerprint")
	}
}
