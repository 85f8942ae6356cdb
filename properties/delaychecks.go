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
		want, drawn, judged := x.ownDelayRule(i)
		if !judged {
			continue
		}
		d, ok := x.drawFor(r.seq, consumed)
		if ok {
			consumed = d
		} else if drawn {
			v.add(r.seq, r.timeMs, "retry #%d waits %g ms, a delay of its own, but no random number was drawn for it (after the one the previous delay used)", r.data.Retry, r.data.DelayMs)
			continue
		}
		u := 0.0
		if ok {
			u = x.run.Trace.Draws[d].Float
		}
		if got, what := want(u); got != "" {
			v.add(r.seq, r.timeMs, "retry #%d waits %g ms, but %s gives %s on the number it drew (%g)", r.data.Retry, r.data.DelayMs, what, got, u)
		}
	}
}

// ownDelayRule is how the i-th llm/retry's own delay follows from its draw: want says what is
// wrong with the recorded delay given the draw u ("" if nothing) and names the rule; drawn is
// whether the delay depends on a draw at all. judged is false when nothing states a rule.
func (x *index) ownDelayRule(i int) (want func(u float64) (got, what string), drawn, judged bool) {
	r := x.retries[i].data
	if s := x.run.Strategy; s != nil {
		if s.Window == nil {
			return nil, false, false
		}
		w := s.Window(r.Retry, x.earlierDelays(i))
		return func(u float64) (string, string) {
			point := w.LowMs + u*(w.HighMs-w.LowMs)
			if w.Falling {
				point = w.HighMs - u*(w.HighMs-w.LowMs)
			}
			point = math.Min(point, s.CapMs)
			if math.Abs(r.DelayMs-point) <= delayTolerance {
				return "", ""
			}
			return formatDelay(point), "the window it states (" + formatWindow(w) + ")"
		}, w.LowMs != w.HighMs, true
	}
	p, known := x.policyFor(r)
	if !known {
		return nil, false, false
	}
	return func(u float64) (string, string) {
		if want := specLocalDelayMs(p, r.Retry, u); r.DelayMs != want {
			return formatDelay(want), "the spec's formula"
		}
		return "", ""
	}, p.JitterRatio != 0 && p.InitialDelayMs != 0, true
}

// drawFor is the place in Trace.Draws of the draw the record at seq consumed: the last Float64
// served before it was written, later than the one at after. ok is false when there is none.
func (x *index) drawFor(seq int64, after int) (int, bool) {
	draws := x.run.Trace.Draws
	for d := len(draws) - 1; d > after; d-- {
		if draws[d].ReadBytes == 0 && draws[d].SeqBefore < seq {
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

func formatDelay(ms float64) string { return fmtFloat(ms) + " ms" }

func formatWindow(w harness.DelayWindow) string {
	direction := "rising"
	if w.Falling {
		direction = "falling"
	}
	return "[" + fmtFloat(w.LowMs) + ", " + fmtFloat(w.HighMs) + "], " + direction
}

// fmtFloat writes a number in its shortest exact form, as %g does.
func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
