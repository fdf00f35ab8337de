//go:build !linux && !js

package benchenv

import "time"

// Others measures nothing where there is no /proc: the others' CPU time reads 0.
type Others struct{ start time.Time }

// WatchOthers starts a measurement that, without /proc, measures nothing.
func WatchOthers(time.Duration) *Others { return &Others{start: time.Now()} }

// Stop returns no CPU time, the wall time, and no busiest process.
func (o *Others) Stop() (cpuSeconds float64, wall time.Duration, top string, topSeconds float64) {
	return 0, time.Since(o.start), "", 0
}
