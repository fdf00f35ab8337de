package core

import (
	"reflect"
	"testing"
	"time"

	"github.com/deltaclue/deltaclue/wasm/worker/searchworker"
)

// checkAt runs the start check scheduled a period before now.
func checkAt(p *Pool, now time.Duration) ([]Command, []int) {
	return p.CheckStarts(StartCheck{p.generation, at(now - startCheckEvery)}, at(now))
}

func TestSilentStarterIsStartedAgainWithMorePatience(t *testing.T) {
	p := &Pool{}
	p.Resize(2, false, t0)
	p.Said(0, searchworker.Response{Type: "ready"}, at(time.Second), 0)
	if cmds, _ := checkAt(p, 15*time.Second); len(replaced(cmds)) != 0 {
		t.Fatal("replaced before StartSilence")
	}
	cmds, gaveUp := checkAt(p, 25*time.Second)
	if !reflect.DeepEqual(replaced(cmds), []int{1}) || gaveUp != nil || p.Workers[1].Starts != 1 {
		t.Fatalf("replaced %v, gave up %v, starts %d", replaced(cmds), gaveUp, p.Workers[1].Starts)
	}
	// Its second start gets 40 s.
	if cmds, _ := checkAt(p, 25*time.Second+35*time.Second); len(replaced(cmds)) != 0 {
		t.Fatal("the second start was not given twice the time")
	}
	if cmds, _ := checkAt(p, 25*time.Second+45*time.Second); !reflect.DeepEqual(replaced(cmds), []int{1}) {
		t.Fatalf("the second start silent 45 s: %v", replaced(cmds))
	}
}

func TestStarterGivenUpAfterStartTries(t *testing.T) {
	p := &Pool{}
	p.Resize(1, false, t0)
	p.Workers[0].Starts = StartTries - 1
	cmds, gaveUp := checkAt(p, 81*time.Second)
	if !reflect.DeepEqual(gaveUp, []int{0}) || len(replaced(cmds)) != 0 || p.GivenUp(StartTries) != 1 {
		t.Fatalf("gave up %v, commands %v", gaveUp, cmds)
	}
	if len(cmds) != 0 {
		t.Error("the checks go on with no worker left to wait for")
	}
}

func TestLateStartCheckForgives(t *testing.T) {
	p := &Pool{}
	p.Resize(1, false, t0)
	cmds, _ := p.CheckStarts(StartCheck{p.generation, at(0)}, at(time.Minute)) // due at 5 s, ran at 60 s
	if len(replaced(cmds)) != 0 || p.Workers[0].LastSeen != at(time.Minute) {
		t.Fatalf("a late check replaced %v", replaced(cmds))
	}
}

func TestStartChecksEndWhenAllAreReady(t *testing.T) {
	p := &Pool{}
	p.Resize(2, false, t0)
	if cmds := p.WatchStarts(t0); len(cmds) != 1 {
		t.Fatalf("%v", cmds)
	}
	for k := 0; k < 2; k++ {
		p.Said(k, searchworker.Response{Type: "ready"}, t0, 0)
	}
	if cmds, _ := checkAt(p, 5*time.Second); cmds != nil || !p.AllStarted() {
		t.Fatalf("checks go on with every worker ready: %v", cmds)
	}
}

func TestStartCheckOfAnEarlierPoolIgnored(t *testing.T) {
	p := &Pool{}
	p.Resize(1, false, t0)
	old := StartCheck{p.generation, t0}
	p.Resize(2, false, at(time.Second))
	if cmds, gaveUp := p.CheckStarts(old, at(time.Hour)); cmds != nil || gaveUp != nil {
		t.Fatal("a check of the pool before a resize acted")
	}
}

func TestStartCheckLeavesARunsReplacement(t *testing.T) {
	p, _ := started(t, 2, 4)
	p.Said(1, searchworker.Response{Type: "error", Error: "crash"}, t0, 0)
	if cmds, _ := checkAt(p, time.Hour); len(replaced(cmds)) != 0 {
		t.Fatal("the start check replaced a worker the run's watchdog minds")
	}
}

func TestAllStartedCountsGivenUpWorkers(t *testing.T) {
	p := &Pool{}
	p.Resize(3, false, t0)
	if p.AllStarted() {
		t.Fatal("all started with none ready")
	}
	p.Said(0, searchworker.Response{Type: "ready"}, t0, 0)
	p.Said(2, searchworker.Response{Type: "ready"}, t0, 0)
	p.Workers[1].Starts = StartTries
	if !p.AllStarted() {
		t.Fatal("a given-up worker keeps the link waiting")
	}
}
