package properties

import (
	"math"
	"strconv"

	"github.com/turnsim/turnsim/harness"
)

// delay-exact replays each delay llm-retry computed itself on the number it drew. The world
// records every number its random source serves the harness (Trace.Draws: the world's own
// record, in the order served), so the oracle needs no word of the harness's about the jitter.
//
// Pairing: a locally computed delay consumed the last Float64 the world served before its
// llm/retry was written (the latest draw whose log length at serving was below the record's
// seq), and no two records consume the same draw. This is how the seed's strategy draws: one
// Float64 per local delay, taken while deciding, before the record is appended; a Read is a
// retry id's bytes, never a delay's. A draw whose decision wrote nothing (a cancel meanwhile, a
// refused append, a crash) is simply not the last before any record. A strategy that draws more
// than once for a decision (a rejection coin, then the backoff) uses its last draw for the
// delay, as its statement says.
//
// The delay it must equal: under the seed's policy, the spec's formula on that draw, exactly
// (whole milliseconds); under a strategy that states its window (harness.DelayWindowStater),
// the window's point at that draw, to the millisecond (its rounding is its own). A window that
// is a single point needs no draw. A strategy that states no window is judged only by
// delay-within-cap.

// delayTolerance is how far a stated window's point may lie from the delay: half a millisecond
// of rounding, and a hair for the float order in which the strategy computes it.
const delayTolerance = 0.5 + 1e-9

func checkDelayExact(x *index, v *violations) {
	if !x.run.Traced {
		return // the draws are the world's record: a log alone does not hold them
	}
	consumed := -1 // the last draw a delay consumed, by its place in Trace.Draws
	for i, r := range x.retries {
		use, stated := x.retryAfterFor(r.data)
		if !stated || hintRules(use, r.data) {
			continue // the provider's Retry-After decides: retry-after-exact judges it
		}
		rule, judged := x.ownDelayRule(i)
		if !judged {
			continue
		}
		u := 0.0
		if d, ok := x.drawFor(r.seq, consumed); ok {
			consumed, u = d, x.run.Trace.Draws[d].Float
		} else if rule.drawn {
			v.add(r.seq, r.timeMs, "retry #%d waits %g ms, a delay of its own, but no random number was drawn for it (after the one the previous delay used)", r.data.Retry, r.data.DelayMs)
			continue
		}
		if want, ok := rule.delayAt(u, r.data.DelayMs); !ok {
			v.add(r.seq, r.timeMs, "retry #%d waits %g ms, but %s gives %g ms on the number it drew (%g)", r.data.Retry, r.data.DelayMs, rule.name(), want, u)
		}
	}
}

// delayRule is how an own delay follows from its draw: the spec's formula under policy (seed), or
// a strategy's stated window.
type delayRule struct {
	seed   bool
	policy harness.RetryPolicy
	window harness.DelayWindow
	retry  int
	capMs  float64
	// drawn is whether the delay depends on a draw at all.
	drawn bool
}

// ownDelayRule is the rule the i-th llm/retry's own delay follows; judged is false when nothing
// states one.
func (x *index) ownDelayRule(i int) (rule delayRule, judged bool) {
	r := &x.retries[i].data
	if s := x.run.Strategy; s != nil {
		if s.Window == nil {
			return delayRule{}, false
		}
		w := s.Window(r.Retry, x.earlierDelays(i))
		return delayRule{window: w, retry: r.Retry, capMs: s.CapMs, drawn: w.LowMs != w.HighMs}, true
	}
	p, known := x.policyFor(*r)
	if !known {
		return delayRule{}, false
	}
	return delayRule{seed: true, policy: p, retry: r.Retry, drawn: p.JitterRatio != 0 && p.InitialDelayMs != 0}, true
}

// delayAt is the delay the rule gives the draw u, and whether delayMs is it: exactly, for the
// spec's formula; within delayTolerance of the window's point, capped, for a stated window.
func (rule delayRule) delayAt(u, delayMs float64) (want float64, ok bool) {
	if rule.seed {
		want = specLocalDelayMs(rule.policy, rule.retry, u)
		return want, delayMs == want
	}
	w := rule.window
	want = w.LowMs + u*(w.HighMs-w.LowMs)
	if w.Falling {
		want = w.HighMs - u*(w.HighMs-w.LowMs)
	}
	want = math.Min(want, rule.capMs)
	return want, math.Abs(delayMs-want) <= delayTolerance
}

// name names the rule in a violation.
func (rule delayRule) name() string {
	if rule.seed {
		return "the spec's formula"
	}
	direction := "rising"
	if rule.window.Falling {
		direction = "falling"
	}
	return "the window it states ([" + fmtFloat(rule.window.LowMs) + ", " + fmtFloat(rule.window.HighMs) + "], " + direction + ")"
}

// drawFor is the place in Trace.Draws of the draw the record at seq consumed: the last Float64
// served before it was written, later than the one at after. ok is false when there is none.
func (x *index) drawFor(seq int64, after int) (int, bool) {
	draws := x.run.Trace.Draws
	for d := len(draws) - 1; d > after; d-- {
		if !draws[d].Read && draws[d].SeqBefore < seq {
			return d, true
		}
	}
	return -1, false
}

// earlierDelays are the delays the chain of the i-th llm/retry waited before it, oldest first:
// what a strategy decided that retry from.
func (x *index) earlierDelays(i int) []float64 {
	r := x.retries[i].data
	chain := retryChain{r.Turn, r.Step, r.Provider, r.PolicyKey}
	var earlier []float64
	for _, e := range x.retries[:i] {
		if (retryChain{e.data.Turn, e.data.Step, e.data.Provider, e.data.PolicyKey}) == chain {
			earlier = append(earlier, e.data.DelayMs)
		}
	}
	return earlier
}

// fmtFloat writes a number in its shortest exact form, as %g does.
func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
