//go:build !js

package main

// PyTorch natively: peer.py (embedded, written next to the workload) run by a Python that imports torch
// (Debian's python3-torch is for /usr/bin/python3), a fresh process per run.

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

//go:embed peer.py
var peerPy []byte

// errMissing wraps what a peer needs and this machine lacks.
var errMissing = errors.New("not installed")

// pythonProbe prints torch's version and the BLAS libraries it has loaded once it multiplied two matrices.
const pythonProbe = `import numpy, torch
torch.mm(torch.ones(2, 2), torch.ones(2, 2))
libs = sorted({l.split()[-1] for l in open("/proc/self/maps") if "blas" in l.split()[-1].lower()})
print(torch.__version__)
print(" ".join(libs) or "unknown")`

// blasName names the BLAS that torch's matrix products go to (Debian's libblas.so.3 alternative): OpenBLAS
// when it is installed (libopenblas0-openmp), else the reference BLAS of libblas3, some ten times slower.
func blasName(libs string) string {
	switch {
	case strings.Contains(libs, "openblas-openmp"):
		return "OpenBLAS, OpenMP"
	case strings.Contains(libs, "openblas"):
		return "OpenBLAS"
	case strings.Contains(libs, "/blas/libblas.so"):
		return "reference BLAS"
	}
	return libs
}

// pythonFound is what findPython found, by its flagPath: a process (a test running the harness several times)
// probes each once.
var pythonFound sync.Map

type pythonProbed struct {
	python, version, blas string
	err                   error
}

// findPython returns a Python that imports torch and numpy: flagPath, else /usr/bin/python3 (Debian's
// python3-torch), else python3 on $PATH, with torch's version and its BLAS.
func findPython(flagPath string) (python, version, blas string, err error) {
	if v, ok := pythonFound.Load(flagPath); ok {
		p := v.(pythonProbed)
		return p.python, p.version, p.blas, p.err
	}
	python, version, blas, err = probePython(flagPath)
	pythonFound.Store(flagPath, pythonProbed{python, version, blas, err})
	return python, version, blas, err
}

func probePython(flagPath string) (python, version, blas string, err error) {
	candidates := []string{"/usr/bin/python3", "python3"}
	if flagPath != "" {
		candidates = []string{flagPath}
	}
	var tried []string
	for _, c := range candidates {
		p, err := exec.LookPath(c)
		if err != nil {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		out, err := exec.CommandContext(ctx, p, "-c", pythonProbe).CombinedOutput()
		cancel()
		if lines := strings.Split(strings.TrimSpace(string(out)), "\n"); err == nil && len(lines) >= 2 {
			return p, strings.TrimSpace(lines[len(lines)-2]), blasName(lines[len(lines)-1]), nil
		}
		tried = append(tried, fmt.Sprintf("%s: %s", p, lastLines(string(out), 1)))
	}
	return "", "", "", fmt.Errorf("no Python with torch and numpy (Debian: apt-get install python3-torch; tried %s): %w", strings.Join(tried, "; "), errMissing)
}

// torchPeer runs peer.py.
type torchPeer struct {
	python, script, workload string
	threads                  int
}

func newTorchPeer(python, dir, workload string, threads int) (*torchPeer, error) {
	script := filepath.Join(dir, "peer.py")
	if err := os.WriteFile(script, peerPy, 0o644); err != nil {
		return nil, err
	}
	return &torchPeer{python: python, script: script, workload: workload, threads: threads}, nil
}

func (t *torchPeer) run(ctx context.Context, out any, args ...string) error {
	cmd := exec.CommandContext(ctx, t.python, append([]string{t.script, t.workload}, args...)...)
	cmd.Args = append(cmd.Args, "--threads", fmt.Sprint(t.threads))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("peer.py %s: %v: %s", strings.Join(args, " "), err, lastLines(stderr.String(), 8))
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("peer.py %s: reading its output: %w", strings.Join(args, " "), err)
	}
	return nil
}

// check runs the first step and the whole search, untimed.
func (t *torchPeer) check(ctx context.Context) (*Outcome, error) {
	var o Outcome
	return &o, t.run(ctx, &o, "check")
}

// time runs one fresh process: start-up, the cold search and warm ones.
func (t *torchPeer) time(ctx context.Context, warm int) (*TimeResult, error) {
	var r TimeResult
	return &r, t.run(ctx, &r, "time", "--warm", fmt.Sprint(warm))
}

// lastLines is the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
