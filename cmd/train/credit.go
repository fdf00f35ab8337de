package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/deltaclue/deltaclue/engine/anchors"
	"github.com/deltaclue/deltaclue/internal/credit"
	"github.com/deltaclue/deltaclue/internal/dataset"
	"github.com/deltaclue/deltaclue/internal/modelsource"
	"github.com/deltaclue/deltaclue/training"
	"github.com/deltaclue/deltaclue/weights"
)

// runCredit trains the credit models (`make train DATASET=credit`): the MC-dropout MLP classifier, then the
// mixed-likelihood VAE, from data/credit's training split (80 % to train on, 20 % of each class to stop early
// on: training.CreditSplit), with fixed seeds; writes their float32 export with its description into outDir and
// the int8 models the project ships into shipDir, both measured on the committed test split.
func runCredit(dataDir, outDir, shipDir, only string, maxEpochs int) error {
	raw, split, err := tableData(dataDir, "credit", credit.TrainFile, credit.SplitFile)
	if err != nil {
		return err
	}
	cols := credit.Columns()
	all, err := trainingTable(cols, raw)
	if err != nil {
		return err
	}
	train, val := training.CreditSplit(all)
	test, err := modelsource.CreditTest()
	if err != nil {
		return err
	}
	fmt.Printf("credit: %d applicants to train on, %d to validate on, %d to test on\n", train.Len(), val.Len(), test.Len())
	dataset := weights.Dataset{Source: split.Source, SplitSHA: split.TrainSHA, Train: train.Len(), Validation: val.Len(), Test: test.Len()}
	env := environment()
	backend := training.Backend()
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	descPath := filepath.Join(outDir, weights.DescriptionFile)
	clfPath, vaePath := filepath.Join(outDir, weights.BundleBNN), filepath.Join(outDir, weights.BundleVAE)

	if only == "" || only == "bnn" {
		cfg := training.DefaultCreditClassifier
		cfg.Log = os.Stdout
		if maxEpochs > 0 {
			cfg.MaxEpochs = maxEpochs
		}
		start := time.Now()
		named, desc, info, err := training.TrainClassifier(backend, cfg, training.CreditDescription, train, val)
		if err != nil {
			return err
		}
		info["seconds"], info["environment"] = time.Since(start).Seconds(), env
		q, _ := training.MeasureClassifier(backend, desc, named, test)
		fmt.Printf("classifier (float32, dropout %.2f) on the test split: %+v (trained in %.1fs)\n", training.DropoutRate(desc), q, info["seconds"])
		man := weights.Manifest{Model: "bnn", Dataset: dataset, Training: info, Metrics: map[string]any{"test": q}}
		if err := writeFile(clfPath, man, named); err != nil {
			return err
		}
		if err := writeDescription(descPath, desc); err != nil {
			return err
		}
	}
	// The VAE's part of the description does not depend on the classifier's dropout rate.
	desc := training.CreditDescription(training.DefaultCreditClassifier.Dropouts[0])
	if only == "" || only == "vae" {
		cfg := training.DefaultCreditVAE
		cfg.Log = os.Stdout
		if maxEpochs > 0 {
			cfg.MaxEpochs = maxEpochs
		}
		start := time.Now()
		// Each objective, measured on the validation rows; the one keeping its worst-kept level best is shipped.
		var (
			nameds [][]weights.Named
			infos  []map[string]any
			quals  []training.TableVAEQuality
		)
		clfTensors, err := clfForVAEChoice(clfPath)
		if err != nil {
			return err
		}
		for _, shape := range training.CreditVAEShapes {
			c := cfg
			c.KLWeight, c.FreeBits = shape.KLWeight, shape.FreeBits
			if shape == (training.VAEShape{KLWeight: 1}) {
				c.KLWeight = 0 // the plain ELBO, trained exactly as before the shapes
			}
			t0 := time.Now()
			named, info, err := training.TrainDescribedVAE(backend, c, desc, train, val)
			if err != nil {
				return err
			}
			q, err := training.MeasureTableVAE(backend, desc, training.NamedTensors(named), clfTensors, val)
			if err != nil {
				return err
			}
			fmt.Printf("VAE %v: best epoch %v, validation ELBO %.3f, worst-kept level %.3f, levels not kept %v (%.1fs)\n", shape, info["best_epoch"], q.ELBO, training.WorstLevel(q), q.Unencoded(), time.Since(t0).Seconds())
			for _, c := range q.Columns {
				for _, l := range c.Levels {
					fmt.Printf("    %s = %s: %d of %d kept\n", c.Column, l.Level, l.Kept, l.Rows)
				}
			}
			nameds, infos, quals = append(nameds, named), append(infos, info), append(quals, q)
		}
		k := training.ChooseVAEShape(quals)
		named, info := nameds[k], infos[k]
		var tried []map[string]any
		for i, q := range quals {
			tried = append(tried, map[string]any{"shape": training.CreditVAEShapes[i], "best_epoch": infos[i]["best_epoch"],
				"validation_elbo": q.ELBO, "worst_level": training.WorstLevel(q), "levels_not_kept": q.Unencoded()})
		}
		info["shapes_tried"], info["shape"] = tried, training.CreditVAEShapes[k]
		info["seconds"], info["environment"] = time.Since(start).Seconds(), env
		fmt.Printf("VAE %v chosen, trained in %.1fs\n", training.CreditVAEShapes[k], info["seconds"])
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
		desc := training.CreditDescription(training.DropoutRate(trained))
		clf, err := load(clfPath)
		if err != nil {
			return err
		}
		vae, err := load(vaePath)
		if err != nil {
			return err
		}
		measure := func(clf, vae *weights.File) (map[string]any, map[string]any, error) {
			p, err := training.FileTensors(clf, vae)
			if err != nil {
				return nil, nil, err
			}
			q, _ := training.MeasureClassifierWith(backend, desc, p, test)
			v, err := training.MeasureTableVAE(backend, desc, p, p, test)
			if err != nil {
				return nil, nil, err
			}
			fmt.Printf("  classifier: %+v\n  VAE: ELBO %.3f, reconstructions keeping the label %.4f\n", q, v.ELBO, v.ReconLabelAgreement)
			for _, c := range v.Columns {
				if c.RMSE != nil {
					fmt.Printf("    %-10s RMSE %10.3f %-6s (%.3f std)\n", c.Column, *c.RMSE, c.Unit, *c.RMSEOverStd)
				} else {
					fmt.Printf("    %-10s %.4f decoded to their level\n", c.Column, *c.Correct)
				}
			}
			return map[string]any{"test": q}, map[string]any{"test": v}, nil
		}
		// Without the training's seconds, the same data and seeds give the same files, and so the same fingerprint
		// (the time is in the float32 export's manifests and in docs/shipped-models.md).
		if err := compactBundle(desc, clf, vae, shipDir, "cmd/train -dataset credit", false, measure); err != nil {
			return err
		}
		return creditAnchors(shipDir, all)
	}
	return nil
}

