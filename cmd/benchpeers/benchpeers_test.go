//go:build !js

package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/deltaclue/deltaclue/cmd/benchset/nativebench"
	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/internal/benchenv"
	"github.com/deltaclue/deltaclue/internal/browser"
	"github.com/deltaclue/deltaclue/internal/modelsource"
	"github.com/deltaclue/deltaclue/internal/testbundle"
)

// TestWorkloadFile writes a workload and reads it back: the header and every tensor.
func TestWorkloadFile(t *testing.T) {
	w := peersWorkload(t)
	b, err := w.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "workload.bin")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	h, data, err := readWorkload(path)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(data, w.data) || h.Search != w.Header.Search || h.Checks != w.Header.Checks || len(h.Decoder.Layers) != len(w.Header.Decoder.Layers) {
		t.Fatal("the workload read back is not the one written")
	}
	var kinds []string
	for _, l := range append(slices.Clone(h.Decoder.Layers), h.Classifier.Networks[0].Layers...) {
		if !slices.Contains(kinds, l.Op) {
			kinds = append(kinds, l.Op)
		}
		if l.Op == "dropout" && (l.Mask == nil || l.Mask.Shape[0] != h.Classifier.Samples) {
			t.Errorf("a dropout layer without its %d masks: %+v", h.Classifier.Samples, l.Mask)
		}
	}
	if len(kinds) != 9 { // dense, conv2d, conv-transpose2d, flatten, reshape, relu, leaky-relu, tanh, dropout
		t.Errorf("the test models hold %v", kinds)
	}
	if _, err := newWorkload(nil, nil, nil, "", func() clue.Params { p := clue.Defaults(); p.Scheme = clue.S3; return p }(), 1); err == nil {
		t.Error("a search the peers do not run (scheme S3) was taken")
	}
}

// peersWorkload is the short search's workload on internal/testbundle's Peers models.
func peersWorkload(t *testing.T) *Workload {
	t.Helper()
	b, err := testbundle.Peers(3)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "peers-test")
	if err := modelsource.WriteDir(dir, b.Bytes, b.Items(20, 9)); err != nil {
		t.Fatal(err)
	}
	m, err := modelsource.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	models, err := clue.LoadBundle(m.Bundle)
	if err != nil {
		t.Fatal(err)
	}
	x0, item, _, err := pickImage(m, models, -1)
	if err != nil {
		t.Fatal(err)
	}
	w, err := newWorkload(m.Bundle, models, x0, item, nativebench.SetParams(8, 5), 8)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestCompare: the checks accept an outcome equal to the engine's and refuse one whose first step is off.
func TestCompare(t *testing.T) {
	ref := &Outcome{FirstCost: []float64{1, 2}, FirstGrad: [][]float64{{1, 0}, {0, 1}}, FinalZ: [][]float64{{0, 0}, {1, 1}},
		FinalCost: []float64{0.5, 0.6}, Labels: []int{1, 2}}
	if a := compare(ref, ref, 2, 2); !a.OK {
		t.Errorf("the engine's own outcome disagrees: %s", a.Disagreements)
	}
	off := *ref
	off.FirstGrad = [][]float64{{1, 0.001}, {0, 1}}
	if a := compare(ref, &off, 2, 2); a.OK {
		t.Error("a gradient off by 1e-3 agrees")
	}
}

// TestPeersAgree runs the short mode's correctness check (-short -check-only: n = 8 restarts × 5 steps): the first
// step and the results of TensorFlow.js (WASM backend, 2 threads, in headless Chromium) and of PyTorch must
// agree with the engine's, on the default models and on internal/testbundle's Peers models (every layer the peers
// build, convolutions and transposed ones included). It skips, loudly, when python3-torch, the npm packages
// (go run ./cmd/benchpeers -setup) or Chromium are missing, and fails then under CI=true.
func TestPeersAgree(t *testing.T) {
	root, err := benchenv.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	var missing []error
	if _, _, _, err := findPython(""); err != nil {
		missing = append(missing, err)
	}
	if err := tfjsInstalled(npmDir(root)); err != nil {
		missing = append(missing, err)
	}
	if err := browser.Installed(browser.Chromium); err != nil {
		missing = append(missing, err)
	}
	if err := errors.Join(missing...); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and the peers cannot run: %v", err)
		}
		t.Skipf("SKIPPING the peers' correctness check (TensorFlow.js and PyTorch against the engine): %v", err)
	}
	dir := filepath.Join(t.TempDir(), "peers-test")
	b, err := testbundle.Peers(3)
	if err != nil {
		t.Fatal(err)
	}
	if err := modelsource.WriteDir(dir, b.Bytes, b.Items(20, 9)); err != nil {
		t.Fatal(err)
	}
	for _, models := range []string{"", dir} {
		name := models
		if name == "" {
			name = "default models"
		}
		t.Run(filepath.Base(name), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			o := options{models: models, index: -1, short: true, n: 8, steps: 5, rounds: 1, warm: 1, threads: 2, checks: 8,
				impls: []string{implTFJS, implTorch}, checkOnly: true, timeout: 5 * time.Minute, out: io.Discard}
			rep, err := run(ctx, o)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			printChecks(&out, rep)
			t.Logf("%s", out.String())
			if err := rep.failure(); err != nil {
				t.Fatal(err)
			}
			for _, key := range []string{implTFJS, implTorch} {
				if a := rep.Checks[key]; a == nil || !a.OK {
					t.Errorf("%s did not agree with the engine", key)
				}
			}
		})
	}
}
