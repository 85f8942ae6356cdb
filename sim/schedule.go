package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/internal/jsonlimit"
	"github.com/turnsim/turnsim/internal/splitmix"
)

// ScheduleVersion is the version of the schedule file format this build writes and reads.
const ScheduleVersion = 1

// Scheduling strategies: how the scheduler picks the next runnable task.
const (
	StrategyUniform = "uniform"
	// StrategyPCT is probabilistic concurrency testing of depth Schedule.Depth.
	StrategyPCT = "pct"
)

// pctShare is the share of seeds scheduled with PCT; pctDepthMax its largest depth.
const (
	pctShare    = 0.3
	pctDepthMax = 5
)

// Schedule fixes everything about one simulated run: the seed (from which the scheduler's and
// the harness's random sources derive), the scheduling strategy, the swarm of faults drawn for
// the seed, and the explicit plan those faults produced. It is a plain JSON value: a schedule
// saved to a file replays exactly, without re-drawing anything.
type Schedule struct {
	Version  int    `json:"version"`
	Seed     int64  `json:"seed"`
	Strategy string `json:"strategy"`
	// Depth is PCT's depth (the number of priority change points plus one); 0 for uniform.
	Depth int          `json:"depth,omitempty"`
	Swarm faults.Swarm `json:"swarm"`
	Plan  faults.Plan  `json:"plan"`
	// Replay is what a schedule derived from a production log carries beyond its plan (see
	// ScheduleFromLog); nil for a drawn schedule.
	Replay *Replay `json:"replay,omitempty"`
}

// Random streams derived from a seed, one per consumer, so that drawing more in one never shifts
// another.
const (
	streamPlan uint64 = iota
	streamScheduler
	streamHarness
	streamStrategy
	// streamToolArguments feeds the arguments of calls to a user's tools (Agent.Arguments).
	streamToolArguments
	// streamAim feeds the actions an Agent's Aim adds to a seed's plan (Agent.Schedule).
	streamAim
)

// deriveSeed mixes a seed and a stream number with SplitMix64's finaliser (splitmix.Derive).
func deriveSeed(seed int64, stream uint64) int64 { return splitmix.Derive(seed, stream) }

// NewSchedule draws the schedule of a seed. allowed restricts the swarm to those faults (nil:
// the whole catalogue), as simrun's -faults flag does.
func NewSchedule(seed int64, allowed []string) Schedule {
	swarm, plan := faults.DrawSchedule(deriveSeed(seed, streamPlan), allowed)
	plan, wired := withWire(seed, allowed, plan)
	maps.Copy(swarm, wired)
	return scheduleOf(seed, swarm, plan)
}

// newRunSchedule is NewSchedule(seed, allowed) without its Swarm, for a caller that only runs it
// and reads nothing of it (RunSeedAgent): a run reads the plan and the strategy, never the swarm.
func newRunSchedule(seed int64, allowed []string) Schedule {
	_, plan := faults.DrawSchedule(deriveSeed(seed, streamPlan), allowed)
	plan, _ = withWire(seed, allowed, plan)
	return scheduleOf(seed, nil, plan)
}

// scheduleOf is the schedule of seed with swarm and plan, and the seed's strategy.
func scheduleOf(seed int64, swarm faults.Swarm, plan faults.Plan) Schedule {
	s := Schedule{
		Version:  ScheduleVersion,
		Seed:     seed,
		Strategy: StrategyUniform,
		Swarm:    swarm,
		Plan:     plan,
	}
	// The strategy comes from its own stream, so switching it never changes the plan: a
	// splitmix.Rand draws what faults.NewRand of its seed would, without a *rand.Rand.
	rng := splitmix.New(deriveSeed(seed, streamStrategy))
	if rng.Float64() < pctShare {
		s.Strategy, s.Depth = StrategyPCT, 1+rng.Intn(pctDepthMax)
	}
	return s
}

