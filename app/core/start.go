package core

import "time"

// StartSilence is how long a starting worker may stay silent before it is started again. Now and then a worker
// never says ready (seen in WebKit on an offline reload, under load), and a shared link waits for every worker.
// The wait doubles with each start, and StartTries starts give up on it: the page then runs with the workers
// it has.
const (
	StartSilence = 20 * time.Second
	StartTries   = 3
)

// startCheckEvery is how often the starting workers are checked.
const startCheckEvery = StartSilence / 4

// StartCheck is the periodic check of the starting workers of pool generation Pool, scheduled at Scheduled.
type StartCheck struct {
	Pool      int
	Scheduled time.Time
}

func (StartCheck) isEvent() {}

// WatchStarts schedules the first check of the workers just started (Resize).
func (p *Pool) WatchStarts(now time.Time) []Command {
	return []Command{After{startCheckEvery, StartCheck{p.generation, now}}}
}

// CheckStarts checks the starting workers at now: one silent past StartSilence (doubled for each start) is
// started again, and one that has had StartTries starts is given up. It returns the commands and the workers
// given up this time; the checks go on until every worker is ready or given up. A late check (the page's thread
// was held up) starts their clocks again instead. A worker replaced during a run is the run's watchdog's.
func (p *Pool) CheckStarts(ev StartCheck, now time.Time) (cmds []Command, gaveUp []int) {
	if ev.Pool != p.generation {
		return nil, nil
	}
	late := now.Sub(ev.Scheduled)-startCheckEvery >= startCheckEvery
	waiting := false
	for k := range p.Workers {
		w := &p.Workers[k]
		if w.Ready || w.Starts >= StartTries {
			continue
		}
		if _, resending := p.Run.Resend[k]; resending {
			continue
		}
		if late {
			w.LastSeen = now
		} else if p.Silent(k, now) > StartSilence<<w.Starts { // a slow device gets longer each time
			if w.Starts+1 >= StartTries {
				w.Starts++
				gaveUp = append(gaveUp, k)
				continue
			}
			starts := w.Starts + 1
			cmds = append(cmds, p.replace(k, now))
			p.Workers[k].Starts = starts
		}
		waiting = true
	}
	if waiting {
		cmds = append(cmds, After{startCheckEvery, StartCheck{p.generation, now}})
	}
	return cmds, gaveUp
}

// AllStarted says whether every worker that will start has said ready (at least one has; those given up after
// StartTries starts do not count): a shared link waits for this, so that it gets the whole pool.
func (p *Pool) AllStarted() bool {
	ready := p.ReadyCount()
	return ready > 0 && ready == len(p.Workers)-p.GivenUp(StartTries)
}
