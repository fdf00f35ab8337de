//go:build !js

// Package ortnode runs ONNX graphs in onnxruntime-web under Node: the second runtime `deltaclue import` checks
// its conversion against, for the graphs onnx-gomlx (the first, in process) cannot run, such as a decoder's
// ConvTranspose. It needs node on the PATH and the npm package, pinned in this folder's package-lock.json,
// installed by Install (make onnxruntime) into a folder of its own (build/onnxruntime by default).
package ortnode

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// DefaultDir is where Install puts the package, relative to the repository's root.
const DefaultDir = "build/onnxruntime"

// Version is the pinned onnxruntime-web.
const Version = "1.30.0"

var (
	//go:embed package.json
	packageJSON []byte
	//go:embed package-lock.json
	packageLock []byte
	//go:embed run.mjs
	runner string
)

// ErrMissing is what Find's and Install's errors wrap when node, npm or the package is not there.
var ErrMissing = errors.New("onnxruntime-web is not installed")

// Runtime is node with the package installed in Dir.
type Runtime struct {
	node, dir string
}

// Find returns the runtime installed in dir, or an error wrapping ErrMissing that says how to install it.
func Find(dir string) (*Runtime, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, fmt.Errorf("%w: node is not on the PATH (Debian: apt-get install nodejs npm)", ErrMissing)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(abs, "node_modules", "onnxruntime-web", "package.json")); err != nil {
		return nil, fmt.Errorf("%w in %s (make onnxruntime installs it)", ErrMissing, dir)
	}
	return &Runtime{node: node, dir: abs}, nil
}

// Install installs the pinned package into dir with npm ci (no scripts run) unless it is there, and returns
// the runtime.
func Install(ctx context.Context, dir string) (*Runtime, error) {
	if r, err := Find(dir); err == nil {
		return r, nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return nil, fmt.Errorf("%w: npm is not on the PATH (Debian: apt-get install npm)", ErrMissing)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	for name, b := range map[string][]byte{"package.json": packageJSON, "package-lock.json": packageLock} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return nil, err
		}
	}
	cmd := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts")
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("npm ci of onnxruntime-web %s in %s: %v: %s", Version, dir, err, strings.TrimSpace(out.String()))
	}
	return Find(dir)
}

// Run computes the graph in the ONNX file at model for the inputs x of shape dims (batch first) and returns its
// first output, flat, with its dims.
func (r *Runtime) Run(ctx context.Context, model string, x []float32, dims ...int) ([]float32, []int, error) {
	n := 1
	for _, d := range dims {
		n *= d
	}
	if n != len(x) {
		return nil, nil, fmt.Errorf("ortnode: %d values for dims %v", len(x), dims)
	}
	tmp, err := os.MkdirTemp("", "ortnode-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(tmp)
	in, out := filepath.Join(tmp, "x.f32"), filepath.Join(tmp, "y.f32")
	b := make([]byte, 4*len(x))
	for i, v := range x {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	if err := os.WriteFile(in, b, 0o644); err != nil {
		return nil, nil, err
	}
	ds := make([]string, len(dims))
	for i, d := range dims {
		ds[i] = fmt.Sprint(d)
	}
	abs, err := filepath.Abs(model)
	if err != nil {
		return nil, nil, err
	}
	cmd := exec.CommandContext(ctx, r.node, "--input-type=module", "-e", runner, "--", r.dir, abs, in, strings.Join(ds, ","), out)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, nil, fmt.Errorf("onnxruntime-web cannot run %s: %s", filepath.Base(model), msg)
	}
	var outDims []int
	if err := json.Unmarshal(bytes.TrimSpace(stdout.Bytes()), &outDims); err != nil {
		return nil, nil, fmt.Errorf("onnxruntime-web's runner printed %q: %v", stdout.String(), err)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		return nil, nil, err
	}
	y := make([]float32, len(raw)/4)
	for i := range y {
		y[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	m := 1
	for _, d := range outDims {
		m *= d
	}
	if m != len(y) {
		return nil, nil, fmt.Errorf("onnxruntime-web gave %d values for dims %v", len(y), outDims)
	}
	return y, outDims, nil
}
