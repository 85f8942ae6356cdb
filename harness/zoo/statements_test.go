package zoo_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/harness/zoo"
)

// pointOf is where a window puts a draw u, before rounding.
func pointOf(w harness.DelayWindow, u float64) float64 {
	if w.Falling {
		return w.HighMs - u*(w.HighMs-w.LowMs)
	}
	return w.LowMs + u*(w.HighMs-w.LowMs)
}

// Every strategy of the zoo keeps what it states: each own delay is its window's point at the
// decision's last draw, to the millisecond, whatever the retry, the chain so far and the draw.
func TestZooDelaysAreTheirStatedWindowsPoints(t *testing.T) {
	for _, name := range zoo.Names() {
		t.Run(name, func(t *testing.T) {
			s := build(t, name, "")
			stater, ok := s.(harness.DelayWindowStater)
			require.True(t, ok, "%s states no delay window", name)
			for _, u := range []float64{0, 0.1, 0.25, 0.5, 0.75, 0.999999} {
				var earlier []float64
				for n := 1; n <= 12; n++ {
					fresh := build(t, name, "") // a fresh bucket or quota: no retry is throttled away
					draws := 0
					d := fresh.Decide(harness.RetryContext{Failure: rateLimit, Retry: n, EarlierDelaysMs: earlier, Random: fixed(u, &draws)})
					require.False(t, d.GiveUp, "retry %d", n)
					w := stater.DelayWindow(n, earlier)
					if w.LowMs != w.HighMs {
						assert.Positive(t, draws, "retry %d: a window that is not a point is drawn from", n)
					}
					point := math.Min(pointOf(w, u), s.CapMs())
					assert.LessOrEqual(t, math.Abs(d.DelayMs-point), 0.5, "retry %d, draw %g: waits %g, the window %+v puts it at %g", n, u, d.DelayMs, w, point)
					earlier = append(earlier, d.DelayMs)
				}
			}
		})
	}
}

// Every strategy of the zoo keeps what it states about Retry-After: a hint within the limit is
// waited exactly or at least, as stated; beyond it (or when ignored) the hint changes nothing in
// the delay, or normal mode gives up, as stated.
func TestZooKeepsItsRetryAfterStatement(t *testing.T) {
	for _, name := range zoo.Names() {
		t.Run(name, func(t *testing.T) {
			s := build(t, name, "")
			use := harness.RetryAfterOf(s)
			decide := func(hint float64) harness.RetryDecision {
				draws := 0
				f := rateLimit
				f.ProviderRetryAfterMs = hint
				return build(t, name, "").Decide(harness.RetryContext{Failure: f, Retry: 1, Random: fixed(0.5, &draws)})
			}
			own := decide(0) // no hint: the strategy's own delay
			for _, hint := range []float64{1, 499.5, 2000, 7999.2, 10000, 59999.5, 60000, 90000} {
				d := decide(hint)
				switch {
				case use.Within == harness.RetryAfterIgnored:
					assert.Equal(t, own, d, "hint %g is ignored", hint)
				case hint <= use.LimitMs && use.Within == harness.RetryAfterExact:
					assert.Equal(t, harness.Wait(hint), d, "hint %g is waited exactly", hint)
				case hint <= use.LimitMs:
					assert.False(t, d.GiveUp, "hint %g", hint)
					assert.GreaterOrEqual(t, d.DelayMs, hint, "hint %g is waited at least", hint)
				case use.GivesUpBeyond && s.Mode() == harness.ModeNormal:
					assert.True(t, d.GiveUp, "hint %g is beyond the limit %g", hint, use.LimitMs)
				default:
					assert.Equal(t, own, d, "hint %g beyond the limit gets the strategy's own delay", hint)
				}
			}
		})
	}
}

// A strategy that states nothing about Retry-After is held to the strictest statement: exact up
// to its cap, normal mode giving up beyond.
func TestRetryAfterOfDefaultsToTheStrictest(t *testing.T) {
	assert.Equal(t, harness.RetryAfterUse{Within: harness.RetryAfterExact, LimitMs: 1234, GivesUpBeyond: true}, harness.RetryAfterOf(silent{}))
	assert.Equal(t, "exact up to 1234 ms, normal mode gives up beyond", harness.RetryAfterOf(silent{}).String())
	sdk, err := zoo.NewSDK(zoo.DefaultSDKParams())
	require.NoError(t, err)
	assert.Equal(t, "at-least up to 60000 ms, own delay beyond", harness.RetryAfterOf(sdk).String())
	p := zoo.DefaultSDKParams()
	p.RetryAfterMaxMs = 0
	sdk, err = zoo.NewSDK(p)
	require.NoError(t, err)
	assert.Equal(t, "ignored", harness.RetryAfterOf(sdk).String(), "retryAfterMaxMs 0 ignores every hint")
}

// silent is a strategy that states nothing.
type silent struct{}

func (silent) Key() string                                       { return "silent" }
func (silent) Mode() harness.Mode                                { return harness.ModeNormal }
func (silent) Budget() int                                       { return 1 }
func (silent) CapMs() float64                                    { return 1234 }
func (silent) Decide(harness.RetryContext) harness.RetryDecision { return harness.Wait(1) }
