package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/mnist"
	"github.com/deltaclue/deltaclue/weights"
)

// carlaData is the data CARLA's yNN searches for neighbours: CARLA takes the whole dataset (data.df). For the
// shipped digits, the 10,000 digits of `make data` (train, validation and test splits) when dir holds them, and
// otherwise the 2,000 test digits committed in mnist/heldout.dcd.gz, the only split the repository ships; for
// other models, their test items, and nothing (no images: yNN is left out) when they have none. The labels are
// the BNN's (the most probable class of its predictive mean), as CARLA's are the model's.
//
// An empty dir means the digits' test split.
func carlaData(dir string, m *models) (clue.NeighbourData, error) {
	bnn, size := m.search.BNN, m.input().Size()
	labels := func(images []float32) func([]int) []int {
		return func(idx []int) []int {
			batch := make([]float32, 0, len(idx)*size)
			for _, i := range idx {
				batch = append(batch, images[i*size:(i+1)*size]...)
			}
			out := make([]int, len(idx))
			for k, p := range bnn.Classify(batch) {
				out[k] = p.Label()
			}
			return out
		}
	}
	if !m.ShippedDigits {
		if m.Test == nil {
			return clue.NeighbourData{}, nil
		}
		images := flatten(m.Test)
		return clue.NeighbourData{Images: images, Labels: labels(images), Name: "the models' " + m.items(m.Test.Len(), "test")}, nil
	}
	all, err := readAllSplits(dir)
	if dir == "" {
		err = fs.ErrNotExist
	}
	if err == nil {
		return clue.NeighbourData{Images: all, Labels: labels(all), Name: fmt.Sprintf("the %d digits of `make data` (train, validation, test)", len(all)/mnist.Pixels)}, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return clue.NeighbourData{}, err
	}
	test, err := mnist.HeldOut()
	if err != nil {
		return clue.NeighbourData{}, err
	}
	images := test.Floats()
	return clue.NeighbourData{Images: images, Labels: labels(images),
		Name: fmt.Sprintf("the %d committed test digits; make data gives all 10000", test.Len())}, nil
}

// readAllSplits reads train.dcd, val.dcd and test.dcd from dir, after checking that split.json is the split
// the shipped models were trained on; an error wrapping fs.ErrNotExist when the folder has no data.
func readAllSplits(dir string) ([]float32, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "split.json"))
	if err != nil {
		return nil, err
	}
	var split struct {
		SHA string `json:"split_sha256"`
	}
	if err := json.Unmarshal(raw, &split); err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Join(dir, "split.json"), err)
	}
	vae, err := weights.ShippedVAE()
	if err != nil {
		return nil, err
	}
	if split.SHA != vae.Manifest.Dataset.SplitSHA {
		return nil, fmt.Errorf("%s holds split %s, not the models' split %s: run `make data` again", dir, split.SHA, vae.Manifest.Dataset.SplitSHA)
	}
	var images []float32
	for _, name := range []string{"train.dcd", "val.dcd", "test.dcd"} {
		s, err := mnist.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		at := len(images)
		images = append(images, make([]float32, s.Len()*mnist.Pixels)...)
		for i := 0; i < s.Len(); i++ {
			s.Float(i, images[at+i*mnist.Pixels:at+(i+1)*mnist.Pixels])
		}
	}
	return images, nil
}