// Validate refuses a schedule this build cannot replay faithfully.
func (s Schedule) Validate() error {
	if s.Version != ScheduleVersion {
		return fmt.Errorf("sim: schedule version %d is not supported (this build reads version %d)", s.Version, ScheduleVersion)
	}
	switch {
	case s.Strategy == StrategyUniform && s.Depth != 0:
		return fmt.Errorf("sim: schedule depth %d: only the pct strategy has a depth", s.Depth)
	case s.Strategy == StrategyPCT && (s.Depth < 1 || s.Depth > 100):
		return fmt.Errorf("sim: schedule depth %d: pct needs a depth from 1 to 100", s.Depth)
	case s.Strategy != StrategyUniform && s.Strategy != StrategyPCT:
		return fmt.Errorf("sim: schedule strategy %q is unknown (known: %s, %s)", s.Strategy, StrategyUniform, StrategyPCT)
	}
	names := make([]string, 0, len(s.Swarm))
	for name := range s.Swarm {
		names = append(names, name)
	}
	slices.Sort(names) // so the same bad file always gets the same message
	for _, name := range names {
		rate := s.Swarm[name]
		if _, ok := faults.Lookup(name); !ok {
			return fmt.Errorf("sim: schedule swarm: unknown fault %q", name)
		}
		if !(rate >= 0 && rate <= 1) {
			return fmt.Errorf("sim: schedule swarm: fault %q has rate %g outside [0, 1]", name, rate)
		}
	}
	if s.Replay != nil {
		if err := s.Replay.Validate(); err != nil {
			return err
		}
	}
	if err := s.Plan.Validate(); err != nil {
		return err
	}
	return needsWire(&s.Plan)
}

// ScheduleBytesMax bounds a schedule or corpus file: drawn and shrunk schedules are a few KB, so
// 4 MiB is hundreds of times any real one.
const ScheduleBytesMax = 4 << 20

// scheduleLimits bound a schedule file's shape before it is decoded: the decoder builds a struct
// for every object, so a 4 MiB file of 1.4 million {} actions cost 887 MB before Validate could
// refuse it. No list of a valid plan holds more than faults.EntriesMax entries, and a drawn
// schedule holds a few hundred objects; a key given twice would be read as its last value.
var scheduleLimits = jsonlimit.Limits{
	Bytes:         ScheduleBytesMax,
	Depth:         32,
	Elements:      faults.EntriesMax,
	Containers:    100_000,
	DuplicateKeys: true,
}

// checkScheduleShape refuses a schedule or corpus file whose shape breaks scheduleLimits. A file
// that is not JSON is left to the decoder, which stops at the first bad byte and says so in its
// own words.
func checkScheduleShape(data []byte) error {
	if err := notAnObject(data); err != nil {
		return err
	}
	var e *jsonlimit.Error
	if err := jsonlimit.CheckBytes(data, scheduleLimits); errors.As(err, &e) && e.Limit {
		return fmt.Errorf("sim: schedule: at byte %d: %s", e.Offset, e.Reason)
	}
	return nil
}

// ParseSchedule decodes and validates a schedule file. Unknown fields, trailing data, a key given
// twice and a version this build does not read are errors: a schedule is never misread.
func ParseSchedule(data []byte) (Schedule, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return Schedule{}, fmt.Errorf("sim: schedule: the file is empty")
	}
	if err := checkScheduleShape(data); err != nil {
		return Schedule{}, err
	}
	var header struct {
		Version *int `json:"version"`
	}
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&header); err != nil {
		return Schedule{}, fmt.Errorf("sim: schedule: %w", err)
	}
	if header.Version == nil {
		return Schedule{}, fmt.Errorf("sim: schedule: no version field: not a turnsim schedule file")
	}
	if *header.Version != ScheduleVersion {
		return Schedule{}, fmt.Errorf("sim: schedule version %d is not supported (this build reads version %d)", *header.Version, ScheduleVersion)
	}
	var s Schedule
	decoder := json.NewDecoder(bytes.NewReader(data))
	decoder.DisallowUnknownFields()
	if err := decoder.Decode(&s); err != nil {
		return Schedule{}, fmt.Errorf("sim: schedule: %w", err)
	}
	if decoder.More() {
		return Schedule{}, fmt.Errorf("sim: schedule: trailing data after the JSON object")
	}
	if err := s.Validate(); err != nil {
		return Schedule{}, err
	}
	return s, nil
}

// MarshalIndent renders the schedule as indented JSON, the form schedule files are written in.
func (s Schedule) MarshalIndent() ([]byte, error) {
	return json.MarshalIndent(s, "", "  ")
}
