//go:build !js

package main

// The native part: one set in a new process of a build's native benchmark (cmd/benchset/native).

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strconv"

	"github.com/deltaclue/deltaclue/cmd/benchset/nativebench"
)

// nativeRun runs one set in a new process of the build's native benchmark.
func nativeRun(ctx context.Context, s *Sample, b *build, digit, workers int) {
	cmd := exec.CommandContext(ctx, b.native, "-digit", strconv.Itoa(digit), "-n", strconv.Itoa(setN), "-steps", strconv.Itoa(setSteps),
		"-workers", strconv.Itoa(workers), "-runs", "1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var r nativebench.Result
	if err == nil {
		err = json.Unmarshal(out, &r)
	}
	if err == nil && len(r.Runs) != 1 {
		err = fmt.Errorf("%d runs in its output", len(r.Runs))
	}
	if err != nil {
		s.Error = fmt.Sprintf("%v %s", err, firstLine(stderr.String()))
		return
	}
	s.Ms, s.Evaluations = r.Runs[0].Ms, r.Runs[0].Evaluations
	if b.Evaluations == 0 {
		b.Evaluations = s.Evaluations
	} else if b.Evaluations != s.Evaluations {
		s.Error = fmt.Sprintf("%d objective evaluations, where the first run had %d", s.Evaluations, b.Evaluations)
	}
}
