//go:build !linux && !js && !windows

package browser

import "syscall"

// sysProcAttr puts a child in its own process group, so that stop can end it with its children.
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