// creditAnchors writes S2's anchors for the shipped credit models (what `make anchors` makes for the images,
// engine/anchors on the int8 models the page runs): the latent codes of the training applicants (the whole
// training split) that the classifier reads right with an entropy below training.CreditAnchorEntropy.
func creditAnchors(shipDir string, train *dataset.Table) error {
	src, err := modelsource.Open(shipDir)
	if err != nil {
		return err
	}
	b, err := anchors.Make(src.Bundle, train, src.Bundle.VAE.Manifest.Dataset, training.CreditAnchorEntropy)
	if err != nil {
		return err
	}
	out := filepath.Join(shipDir, weights.BundleAnchors)
	if err := os.WriteFile(out, b, 0o644); err != nil {
		return err
	}
	f, err := weights.Decode(out, b)
	if err != nil {
		return err
	}
	fmt.Printf("wrote %s (%d bytes): %v anchors per class (entropy below %g nats)\n", out, len(b), f.Manifest.Metrics[weights.AnchorCounts], training.CreditAnchorEntropy)
	return nil
}

// tableSplit is what a table's split.json says that the manifests record.
type tableSplit struct {
	Source   string `json:"source"`
	TrainSHA string `json:"train_sha256"`
}

// tableData reads a table's training split (trainFile, a CSV file) and its split.json (splitFile) from the data
// folder's name/, saying to run `make data DATASET=name` when either is missing.
func tableData(dataDir, name, trainFile, splitFile string) ([]byte, tableSplit, error) {
	var split tableSplit
	dir := filepath.Join(dataDir, name)
	raw, err := os.ReadFile(filepath.Join(dir, trainFile))
	if err != nil {
		return nil, split, fmt.Errorf("%v: run `make data DATASET=%s` first", err, name)
	}
	b, err := os.ReadFile(filepath.Join(dir, splitFile))
	if err != nil {
		return nil, split, fmt.Errorf("%v: run `make data DATASET=%s` first", err, name)
	}
	return raw, split, json.Unmarshal(b, &split)
}

// trainingTable reads the training split's CSV (data/credit/train.csv) with the committed schema.
func trainingTable(cols weights.Columns, raw []byte) (*dataset.Table, error) {
	rows, labels, err := cols.ReadCSV(bytes.NewReader(raw), credit.LabelColumn, credit.Classes)
	if err != nil {
		return nil, fmt.Errorf("data/credit/%s: %v", credit.TrainFile, err)
	}
	return dataset.NewTable(cols, rows, labels)
}

// clfForVAEChoice reads the float32 classifier the VAE's validation measure uses for its label agreement (the
// choice of objective reads only the levels kept).
func clfForVAEChoice(path string) (training.Tensors, error) {
	clf, err := load(path)
	if err != nil {
		return nil, fmt.Errorf("%v: the classifier is trained first (-only bnn)", err)
	}
	return training.FileTensors(clf)
}
