package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gomlx/compute"

	"github.com/deltaclue/deltaclue/engine/anchors"
	"github.com/deltaclue/deltaclue/internal/concrete"
	"github.com/deltaclue/deltaclue/internal/dataset"
	"github.com/deltaclue/deltaclue/internal/modelsource"
	"github.com/deltaclue/deltaclue/training"
	"github.com/deltaclue/deltaclue/weights"
)

// runConcrete trains the concrete models (`make train DATASET=concrete`): the heteroscedastic MC-dropout MLP,
// then the VAE, from data/concrete's training split (80 % of its distinct mixes to train on, 20 % to stop early
// on: training.ConcreteSplit), with fixed seeds; chooses the threshold of sure from the regressor's predictive σ
// over the training mixes (training.ConcreteSure); writes their float32 export with its description into outDir
// and the int8 models the project ships into shipDir, both measured on the committed test split.
func runConcrete(dataDir, outDir, shipDir, only string, maxEpochs int) error {
	raw, split, err := tableData(dataDir, "concrete", concrete.TrainFile, concrete.SplitFile)
	if err != nil {
		return err
	}
	cols := concrete.Columns()
	ranges := training.ConcreteRegression(0) // the ranges the rows are labelled with; τ is not needed for that
	mixes, err := concrete.ReadCSV(cols, bytes.NewReader(raw))
	if err != nil {
		return fmt.Errorf("data/concrete/%s: %v", concrete.TrainFile, err)
	}
	all, err := concrete.Table(cols, mixes, ranges)
	if err != nil {
		return err
	}
	train, val := training.ConcreteSplit(all)
	testMixes, err := concrete.Test()
	if err != nil {
		return err
	}
	test, err := concrete.Table(cols, testMixes, ranges)
	if err != nil {
		return err
	}
	fmt.Printf("concrete: %d mixes to train on, %d to validate on, %d to test on\n", train.Len(), val.Len(), test.Len())
	dataset := weights.Dataset{Source: split.Source, SplitSHA: split.TrainSHA, Train: train.Len(), Validation: val.Len(), Test: test.Len()}
	env := environment()
	backend := training.Backend()
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	descPath := filepath.Join(outDir, weights.DescriptionFile)
	clfPath, vaePath := filepath.Join(outDir, weights.BundleBNN), filepath.Join(outDir, weights.BundleVAE)

	if only == "" || only == "bnn" {
		cfg := training.DefaultConcreteRegressor
		cfg.Log = os.Stdout
		if maxEpochs > 0 {
			cfg.MaxEpochs = maxEpochs
		}
		start := time.Now()
		// τ is chosen from the trained regressor, below; the description it trains with has none yet.
		named, desc, info, err := training.TrainClassifier(backend, cfg, func(rate float64) *weights.Description { return training.ConcreteDescription(rate, 0) }, train, val)
		if err != nil {
			return err
		}
		info["seconds"], info["environment"] = time.Since(start).Seconds(), env
		p := training.NamedTensors(named)
		sure := chooseSure(backend, desc, p, all)
		desc.Regression.Sure = sure
		info["sure"] = map[string]any{"percentile": training.ConcreteSurePercentile, "of": "the predictive σ over the training split's mixes", "mpa": sure}
		q, err := training.MeasureRegression(backend, desc, p, test)
		if err != nil {
			return err
		}
		fmt.Printf("regressor (float32, dropout %.2f) on the test split, trained in %.1fs; τ = %.1f MPa:\n%s\n", training.DropoutRate(desc), info["seconds"], sure, jsonLine(q))
		man := weights.Manifest{Model: "bnn", Dataset: dataset, Training: info, Metrics: map[string]any{"test": q}}
		if err := writeFile(clfPath, man, named); err != nil {
			return err
		}
		if err := writeDescription(descPath, desc); err != nil {
			return err
		}
	}
	if only == "" || only == "vae" {
		trained, err := readDescription(descPath)
		if err != nil {
			return fmt.Errorf("%v: the regressor is trained first (-only bnn)", err)
		}
		clf, err := load(clfPath)
		if err != nil {
			return fmt.Errorf("%v: the regressor is trained first (-only bnn)", err)
		}
		clfTensors, err := training.FileTensors(clf)
		if err != nil {
			return err
		}
		cfg := training.DefaultConcreteVAE
		cfg.Log = os.Stdout
		if maxEpochs > 0 {
			cfg.MaxEpochs = maxEpochs
		}
		start := time.Now()
		named, info, err := training.TrainDescribedVAE(backend, cfg, trained, train, val)
		if err != nil {
			return err
		}
		info["seconds"], info["environment"] = time.Since(start).Seconds(), env
		q, err := training.MeasureTableVAE(backend, trained, training.NamedTensors(named), clfTensors, val)
		if err != nil {
			return err
		}
		fmt.Printf("VAE: best epoch %v, validation ELBO %.3f, trained in %.1fs\n", info["best_epoch"], q.ELBO, info["seconds"])
		man := weights.Manifest{Model: "vae", Dataset: dataset, Training: info}
		if err := writeFile(vaePath, man, named); err != nil {
			return err
		}
	}
	if only == "" || only == "compact" {
		desc, err := readDescription(descPath)
		if err != nil {
			return err
		}
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
			q, err := training.MeasureRegression(backend, desc, p, test)
			if err != nil {
				return nil, nil, err
			}
			v, err := training.MeasureTableVAE(backend, desc, p, p, test)
			if err != nil {
				return nil, nil, err
			}
			fmt.Printf("  regressor: %s\n  VAE: ELBO %.3f, reconstructions in the row's range %.4f, predictive means %.2f MPa apart (RMS)\n", jsonLine(q), v.ELBO, v.ReconLabelAgreement, *v.ReconPredictionShift)
			for _, c := range v.Columns {
				fmt.Printf("    %-18s RMSE %8.3f %-6s (%.3f std)\n", c.Column, *c.RMSE, c.Unit, *c.RMSEOverStd)
			}
			return map[string]any{"test": q}, map[string]any{"test": v}, nil
		}
		// Without the training's seconds, the same data and seeds give the same files (the time is in the float32
		// export's manifests and in docs/regression.md).
		if err := compactBundle(desc, clf, vae, shipDir, "cmd/train -dataset concrete", false, measure); err != nil {
			return err
		}
		return concreteAnchors(shipDir, all)
	}
	if only == "anchors" { // the shipped models' anchors again, without training
		return concreteAnchors(shipDir, all)
	}
	return nil
}

