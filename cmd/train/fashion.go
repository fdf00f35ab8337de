package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gomlx/compute"

	"github.com/deltaclue/deltaclue/mnist"
	"github.com/deltaclue/deltaclue/training"
	"github.com/deltaclue/deltaclue/weights"
)

// runFashion trains the Fashion-MNIST models (`make train DATASET=fashion`): the convolutional MC-dropout
// classifier, then the convolutional VAE, from data/fashion; writes their float32 export with its description
// into outDir, measured on the test split, and the int8 models the project ships into shipDir, measured again.
func runFashion(dataDir, outDir, shipDir, only string, maxEpochs int) error {
	dir := filepath.Join(dataDir, "fashion")
	read := func(name string) (*mnist.Set, error) {
		s, err := mnist.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("%v: run `make data DATASET=fashion` first", err)
		}
		return s, nil
	}
	train, err := read("train.dcd")
	if err != nil {
		return err
	}
	val, err := read("val.dcd")
	if err != nil {
		return err
	}
	test, err := read("test.dcd")
	if err != nil {
		return err
	}
	var split struct {
		SHA    string `json:"split_sha256"`
		Source string `json:"source"`
	}
	raw, err := os.ReadFile(filepath.Join(dir, "split.json"))
	if err != nil {
		return fmt.Errorf("%v: run `make data DATASET=fashion` first", err)
	}
	if err := json.Unmarshal(raw, &split); err != nil {
		return err
	}
	dataset := weights.Dataset{Source: split.Source, SplitSHA: split.SHA, Train: train.Len(), Validation: val.Len(), Test: test.Len()}
	env := environment()
	backend := training.Backend()
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	descPath := filepath.Join(outDir, weights.DescriptionFile)
	clfPath, vaePath := filepath.Join(outDir, weights.BundleBNN), filepath.Join(outDir, weights.BundleVAE)

	if only == "" || only == "bnn" {
		cfg := training.DefaultFashionClassifier
		cfg.Log = os.Stdout
		if maxEpochs > 0 {
			cfg.MaxEpochs = maxEpochs
		}
		start := time.Now()
		named, desc, info, err := training.TrainClassifier(backend, cfg, training.FashionDescription, train, val)
		if err != nil {
			return err
		}
		info["seconds"], info["environment"] = time.Since(start).Seconds(), env
		q, _ := training.MeasureClassifier(backend, desc, named, test)
		fmt.Printf("classifier (float32) on the test split: %+v (trained in %.0fs)\n", q, info["seconds"])
		man := weights.Manifest{Model: "bnn", Dataset: dataset, Training: info, Metrics: map[string]any{"test": q}}
		if err := writeFile(clfPath, man, named); err != nil {
			return err
		}
		if err := writeDescription(descPath, desc); err != nil {
			return err
		}
	}
	// The VAE's part of the description does not depend on the classifier's dropout rate: the VAE can train
	// before, or beside, the classifier.
	desc := training.FashionDescription(training.DefaultFashionClassifier.Dropouts[0])
	if only == "" || only == "vae" {
		cfg := training.DefaultFashionVAE
		cfg.Log = os.Stdout
		if maxEpochs > 0 {
			cfg.MaxEpochs = maxEpochs
		}
		start := time.Now()
		named, info, err := training.TrainDescribedVAE(backend, cfg, desc, train, val)
		if err != nil {
			return err
		}
		info["seconds"], info["environment"] = time.Since(start).Seconds(), env
		man := weights.Manifest{Model: "vae", Dataset: dataset, Training: info}
		if err := writeFile(vaePath, man, named); err != nil {
			return err
		}
	}
	if only == "" || only == "compact" {
		trained, err := readDescription(descPath)
		if err != nil {
			return err
		}
		// The description as the code gives it now, with the dropout rate the classifier was trained with.
		desc := training.FashionDescription(training.DropoutRate(trained))
		return compactFashion(backend, desc, clfPath, vaePath, shipDir, test)
	}
	return nil
}

func writeFile(path string, man weights.Manifest, named []weights.Named) error {
	b, err := weights.Encode(man, named)
	if err != nil {
		return err
	}
	fmt.Printf("wrote %s (%d bytes)\n", path, len(b))
	return os.WriteFile(path, b, 0o644)
}

func writeDescription(path string, d *weights.Description) error {
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

func readDescription(path string) (*weights.Description, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%v: train the classifier first (-only bnn)", err)
	}
	var d weights.Description
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return &d, nil
}

