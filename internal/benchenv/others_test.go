//go:build linux

package benchenv

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// spin is a shell command that keeps one core busy for secs seconds.
func spin(secs int) string {
	return "timeout " + strconv.Itoa(secs) + " sh -c 'while :; do :; done'"
}

// TestOthersLeavesOutOurTree: a child of this process spinning for a second is the benchmark's own work, never
// counted, whatever else the machine runs meanwhile (go test runs other packages' tests beside this one).
func TestOthersLeavesOutOurTree(t *testing.T) {
	o := WatchOthers(50 * time.Millisecond)
	cmd := exec.Command("sh", "-c", spin(1))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	child := cmd.Process.Pid
	cmd.Wait() // timeout's status 124 is the point
	o.Stop()
	for pid, secs := range o.perPID {
		if pid == child || o.ours[pid] && secs > 0 {
			t.Errorf("process %d, ours, was counted as another's (%.2f s)", pid, secs)
		}
	}
	if !o.ours[child] {
		t.Errorf("the spinning child %d was not seen as ours", child)
	}
}

// TestOthersCountsAnOrphan: a process this one started and left (its parent gone, so it is init's) is another's,
// as a training job in another terminal would be.
func TestOthersCountsAnOrphan(t *testing.T) {
	// sh starts the loop in the background, prints timeout's pid and exits at once: the loop is reparented
	// before WatchOthers reads.
	out, err := exec.Command("sh", "-c", spin(2)+" >/dev/null 2>&1 & echo $!").Output()
	if err != nil {
		t.Fatal(err)
	}
	timeoutPid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	o := WatchOthers(50 * time.Millisecond)
	time.Sleep(1500 * time.Millisecond)
	secs, wall, _, _ := o.Stop()
	// The spinning shell is timeout's child; it and timeout are another's, and it used about 1.5 s.
	spun := 0.0
	for pid, s := range o.perPID {
		if parentOf(pid) == timeoutPid || pid == timeoutPid {
			spun += s
		}
		if o.ours[pid] && (pid == timeoutPid || parentOf(pid) == timeoutPid) {
			t.Errorf("the orphan %d was taken as ours", pid)
		}
	}
	if spun < 0.7 {
		t.Errorf("the orphan's loop counted %.2f CPU s in %v (others %.2f s in all), want about 1.5", spun, wall, secs)
	}
	if s := Share(secs, wall, 2); s < 0.2 {
		t.Errorf("Share = %.2f of 2 cores with one process spinning, want at least 0.2", s)
	}
}

// parentOf is a live process's parent, or 0.
func parentOf(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 2 {
		return 0
	}
	p, _ := strconv.Atoi(f[1])
	return p
}
