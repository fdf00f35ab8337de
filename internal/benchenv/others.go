//go:build linux

package benchenv

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Others measures how much CPU the processes outside this one's tree used while a benchmark ran: what the load
// average cannot tell, since the benchmark's own work raises it. Every interval it reads each process's CPU time
// from /proc and adds the growth of those that are neither this process nor a descendant of it; a process that
// starts and ends between two readings is missed, so it undercounts short jobs, not a training job or a build.
type Others struct {
	stop     chan struct{}
	done     chan struct{}
	start    time.Time
	mu       sync.Mutex
	seconds  float64         // CPU seconds the others used
	last     map[int]uint64  // each outside process's CPU ticks at the last reading
	perPID   map[int]float64 // each outside process's CPU seconds so far
	ours     map[int]bool    // the processes of this one's tree seen so far
	worst    float64         // the most CPU seconds one outside process used, and its command
	worstCmd string
}

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat's times (100 on every Linux Go runs on).
const clockTicks = 100

// WatchOthers starts measuring the other processes' CPU time, reading /proc every interval.
func WatchOthers(interval time.Duration) *Others {
	o := &Others{stop: make(chan struct{}), done: make(chan struct{}), start: time.Now(), last: map[int]uint64{}, perPID: map[int]float64{}, ours: map[int]bool{}}
	o.read(false)
	go func() {
		defer close(o.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-o.stop:
				o.read(true)
				return
			case <-t.C:
				o.read(true)
			}
		}
	}()
	return o
}

// Stop ends the measurement and returns the others' CPU seconds, the wall time measured, and the outside
// process that used the most (its command and CPU seconds; "" when none used any).
func (o *Others) Stop() (cpuSeconds float64, wall time.Duration, top string, topSeconds float64) {
	close(o.stop)
	<-o.done
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.seconds, time.Since(o.start), o.worstCmd, o.worst
}

// read takes one reading; count says whether growth since the last counts.
func (o *Others) read(count bool) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	type proc struct {
		ppid  int
		ticks uint64
		comm  string
	}
	procs := map[int]proc{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone since the listing
		}
		// pid (comm) state ppid … utime stime: comm may hold spaces and parentheses, so split after its last ')'.
		s := string(b)
		open, close := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || close < open {
			continue
		}
		f := strings.Fields(s[close+1:])
		if len(f) < 13 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		ut, _ := strconv.ParseUint(f[11], 10, 64)
		st, _ := strconv.ParseUint(f[12], 10, 64)
		procs[pid] = proc{ppid, ut + st, s[open+1 : close]}
	}
	self := os.Getpid()
	o.mu.Lock()
	defer o.mu.Unlock()
	ours := func(pid int) bool {
		for range 64 { // a chain of parents ends at 1 or 0 long before this
			if pid == self || o.ours[pid] {
				return true
			}
			p, ok := procs[pid]
			if !ok || pid <= 1 {
				return false
			}
			pid = p.ppid
		}
		return false
	}
	next := map[int]uint64{}
	for pid, p := range procs {
		if ours(pid) {
			// Once ours, always: a browser's helper orphaned when the browser quits is still the benchmark's.
			o.ours[pid] = true
			continue
		}
		next[pid] = p.ticks
		if !count {
			continue
		}
		// A process first seen now started since the last reading: all its time is new.
		grew := p.ticks
		if prev, seen := o.last[pid]; seen {
			grew = 0
			if p.ticks > prev {
				grew = p.ticks - prev
			}
		}
		if grew == 0 {
			continue
		}
		o.seconds += float64(grew) / clockTicks
		o.perPID[pid] += float64(grew) / clockTicks
		if o.perPID[pid] > o.worst {
			o.worst, o.worstCmd = o.perPID[pid], p.comm
		}
	}
	o.last = next
}
