package sched

import (
	"context"
	"github.com/turnsim/turnsim/harness"
	"testing"
	"time"
)

// BenchmarkHandoff measures one baton exchange: two tasks ping-pong through two queues, so every
// Get parks its task and every Put wakes the other one. One iteration is one round trip.
func BenchmarkHandoff(b *testing.B) {
	s := New(Options{Seed: 1, MaxEvents: 2*b.N + 10})
	b.ReportAllocs()
	b.ResetTimer()
	report := s.Run("ping", func() {
		ping, pong := s.NewQueue("ping"), s.NewQueue("pong")
		s.Go("pong", func() {
			for range b.N {
				v, _ := ping.Get(context.Background())
				pong.Put(v)
			}
		})
		for i := range b.N {
			ping.Put(i)
			_, _ = pong.Get(context.Background())
		}
	})
	b.StopTimer()
	if len(report.Findings) > 0 {
		b.Fatal(report.Findings[0])
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(report.Handoffs), "ns/handoff")
}

// BenchmarkSmallRun measures a whole small run, the unit a seed sweep repeats: five tasks, sleeps
// and queue hand-offs, about fifty handoffs.
func BenchmarkSmallRun(b *testing.B) {
	b.ReportAllocs()
	handoffs := 0
	for i := range b.N {
		s := New(Options{Seed: int64(i)})
		report := s.Run("main", func() {
			results := s.NewQueue("results")
			for w := range 4 {
				s.Go("worker", func() {
					for j := range 5 {
						_ = s.Sleep(time.Duration(w+j) * time.Millisecond)
						results.Put(j)
					}
				})
			}
			for range 20 {
				_, _ = results.Get(context.Background())
			}
		})
		if len(report.Findings) > 0 {
			b.Fatal(report.Findings[0])
		}
		handoffs += report.Handoffs
	}
	b.ReportMetric(float64(handoffs)/float64(b.N), "handoffs/run")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "runs/s")
}

// BenchmarkKill measures a run in which a process's task is killed mid-wait, as a crash fault
// does about once a schedule: the task ends by runtime.Goexit, deep in its stack, and its
// coroutine with it.
func BenchmarkKill(b *testing.B) {
	b.ReportAllocs()
	var deep func(q harness.Queue, depth int)
	deep = func(q harness.Queue, depth int) {
		if depth > 0 {
			deep(q, depth-1)
			return
		}
		_, _ = q.Get(context.Background())
	}
	for i := range b.N {
		s := New(Options{Seed: int64(i)})
		report := s.Run("main", func() {
			p := s.NewProcess("agent")
			q := p.NewQueue("inbox")
			p.Go("loop", func() { deep(q, 30) })
			_ = s.Sleep(time.Millisecond)
			p.Kill()
			_ = s.Sleep(time.Millisecond)
		})
		if len(report.Findings) > 0 {
			b.Fatal(report.Findings[0])
		}
	}
}
