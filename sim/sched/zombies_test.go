package sched

import (
	"context"
	"iter"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// exitingWorker is a coroutine parked mid-Goexit, as finish parks a task's: it called
// runtime.Goexit, and its deferred function switched back to the caller of resume, which
// returned normally. The deferred functions still to run record their names in log when it
// finishes exiting; ended is closed when its goroutine has.
func exitingWorker(t *testing.T, name string, log chan<- string) (*worker, chan struct{}) {
	w := &worker{}
	ended := make(chan struct{})
	w.resume, w.stop = iter.Pull(func(park func(struct{}) bool) {
		defer close(ended)
		defer func() { log <- name + " exited" }()
		defer func() {
			assert.False(t, park(struct{}{}), "a zombie is resumed only by stop")
			log <- name + " stopped"
		}()
		runtime.Goexit()
	})
	_, ok := w.resume()
	require.True(t, ok, "the Goexit did not reach the caller of resume")
	return w, ended
}

// The runtime semantics the zombies rest on: a deferred function may switch away from a coroutine
// that is exiting by Goexit; stop lets the Goexit finish and passes it on to its caller; and a
// goroutine ending several zombies with deferred stops runs each of them, then its callers'
// deferred calls, and ends.
func TestEndZombies(t *testing.T) {
	noLeak(t)
	log := make(chan string, 16)
	var zombies []*worker
	var ended []chan struct{}
	for _, name := range []string{"a", "b", "c"} {
		w, e := exitingWorker(t, name, log)
		zombies, ended = append(zombies, w), append(ended, e)
	}
	assert.Empty(t, log, "a zombie runs nothing until stopped")
	done := make(chan struct{})
	returned := false
	go func() {
		defer close(done)
		endZombies(zombies)
		returned = true
	}()
	<-done
	assert.False(t, returned, "the goroutine ending zombies ends by Goexit")
	for _, e := range ended {
		waitEnded(t, e)
	}
	close(log)
	var got []string
	for s := range log {
		got = append(got, s)
	}
	assert.Equal(t, []string{"c stopped", "c exited", "b stopped", "b exited", "a stopped", "a exited"}, got)

	endZombies(nil) // none: it returns
}

// A task ending by Goexit, killed or by its own hand, leaves the driver running: a run starts one
// driver however many tasks end so, and each of them finishes exiting, its deferred functions run
// and its goroutine ended (noLeak), with the run's end.
func TestGoexitsKeepTheDriver(t *testing.T) {
	noLeak(t)
	var exited int
	s := New(Options{Seed: 2})
	report := s.Run("main", func() {
		for range 5 {
			p := s.NewProcess("agent")
			q := p.NewQueue("inbox")
			for range 2 {
				p.Go("waiter", func() {
					defer func() { exited++ }()
					_, _ = q.Get(context.Background())
				})
			}
			s.Go("quitter", func() {
				defer func() { exited++ }()
				runtime.Goexit()
			})
			assert.NoError(t, s.Sleep(time.Second))
			p.Kill()
			assert.NoError(t, s.Sleep(time.Second))
		}
		s.Go("sleeper", func() {
			defer func() { exited++ }()
			_ = s.Sleep(time.Hour)
		})
		_ = s.Sleep(time.Second)
		s.Stop("test", "unwind the sleeper")
		_ = s.Sleep(time.Second)
	})
	require.Len(t, report.Findings, 1)
	assert.Equal(t, 5*3+1, exited)
	assert.Equal(t, 1, s.drivers, "a Goexit ended the driver")
}

// A run that makes more zombies than a batch hands the full batches to goroutines of their own,
// so the zombies a run holds stay few; every one of them still finishes exiting.
func TestManyZombies(t *testing.T) {
	noLeak(t)
	const n = 10*zombieBatch + 3
	exited, most := 0, 0
	s := New(Options{Seed: 4})
	report := s.Run("main", func() {
		for range n {
			s.Go("quitter", func() {
				defer func() { exited++ }()
				runtime.Goexit()
			})
			assert.NoError(t, s.Sleep(time.Second))
			most = max(most, len(s.zombies))
		}
	})
	require.Empty(t, report.Findings)
	assert.Equal(t, n, exited)
	assert.Less(t, most, zombieBatch)
	assert.Equal(t, 1, s.drivers)
}

// A panic raised during a task's Goexit and recovered by finish (reported as the task's panic)
// lets the Goexit go on, through the driver: a new driver ends the run.
func TestPanicDuringGoexit(t *testing.T) {
	noLeak(t)
	s := New(Options{Seed: 1})
	report := s.Run("main", func() {
		s.Go("quitter", func() {
			defer panic("while exiting")
			runtime.Goexit()
		})
		_ = s.Sleep(time.Second)
		t.Error("the run went on after the panic")
	})
	require.Len(t, report.Findings, 1)
	assert.Equal(t, FindingPanic, report.Findings[0].Kind)
	assert.Contains(t, report.Findings[0].Message, "while exiting")
	assert.Equal(t, 2, s.drivers)
}

// A run's zombies end before Run returns, not at some later sweep: no goroutine is left parked in
// a task's finish.
func TestZombiesEndWithTheRun(t *testing.T) {
	noLeak(t)
	report := runOnce(Options{Seed: 3}, func(s *Scheduler) {
		p := s.NewProcess("agent")
		for range 3 {
			p.Go("waiter", func() { _ = s.Sleep(time.Hour) })
		}
		s.Go("quitter", func() { runtime.Goexit() })
		assert.NoError(t, s.Sleep(time.Second))
		p.Kill()
		assert.NoError(t, s.Sleep(time.Second))
	})
	require.Empty(t, report.Findings)
	assert.Zero(t, strings.Count(allStacks(), "(*Scheduler).finish("), "goroutines parked in finish")
}