// compactFashion converts the float32 export into the int8 models the project ships (a float32 scale per
// output unit or channel, biases float32), measures both on the test split, and writes the description and the
// two files into shipDir with the measures in their manifests.
func compactFashion(backend compute.Backend, desc *weights.Description, clfPath, vaePath, shipDir string, test *mnist.Set) error {
	clf, err := load(clfPath)
	if err != nil {
		return err
	}
	vae, err := load(vaePath)
	if err != nil {
		return err
	}
	measure := func(clf, vae *weights.File) (map[string]any, map[string]any, error) {
		pc, err := training.FileTensors(clf)
		if err != nil {
			return nil, nil, err
		}
		pv, err := training.FileTensors(vae)
		if err != nil {
			return nil, nil, err
		}
		q, _ := training.MeasureClassifierWith(backend, desc, pc, test)
		v := training.MeasureDescribedVAE(backend, desc, pv, pc, test)
		fmt.Printf("  classifier: %+v\n  VAE: %+v\n", q, v)
		return map[string]any{"test": q}, map[string]any{"test": v}, nil
	}
	return compactBundle(desc, clf, vae, shipDir, "cmd/train -dataset fashion", true, measure)
}

// compactBundle converts a float32 classifier and VAE into the int8 models the project ships (a float32 scale
// per output unit or channel, biases float32), measures both with measure, checks the description against the
// int8 files, and writes the description and the two files into shipDir with the measures in their manifests
// (the float32 ones in the compaction records). tool names the command in the manifests; withTime records the
// training's seconds in them too (then a retraining gives the same payloads but not the same files).
func compactBundle(desc *weights.Description, clf, vae *weights.File, shipDir, tool string, withTime bool,
	measure func(clf, vae *weights.File) (map[string]any, map[string]any, error)) error {
	fmt.Println("float32 on the test split:")
	clf32, vae32, err := measure(clf, vae)
	if err != nil {
		return err
	}
	in := desc.InputShape()
	type part struct {
		layers []weights.Layer
		in     weights.Shape
	}
	convert := func(f *weights.File, metrics map[string]any, parts ...part) (*weights.File, []weights.Named, error) {
		var named []weights.Named
		for _, t := range f.Manifest.Tensors {
			v, err := f.Tensor(t.Name, t.Shape...)
			if err != nil {
				return nil, nil, err
			}
			named = append(named, weights.Named{Name: t.Name, Shape: t.Shape, Values: v})
		}
		for _, p := range parts {
			if named, err = training.CompactNetwork(named, p.layers, p.in); err != nil {
				return nil, nil, err
			}
		}
		man := weights.Manifest{Model: f.Manifest.Model, Dataset: f.Manifest.Dataset,
			Training:   map[string]any{"trained_by": tool},
			Compaction: &weights.Compaction{Tool: tool, Source: f.Manifest.PayloadSHA, Float32Metrics: metrics}}
		if withTime {
			man.Training["seconds"] = f.Manifest.Training["seconds"]
		}
		b, err := weights.Encode(man, named)
		if err != nil {
			return nil, nil, err
		}
		out, err := weights.Decode(f.Name, b)
		return out, named, err
	}
	clf8, clfNamed, err := convert(clf, clf32, part{desc.Classifier.Networks[0].Layers, in})
	if err != nil {
		return err
	}
	vae8, vaeNamed, err := convert(vae, vae32, part{desc.VAE.Encoder.Layers, in}, part{desc.VAE.LogVariance.Layers, in},
		part{desc.VAE.Decoder.Layers, weights.Vector(desc.VAE.Latent)})
	if err != nil {
		return err
	}
	if err := desc.Check(map[string]*weights.File{weights.BundleBNN: clf8, weights.BundleVAE: vae8}); err != nil {
		return err
	}
	fmt.Println("int8 on the test split:")
	clfQ, vaeQ, err := measure(clf8, vae8)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(shipDir, 0o755); err != nil {
		return err
	}
	// Re-encode with the int8 measures in the manifests.
	for _, w := range []struct {
		name    string
		f       *weights.File
		named   []weights.Named
		metrics map[string]any
	}{{weights.BundleBNN, clf8, clfNamed, clfQ}, {weights.BundleVAE, vae8, vaeNamed, vaeQ}} {
		man := w.f.Manifest
		man.Metrics = w.metrics
		if err := writeFile(filepath.Join(shipDir, w.name), man, w.named); err != nil {
			return err
		}
	}
	return writeDescription(filepath.Join(shipDir, weights.DescriptionFile), desc)
}
