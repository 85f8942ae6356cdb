package sim

import (
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness"
)

// Replay is what a schedule derived from a production session log (ScheduleFromLog) carries
// beyond its plan, so that its run writes the incident's log event for event: where the log's
// clock stood at virtual time 0, the provider's name, and what the harness drew from its random
// source (the jitter of each local backoff and the bytes of each retry id) in each incarnation.
// A drawn schedule has none; a schedule that has one still runs on any agent: draws beyond the
// script come from the seed, as a drawn schedule's all do.
type Replay struct {
	// StartMs is the Unix time, in milliseconds, of the run's virtual time 0: the log's first
	// event's time, so the replay's events carry the incident's times.
	StartMs int64 `json:"startMs"`
	// Provider is the provider's name, which keys retry chains and appears in llm/retry ("":
	// the simulated provider's own, "simulated").
	Provider string `json:"provider,omitempty"`
	// Draws are, for each incarnation of the agent in order (a crash starts the next), what its
	// random source gives before the seed's stream takes over.
	Draws []Draws `json:"draws,omitempty"`
	// Log names the log the schedule was derived from, for people.
	Log string `json:"log,omitempty"`
}

// Draws are what one incarnation's random source gives the harness, in the order it asks.
type Draws struct {
	// Floats are its Float64 draws: each local backoff's jitter.
	Floats []float64 `json:"floats,omitempty"`
	// RetryIDs are its byte reads, 16 bytes each: the retry ids the harness made of them (a
	// version 4 UUID keeps 122 of the 128 bits read; the other six are set anyway).
	RetryIDs []string `json:"retryIds,omitempty"`
}

// replayStartMsMax bounds a replay's start: the year 9999, past which a Unix time in
// milliseconds no longer formats as a date.
const replayStartMsMax = 253402300799999

// Validate refuses a replay the world cannot play faithfully, naming the field.
func (r *Replay) Validate() error {
	if r.StartMs < 0 || r.StartMs > replayStartMsMax {
		return fmt.Errorf("sim: schedule replay: startMs %d is outside [0, %d]", r.StartMs, int64(replayStartMsMax))
	}
	if len(r.Draws) > faults.EntriesMax {
		return fmt.Errorf("sim: schedule replay: %d incarnations' draws, more than %d", len(r.Draws), faults.EntriesMax)
	}
	for i, d := range r.Draws {
		if len(d.Floats) > faults.EntriesMax || len(d.RetryIDs) > faults.EntriesMax {
			return fmt.Errorf("sim: schedule replay: draws[%d]: more than %d floats or retry ids", i, faults.EntriesMax)
		}
		for j, f := range d.Floats {
			if !(f >= 0 && f < 1) {
				return fmt.Errorf("sim: schedule replay: draws[%d].floats[%d] %g is outside [0, 1)", i, j, f)
			}
		}
		for j, id := range d.RetryIDs {
			if _, err := uuid.Parse(id); err != nil {
				return fmt.Errorf("sim: schedule replay: draws[%d].retryIds[%d] %q: %w", i, j, id, err)
			}
		}
	}
	return nil
}

// start is the scheduler's epoch for the schedule: the replay's start, or the zero time (the
// scheduler's own epoch, Unix 0) for a drawn schedule.
func (s *Schedule) start() time.Time {
	if s.Replay == nil {
		return time.Time{}
	}
	return time.UnixMilli(s.Replay.StartMs).UTC()
}

// providerName is the name the world's provider goes by: the replayed log's, or "simulated".
func (s *Schedule) providerName() string {
	if s.Replay == nil || s.Replay.Provider == "" {
		return simulatedProviderName
	}
	return s.Replay.Provider
}

// simulatedProviderName is the simulated provider's own name.
const simulatedProviderName = "simulated"

// scriptedRandom gives the harness a replay's draws for one incarnation, then the seed's.
type scriptedRandom struct {
	floats []float64
	bytes  []byte
	seeded harness.Random
}

// randomFor is the random source of the incarnation-th incarnation (from 1): seeded, unless the
// schedule replays draws for it.
func (s *Schedule) randomFor(incarnation int, seeded harness.Random) harness.Random {
	if s.Replay == nil || incarnation > len(s.Replay.Draws) {
		return seeded
	}
	d := s.Replay.Draws[incarnation-1]
	r := &scriptedRandom{floats: d.Floats, seeded: seeded}
	for _, id := range d.RetryIDs {
		parsed, err := uuid.Parse(id)
		if err != nil {
			panic(fmt.Sprintf("sim: invariant: a validated replay's retry id %q does not parse: %v", id, err))
		}
		r.bytes = append(r.bytes, parsed[:]...)
	}
	return r
}

func (r *scriptedRandom) Float64() float64 {
	if len(r.floats) == 0 {
		return r.seeded.Float64()
	}
	f := r.floats[0]
	r.floats = r.floats[1:]
	return f
}

func (r *scriptedRandom) Read(p []byte) (int, error) {
	n := copy(p, r.bytes)
	r.bytes = r.bytes[n:]
	if n == len(p) {
		return n, nil
	}
	m, err := r.seeded.Read(p[n:])
	return n + m, err
}

// jitterDraw is a draw u in [0, 1) that makes the seed's delay formula (harness.LocalDelayMs)
// give delayMs for the retry-th retry under policy, and whether there is one: the draw a log's
// delay implies. The formula rounds to whole milliseconds, so an interval of draws gives each
// delay; the middle of it is taken, the draw farthest from giving another.
func jitterDraw(policy harness.RetryPolicy, retry int, delayMs float64) (float64, bool) {
	const top = 1 - 0x1p-53
	delay := func(u float64) float64 { return harness.LocalDelayMs(policy, retry, u) }
	// The formula grows with the draw: the first draw giving at least delayMs, and the first
	// giving more, bound the interval.
	firstAtLeast := func(want float64, strictly bool) float64 {
		lo, hi := 0.0, top
		for range 64 {
			mid := (lo + hi) / 2
			if got := delay(mid); got > want || !strictly && got == want {
				hi = mid
			} else {
				lo = mid
			}
		}
		return hi
	}
	low := firstAtLeast(delayMs, false)
	if delay(0) == delayMs {
		low = 0
	}
	if delay(low) != delayMs {
		return 0, false
	}
	high := firstAtLeast(delayMs, true)
	if delay(top) == delayMs {
		high = top
	}
	u := (low + high) / 2
	if delay(u) != delayMs {
		u = low
	}
	return u, true
}
