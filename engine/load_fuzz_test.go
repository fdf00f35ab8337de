package engine

import (
	"encoding/json"
	"testing"

	"github.com/deltaclue/deltaclue/internal/testbundle"
	"github.com/deltaclue/deltaclue/weights"
)

// FuzzLoad: any description that Check accepts against a bundle's files can be built and run: engine.Load
// succeeds and an image goes through the encoder, the decoder and the classifier forward and backward without
// a panic, every output finite. What Check refuses, Load refuses too, with a sentence. (The files are the grey
// convolutional test bundle's, so that conv, pooling, dropout on channels and a transposed convolution are in
// reach of the mutations; a description named "graph-test" gets the graph test bundle's, so that every layer of
// a graph, names and inputs, merges and dropout on activations are too.)
func FuzzLoad(f *testing.F) {
	grey, err := testbundle.Grey(1)
	if err != nil {
		f.Fatal(err)
	}
	seed, _ := json.Marshal(grey.Description)
	f.Add(seed)
	colour, err := testbundle.Colour(2)
	if err != nil {
		f.Fatal(err)
	}
	other, _ := json.Marshal(colour.Description)
	f.Add(other)
	graph, err := testbundle.Graph(3)
	if err != nil {
		f.Fatal(err)
	}
	seed, _ = json.Marshal(graph.Description)
	f.Add(seed)
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := weights.ParseDescription(data)
		if err != nil {
			return
		}
		files := grey.Files
		if d.Name == graph.Description.Name {
			files = graph.Files
		}
		checked := d.Check(files)
		v, b, err := Load(d, files)
		if checked != nil {
			if err == nil || err.Error() == "" {
				t.Fatalf("Check refused it (%v) but Load gave %v", checked, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("Check accepted it but Load refused it: %v", err)
		}
		if PointStepMultiplyAdds(v, b)+v.encoder.multiplyAdds() > 2e7 {
			return // valid, but too slow to run at fuzzing's pace
		}
		x := make([]float32, b.Input.Size())
		for i := range x {
			x[i] = float32(i%7) / 7
		}
		z := v.Encode(x)
		img := v.DecodeImages(z)
		if len(z) != v.Latent || len(img) != b.Input.Size() {
			t.Fatalf("encode gave %d values and decode %d, want %d and %d", len(z), len(img), v.Latent, b.Input.Size())
		}
		for _, u := range b.Classify(img) {
			if len(u.Probs) != b.Classes || !(u.Total >= 0) {
				t.Fatalf("a prediction %+v for %d classes", u, b.Classes)
			}
		}
		o, err := NewObjective(v, b, 2, LossWeights{Total: 1, LambdaX: 0.03}, x, nil)
		if err != nil {
			t.Fatal(err)
		}
		copy(o.Z.Data, z)
		copy(o.Z.Data[v.Latent:], z)
		o.Forward()
		o.Backward()
	})
}
