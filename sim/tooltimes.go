package sim

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/turnsim/turnsim/harness"
)

// ToolTimes measures a user's tools as the world runs them: how often each ran and returned an
// error, and the wall time its runs took against the virtual time they took. A tool that waits
// with time.Sleep or a timer of its own, instead of the runtime's Sleep, takes wall time the
// virtual clock never sees: it slows every run (one measured 3,000 times slower) and its waits
// are beyond the reach of cancellation and of the seed. Nothing of it enters a run's log or its
// digest: the measures are taken beside the run.
type ToolTimes struct {
	mu     sync.Mutex
	byName map[string]*ToolCoverage
}

// ToolCoverage is what ToolTimes measured of one tool.
type ToolCoverage struct {
	Name         string
	Runs, Errors int
	// Wall and Virtual are the time its runs took, on the wall clock and on the world's.
	Wall, Virtual time.Duration
}

// Thresholds of a slow-tool warning: a tool whose runs take, on average, at least this much wall
// time, and this many times their virtual time.
const (
	slowToolWallPerRunMin = time.Millisecond
	slowToolWallRatioMin  = 10
)

// TimeTools returns the agent with each of its tools measured by the returned ToolTimes; with
// PerSeed, each seed's agent's tools. An agent without tools of its own (turnsim's simulated ones
// keep to virtual time) is returned as it is, with nothing to measure.
func TimeTools(a Agent) (Agent, *ToolTimes) {
	times := &ToolTimes{byName: map[string]*ToolCoverage{}}
	return a.withEachSeed(times.timed), times
}

// timed is a with each of its tools measured by t.
func (t *ToolTimes) timed(a Agent) Agent {
	if a.Tools == nil {
		return a
	}
	tools := a.Tools
	a.Tools = func(rt harness.Runtime) []harness.Tool {
		made := tools(rt)
		timed := make([]harness.Tool, len(made))
		for i, tool := range made {
			timed[i] = tool
			if run := tool.Run; run != nil {
				name := tool.Name
				timed[i].Run = func(ctx context.Context, arguments string) (string, error) {
					wallFrom, virtualFrom := time.Now(), rt.Clock().Now()
					out, err := run(ctx, arguments)
					t.add(name, err != nil, time.Since(wallFrom), rt.Clock().Now().Sub(virtualFrom))
					return out, err
				}
			}
		}
		return timed
	}
	return a
}

func (t *ToolTimes) add(name string, failed bool, wall, virtual time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	c := t.byName[name]
	if c == nil {
		c = &ToolCoverage{Name: name}
		t.byName[name] = c
	}
	c.Runs++
	if failed {
		c.Errors++
	}
	c.Wall += wall
	c.Virtual += virtual
}

// Coverage lists every tool that ran, by name.
func (t *ToolTimes) Coverage() []ToolCoverage {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	list := make([]ToolCoverage, 0, len(t.byName))
	for _, c := range t.byName {
		list = append(list, *c)
	}
	slices.SortFunc(list, func(a, b ToolCoverage) int { return strings.Compare(a.Name, b.Name) })
	return list
}

// Warnings names each tool whose wall time is far above its virtual time, and why it matters.
func (t *ToolTimes) Warnings() []string {
	var warnings []string
	for _, c := range t.Coverage() {
		if c.Runs == 0 || c.Wall/time.Duration(c.Runs) < slowToolWallPerRunMin || c.Wall < slowToolWallRatioMin*c.Virtual {
			continue
		}
		warnings = append(warnings, fmt.Sprintf("tool %q took %v of wall time in %d runs, for %v of virtual time: a tool that waits with time.Sleep or a timer of its own, instead of rt.Sleep(d, ctx) on the runtime it was made with, slows every run and waits beyond the step's cancellation and the seed's control",
			c.Name, c.Wall.Round(time.Millisecond), c.Runs, c.Virtual.Round(time.Millisecond)))
	}
	return warnings
}
