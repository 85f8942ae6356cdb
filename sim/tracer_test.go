package sim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/turnsim/turnsim/sim/sched"
)

// On the scheduler the tracer reads its clock directly, and reads what the runtime's clock
// reads: the same milliseconds, the same time since the start, whenever the tracer is made.
func TestTracerReadsTheSchedulersClockAsTheRuntimeDoes(t *testing.T) {
	for _, start := range []time.Time{{}, time.Date(2026, 12, 2, 3, 4, 5, 6_000_007, time.UTC)} {
		s := sched.New(sched.Options{Seed: 1, Start: start})
		var checked int
		s.Run("main", func() {
			s.Sleep(1500 * time.Microsecond) // the tracer is made after the run began
			direct, through := &tracer{}, newTracer(s)
			direct.init(s, s)
			for _, d := range []time.Duration{0, time.Millisecond, 2*time.Second + 3*time.Microsecond, 90 * time.Minute} {
				s.Sleep(d)
				assert.Equal(t, through.nowMs(), direct.nowMs(), "start %v, after %v", start, d)
				assert.Equal(t, through.elapsed(), direct.elapsed(), "start %v, after %v", start, d)
				checked++
			}
		})
		assert.Equal(t, 4, checked)
	}
}
