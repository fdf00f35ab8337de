//go:build linux

package engine

import (
	"syscall"
	"time"
)

// threadCPU is the CPU time the calling thread has used (RUSAGE_THREAD; the benchmarks lock their goroutine to
// it): on a machine shared with other work the wall clock counts the others' turns too.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(1, &ru) != nil { // 1: RUSAGE_THREAD
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
