//go:build !js

// Package benchenv is what the benchmark commands (cmd/benchset, cmd/benchpeers, cmd/browserbench) record of
// where their numbers were taken: the machine (cores, CPU model, load average, and how much CPU other processes
// took meanwhile) and the tree (the module's root, its commit).
package benchenv

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// NProc is the number of cores the process may use (nproc), else runtime.NumCPU.
func NProc() int {
	if b, err := exec.Command("nproc").Output(); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			return n
		}
	}
	return runtime.NumCPU()
}

// CPUModel is /proc/cpuinfo's first model name, or "unknown".
func CPUModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

// LoadAvg is /proc/loadavg as it reads (the 1, 5 and 15-minute load averages, the runnable and all tasks, the
// last process id), or "unknown".
func LoadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(b))
}

// Share is other processes' CPU seconds as a share of what cores could do in wall.
func Share(cpuSeconds float64, wall time.Duration, cores int) float64 {
	if wall <= 0 || cores <= 0 {
		return 0
	}
	return cpuSeconds / (wall.Seconds() * float64(cores))
}

// OthersBusy is the share of the cores the other processes may use before a benchmark's numbers are not fit for
// comparison.
const OthersBusy = 0.05

// ModuleRoot is the folder of the go.mod the go command finds from the working directory.
func ModuleRoot() (string, error) {
	b, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(b))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("run it inside the deltaclue module (go env GOMOD is empty)")
	}
	return filepath.Dir(gomod), nil
}

// TreeID is the short commit id of the tree at root, with "with uncommitted changes" when the work tree differs
// from it, or "unknown commit".
func TreeID(root string) string {
	git := func(args ...string) (string, error) {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		b, err := cmd.Output()
		return strings.TrimSpace(string(b)), err
	}
	id, err := git("rev-parse", "--short", "HEAD")
	if err != nil {
		return "unknown commit"
	}
	if st, err := git("status", "--porcelain"); err == nil && st != "" {
		id += " with uncommitted changes"
	}
	return id
}
