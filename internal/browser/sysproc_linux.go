//go:build linux

package browser

import "syscall"

// sysProcAttr puts a child in its own process group, so that stop can end it with its children, and has the
// kernel kill it if this program dies first (a test binary killed at its timeout would leave browsers behind).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
