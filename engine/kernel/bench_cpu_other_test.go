//go:build !js

package kernel

import "time"

var benchStart = time.Now()

// procCPU is the wall time since the test binary started where no CPU clock is read (the benchmarks that report
// cpu-GFLOP/s then report wall-clock rates).
func procCPU() time.Duration { return time.Since(benchStart) }
