//go:build linux

package benchenv

import (
	"os/exec"
	"strconv"
	"testing"
	"time"
)

// spin is a shell command that keeps one core busy for secs seconds.
func spin(secs int) string {
	return "timeout " + strconv.Itoa(secs) + " sh -c 'while :; do :; done'"
}

// TestOthersLeavesOutOurTree: a child of this process spinning for a second is the benchmark's own work.
func TestOthersLeavesOutOurTree(t *testing.T) {
	o := WatchOthers(50 * time.Millisecond)
	exec.Command("sh", "-c", spin(1)).Run() // timeout's status 124 is the point
	secs, wall, top, topSecs := o.Stop()
	if secs > 0.5 {
		t.Errorf("others used %.2f CPU s in %v while only our child spun (the most: %q, %.2f s)", secs, wall, top, topSecs)
	}
}

// TestOthersCountsAnOrphan: a process this one started and left (its parent gone, so it is init's) is another's,
// as a training job in another terminal would be.
func TestOthersCountsAnOrphan(t *testing.T) {
	// sh starts the loop in the background and exits at once: the loop is reparented before WatchOthers reads.
	if err := exec.Command("sh", "-c", spin(2)+" >/dev/null 2>&1 &").Run(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	o := WatchOthers(50 * time.Millisecond)
	time.Sleep(1500 * time.Millisecond)
	secs, wall, top, topSecs := o.Stop()
	if secs < 0.7 {
		t.Errorf("others used %.2f CPU s in %v while an orphan spun for 1.5 s (the most: %q, %.2f s)", secs, wall, top, topSecs)
	}
	if top != "sh" || topSecs < 0.7 {
		t.Errorf("the busiest other process: %q with %.2f s, want the spinning sh", top, topSecs)
	}
	if s := Share(secs, wall, 2); s < 0.2 || s > 0.8 {
		t.Errorf("Share = %.2f of 2 cores for one spinning process, want about 0.5", s)
	}
}
