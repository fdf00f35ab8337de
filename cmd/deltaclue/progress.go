package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// progress reports how far a long command has come on stderr: on a terminal, one line redrawn in place (a bar,
// the count and the time left); anywhere else (a log, a pipe, CI), a plain line at each tenth of the work, so
// that a log never holds carriage returns ("1/100 restarts done2/100 …").
type progress struct {
	w      io.Writer
	tty    bool
	total  int
	unit   string // what is counted: "restarts", "radii", "searches"
	start  time.Time
	from   int // what was done when it started (a resumed audit's finished items): not this run's rate
	tenths int // the tenths of the work reported so far (not on a terminal)
	drawn  bool
}

// newProgress reports on w, redrawing in place only if w is a terminal.
func newProgress(w io.Writer, total int, unit string) *progress {
	return &progress{w: w, tty: isTerminal(w), total: total, unit: unit, start: time.Now()}
}

// isTerminal says whether w is a character device (a terminal), not a file or a pipe.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// update says that done of the total are finished.
func (p *progress) update(done int) {
	if p.total <= 0 {
		return
	}
	elapsed := time.Since(p.start)
	left := ""
	if secs, now := elapsed.Seconds(), done-p.from; now > 0 && secs > 0 {
		left = fmt.Sprintf(", %.1f %s/s", float64(now)/secs, p.unit)
		if done < p.total {
			left += fmt.Sprintf(", ~%s left", (time.Duration(float64(elapsed) / float64(now) * float64(p.total-done))).Round(time.Second))
		}
	}
	if p.tty {
		const width = 40
		filled := min(done, p.total) * width / p.total
		fmt.Fprintf(p.w, "\r[%s%s] %d/%d %s, %s elapsed%s ", strings.Repeat("#", filled), strings.Repeat(".", width-filled),
			done, p.total, p.unit, elapsed.Round(time.Second), left)
		p.drawn = true
		return
	}
	tenths := min(done, p.total) * 10 / p.total
	if tenths <= p.tenths {
		return
	}
	p.tenths = tenths
	fmt.Fprintf(p.w, "%d %%: %d of %d %s done, %s elapsed%s\n", min(done, p.total)*100/p.total, done, p.total, p.unit, elapsed.Round(time.Second), left)
}

// finish ends the in-place line on a terminal (the lines elsewhere end themselves).
func (p *progress) finish() {
	if p.drawn {
		fmt.Fprintln(p.w)
		p.drawn = false
	}
}
