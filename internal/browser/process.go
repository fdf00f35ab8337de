//go:build !js

package browser

import (
	"bufio"
	"io"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// process is a child program (a browser, a driver, a display server) whose output is kept, its last lines for
// error messages, and whose lines may be watched as they come.
type process struct {
	cmd    *exec.Cmd
	mu     sync.Mutex
	lines  []string
	done   chan struct{} // closed when the program has ended
	err    error         // its exit error, once done is closed
	output sync.WaitGroup
}

// keptLines is how many of a program's last output lines a process keeps.
const keptLines = 40

// startProcess starts cmd in its own process group, calling watch (if not nil) with every line it writes to
// stdout or stderr, from one goroutine at a time per stream.
func startProcess(cmd *exec.Cmd, watch func(line string)) (*process, error) {
	p := &process{cmd: cmd, done: make(chan struct{})}
	cmd.SysProcAttr = sysProcAttr()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	for _, r := range []io.Reader{stdout, stderr} {
		p.output.Add(1)
		go func() {
			defer p.output.Done()
			sc := bufio.NewScanner(r)
			sc.Buffer(make([]byte, 64<<10), 1<<20)
			for sc.Scan() {
				line := sc.Text()
				p.mu.Lock()
				p.lines = append(p.lines, line)
				if len(p.lines) > 2*keptLines {
					p.lines = append(p.lines[:0], p.lines[len(p.lines)-keptLines:]...)
				}
				p.mu.Unlock()
				if watch != nil {
					watch(line)
				}
			}
			io.Copy(io.Discard, r)
		}()
	}
	go func() {
		p.output.Wait() // Wait closes the pipes: read them to the end first
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// tail is the program's last output lines.
func (p *process) tail() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.lines[max(0, len(p.lines)-keptLines):], "\n")
}

// exited reports whether the program has ended.
func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop waits up to grace for the program to end by itself, then kills its process group (the browser's
// children with it) and waits for it.
func (p *process) stop(grace time.Duration) {
	select {
	case <-p.done:
	case <-time.After(grace):
	}
	// The group may outlive its leader (a browser's content processes): kill it in any case.
	syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	select {
	case <-p.done:
	case <-time.After(grace):
	}
}
