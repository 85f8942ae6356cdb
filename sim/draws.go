package sim

import (
	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/properties"
)

// drawRecorder is the random source the world hands the harness: the seeded (or replayed) one,
// with every number it serves recorded in the trace, in order, with the log's length then. The
// record is the world's own, so delay-exact can replay each jittered delay on its draw without
// a word from the harness.
type drawRecorder struct {
	inner  harness.Random
	tracer *tracer
	world  *world // for the session log's length when a number is served
}

func (r *drawRecorder) Float64() float64 {
	f := r.inner.Float64()
	r.record(properties.Draw{Float: f})
	return f
}

func (r *drawRecorder) Read(p []byte) (int, error) {
	n, err := r.inner.Read(p)
	r.record(properties.Draw{Read: true, ReadBytes: n})
	return n, err
}

func (r *drawRecorder) record(d properties.Draw) {
	t := r.tracer
	d.AtMs, d.SeqBefore = t.nowMs(), r.world.logLen()
	t.mu.Lock()
	if t.trace.Draws == nil {
		t.trace.Draws = make([]properties.Draw, 0, recordsBuffered)
	}
	t.trace.Draws = append(t.trace.Draws, d)
	t.mu.Unlock()
}
