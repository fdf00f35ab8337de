//go:build !js

package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deltaclue/deltaclue/cmd/benchset/nativebench"
	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/internal/benchenv"
	"github.com/deltaclue/deltaclue/internal/browser"
	"github.com/deltaclue/deltaclue/internal/modelsource"
	"github.com/deltaclue/deltaclue/internal/testbundle"
	"github.com/deltaclue/deltaclue/internal/testenv"
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
	return shortWorkload(t, dir)
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

// graphModels writes internal/testbundle's Graph models (every graph layer) as a models folder.
func graphModels(t *testing.T) string {
	t.Helper()
	return testModels(t, testbundle.Graph, "graph-test")
}

// testModels writes a test bundle's models as a models folder.
func testModels(t *testing.T, make func(uint64) (*testbundle.Bundle, error), name string) string {
	t.Helper()
	b, err := make(5)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), name)
	if err := modelsource.WriteDir(dir, b.Bytes, b.Items(20, 9)); err != nil {
		t.Fatal(err)
	}
	return dir
}

// shortWorkload is the short search's workload (n = 8 × T = 5) on the models in dir, at their most uncertain
// test item.
func shortWorkload(t *testing.T, dir string) *Workload {
	t.Helper()
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

// TestGraphWorkload: a graph's workload (format 2) says what every layer reads, the shapes a merge reads, each
// layer's settings and tensors and a dropout's masks; TF.js declines it in one sentence naming the layer; a
// chain's workload stays format 1, its layers saying nothing of inputs.
func TestGraphWorkload(t *testing.T) {
	w := shortWorkload(t, graphModels(t))
	h := w.Header
	if h.Format != 2 {
		t.Errorf("a graph's workload is format %d, not 2", h.Format)
	}
	clf := h.Classifier.Networks[0].Layers
	ops := map[string]bool{}
	for i, l := range append(slices.Clone(h.Decoder.Layers), clf...) {
		ops[l.Op] = true
		if len(l.Inputs) == 0 {
			t.Errorf("layer %d (%s) of a graph does not say what it reads", i, l.Op)
		}
		if len(l.Inputs) > 1 && len(l.InShapes) != len(l.Inputs) {
			t.Errorf("layer %d (%s) reads %d inputs and gives %d shapes", i, l.Op, len(l.Inputs), len(l.InShapes))
		}
		switch l.Op {
		case "dropout":
			if l.Mask == nil || l.Mask.Shape[0] != h.Classifier.Samples {
				t.Errorf("a dropout layer without its %d masks: %+v", h.Classifier.Samples, l.Mask)
			}
		case "batch-norm", "dense", "conv2d", "conv-transpose2d":
			if l.W == nil || l.B == nil {
				t.Errorf("layer %d (%s) without its tensors", i, l.Op)
			}
		case "clip":
			if l.Min == nil || l.Max == nil || *l.Min != 0 || *l.Max != 6 {
				t.Errorf("the clip's bounds are lost: %+v", l)
			}
		}
	}
	for _, op := range []string{"add", "mul", "concat", "silu", "gelu", "clip", "hard-sigmoid", "hard-swish", "elu", "softplus", "softmax",
		"global-avg-pool", "global-max-pool", "identity", "batch-norm", "dropout"} {
		if !ops[op] {
			t.Errorf("the Graph models' workload has no %s layer", op)
		}
	}
	if add := clf[7]; add.Op != "add" || !slices.Equal(add.Inputs, []int{2, 6}) {
		t.Errorf("the residual add reads %v (%s), not layers 2 and 6", add.Inputs, add.Op)
	}
	err := tfjsLacks(&h)
	if err == nil || !strings.Contains(err.Error(), "the VAE's decoder's layer 3 is an add") {
		t.Errorf("TF.js does not decline the graph with its first missing layer: %v", err)
	}
	t.Logf("TF.js: %v", err)
	p := peersWorkload(t).Header
	if p.Format != 1 || tfjsLacks(&p) != nil {
		t.Errorf("the Peers chain's workload is format %d, TF.js: %v", p.Format, tfjsLacks(&p))
	}
	for _, l := range p.Classifier.Networks[0].Layers {
		if l.Inputs != nil || l.InShapes != nil {
			t.Errorf("a chain's layer says what it reads: %+v", l)
		}
	}
}

// TestGraphPeersAgree is the correctness check on a graph (-short -check-only, n = 8 × T = 5, on
// internal/testbundle's Graph models, every graph layer): PyTorch's first step (cost and ∂L/∂z) and its results
// must agree with the engine's (its reference: engine.NewObjective and clue.Search natively), and the native
// runner (`benchpeers native`'s search, restarts split over 2 goroutines) must give the engine's results
// exactly. PyTorch's check runs too on the Grey and Colour chains (max-pool; avg-pool, upsample and an
// ensemble), which TF.js does not build. It skips, loudly, without Debian's python3-torch, and fails then under
// CI=true.
func TestGraphPeersAgree(t *testing.T) {
	dir := graphModels(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for _, models := range []string{dir, testModels(t, testbundle.Grey, "grey-test"), testModels(t, testbundle.Colour, "colour-test")} {
		o := options{models: models, index: -1, short: true, n: 8, steps: 5, rounds: 1, warm: 1, threads: 2, checks: 8,
			impls: []string{implTorch}, checkOnly: true, timeout: 2 * time.Minute, out: io.Discard}
		rep, err := run(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Impls[0].Missing != "" {
			testenv.Missing(t, "PyTorch's check on a graph: "+rep.Impls[0].Missing)
		}
		var out bytes.Buffer
		printChecks(&out, rep)
		t.Logf("%s", out.String())
		if err := rep.failure(); err != nil {
			t.Fatal(err)
		}
		if a := rep.Checks[implTorch]; a == nil || !a.OK {
			t.Errorf("PyTorch did not agree with the engine on %s", filepath.Base(models))
		}
	}
	// The native runner, in this process: the same search, the engine's mean final cost to the bit.
	w := shortWorkload(t, dir)
	path := filepath.Join(t.TempDir(), "workload.bin")
	if err := w.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	procs := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(procs)
	r, err := nativeTime(path, dir, 0, 2, "")
	if err != nil {
		t.Fatal(err)
	}
	exps, err := clue.Search(ctx, w.Prob, w.Params, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var costs []float64
	for _, e := range exps {
		costs = append(costs, float64(e.Cost))
	}
	if r.Cold.MeanCost != mean(costs) {
		t.Errorf("the native runner's mean final cost is %v, the engine's %v", r.Cold.MeanCost, mean(costs))
	}
}
