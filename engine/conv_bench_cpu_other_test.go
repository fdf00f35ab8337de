//go:build !linux && !js

package engine

import "time"

// threadCPU is 0 here: the benchmarks report wall-clock times only.
func threadCPU() time.Duration { return 0 }