// concreteAnchors writes S2's anchors for the shipped concrete models (engine/anchors on the int8 models the
// page runs): the latent codes of the training mixes, each labelled by the range of its measured strength, whose
// predictive mean falls in that range with σ at most τ, the models' threshold of sure. So S2 starts toward values
// the model is sure of, spread over the target's ranges (a range none reaches is said when S2 runs).
func concreteAnchors(shipDir string, train *dataset.Table) error {
	src, err := modelsource.Open(shipDir)
	if err != nil {
		return err
	}
	tau := src.Description().Regression.Sure
	b, err := anchors.Make(src.Bundle, train, src.Bundle.VAE.Manifest.Dataset, tau)
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
	fmt.Printf("wrote %s (%d bytes): %v anchors per range (σ at most %g MPa)\n", out, len(b), f.Manifest.Metrics[weights.AnchorCounts], tau)
	return nil
}

// chooseSure is the threshold of sure the float32 regressor (tensors p) gives: training.ConcreteSure of its
// predictive σ over every training mix (the validation part's too).
func chooseSure(backend compute.Backend, d *weights.Description, p training.Tensors, train *dataset.Table) float64 {
	preds := training.RegressionPredictions(backend, d, p, train)
	sigmas := make([]float64, len(preds))
	for i, pr := range preds {
		sigmas[i] = pr.Sigma
	}
	return training.ConcreteSure(sigmas)
}

// jsonLine is v as one line of JSON.
func jsonLine(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(b)
}
