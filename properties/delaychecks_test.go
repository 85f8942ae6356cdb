package properties

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/turnsim/turnsim/harness"
)

// retriesRun is a traced run of one step whose failures were retried with the given delays (and
// Retry-After hints, when given), under the default policy (500 ms doubling, ±10 %).
func retriesRun(t *testing.T, delays []float64, hints ...float64) *Run {
	events := []harness.EventData{harness.TurnStart{Turn: 1}, harness.StepStart{Turn: 1, Step: 1}}
	for i, d := range delays {
		f := harness.Failure{Code: harness.CodeServer, Message: "down"}
		if i < len(hints) {
			f.Code, f.ProviderRetryAfterMs = harness.CodeRateLimit, hints[i]
		}
		events = append(events,
			harness.LlmRetry{RetryID: "r1", Turn: 1, Step: 1, Provider: "p", Mode: harness.ModeNormal, PolicyKey: "k", Retry: i + 1, DelayMs: d, Failure: f},
			harness.LlmRetryStarted{RetryID: "r1", Turn: 1, Step: 1, Retry: i + 1})
	}
	r := run(t, events...)
	r.Traced = true
	return r
}

// drawsBefore are Float64 draws served while the log held seqs[i] events.
func drawsBefore(seqs []int64, floats ...float64) []Draw {
	draws := make([]Draw, len(floats))
	for i, f := range floats {
		draws[i] = Draw{SeqBefore: seqs[i], Float: f}
	}
	return draws
}

func TestDelayExactReplaysTheSpecsFormulaOnTheDraw(t *testing.T) {
	// Retry 1 at seq 3 (exp 500), retry 2 at seq 5 (exp 1000).
	cases := map[string]struct {
		delays []float64
		draws  []Draw
		fires  int
	}{
		"each delay its formula on its draw":                       {[]float64{475, 1100}, drawsBefore([]int64{2, 4}, 0.25, 1), 0},
		"a retry id read between":                                  {[]float64{475, 1100}, append(drawsBefore([]int64{2}, 0.25), Draw{SeqBefore: 2, Read: true, ReadBytes: 16}, Draw{SeqBefore: 4, Float: 0.9999999}), 0},
		"the draw of a decision that wrote nothing is passed over": {[]float64{475, 1100}, drawsBefore([]int64{2, 2, 4, 4}, 0.7, 0.25, 0.3, 1), 0},
		"one-sided: shortened within the window":                   {[]float64{475, 975}, drawsBefore([]int64{2, 4}, 0.5, 0.5), 2},
		"no draw for the second":                                   {[]float64{475, 1000}, drawsBefore([]int64{2}, 0.25), 1},
		"a draw served after the record":                           {[]float64{500}, drawsBefore([]int64{3}, 0.5), 1},
		"a whole millisecond off":                                  {[]float64{476}, drawsBefore([]int64{2}, 0.25), 1},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			r := retriesRun(t, c.delays)
			r.Trace.Draws = c.draws
			assert.Equal(t, c.fires, fired(r)["delay-exact"], "%v", Check(r))
		})
	}
	t.Run("a Retry-After within maxDelay is not the formula's", func(t *testing.T) {
		r := retriesRun(t, []float64{3000}, 3000)
		assert.Zero(t, fired(r)["delay-exact"], "%v", Check(r))
	})
	t.Run("a log alone holds no draws", func(t *testing.T) {
		r := retriesRun(t, []float64{999})
		r.Traced = false
		assert.Zero(t, fired(r)["delay-exact"])
	})
}

func TestDelayExactHoldsAStrategyToItsWindow(t *testing.T) {
	window := func(retry int, earlier []float64) harness.DelayWindow {
		return harness.DelayWindow{LowMs: 100 * float64(len(earlier)), HighMs: 100*float64(len(earlier)) + 200, Falling: retry == 2}
	}
	cases := map[string]struct {
		delays []float64
		window func(int, []float64) harness.DelayWindow
		fires  int
	}{
		"rising, then falling, from the chain so far": {[]float64{50, 250}, window, 0},
		"rounded to the millisecond":                  {[]float64{50, 250.4}, window, 0},
		"the wrong side":                              {[]float64{150, 250}, window, 1},
		"no window stated":                            {[]float64{7, 9}, nil, 0},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			r := retriesRun(t, c.delays)
			r.Strategy = &StrategyInfo{Key: "k", Mode: harness.ModeNormal, Budget: 5, CapMs: 1000, RetryAfter: harness.RetryAfterUse{Within: harness.RetryAfterIgnored}, Window: c.window}
			r.Trace.Draws = drawsBefore([]int64{2, 4}, 0.25, 0.25)
			assert.Equal(t, c.fires, fired(r)["delay-exact"], "%v", Check(r))
		})
	}
}
