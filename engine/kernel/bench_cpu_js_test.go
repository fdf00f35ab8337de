//go:build js

package kernel

import (
	"syscall/js"
	"time"
)

// procCPU is the CPU time Node's process has used (process.cpuUsage): on a machine shared with other work the
// wall clock counts the others' turns too.
func procCPU() time.Duration {
	u := js.Global().Get("process").Call("cpuUsage")
	return time.Duration((u.Get("user").Float() + u.Get("system").Float()) * 1e3)
}
