package herd

// The herd's provider: one simulated model that every agent of a herd sends its requests to. It
// has two modes. In capacity mode it serves a rate (a token bucket on virtual time) and a number
// of concurrent requests, answers the overflow RATE_LIMIT with a Retry-After derived from when
// capacity frees up (or SERVER without a hint), and can be down for a window of time. In
// optimistic-concurrency mode it is the row of Brooker's experiment: clients race to write it,
// one per round wins, the others fail with a conflict and must try again.

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand"
	"slices"
	"sync"
	"time"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/sim/sched"
)

// ProviderMode says which model a herd's provider follows.
type ProviderMode string

// The provider models.
const (
	// ProviderCapacity is a provider with a request rate and a concurrency it can serve.
	ProviderCapacity ProviderMode = "capacity"
	// ProviderOCC is Brooker's optimistic-concurrency row: one write wins per round.
	ProviderOCC ProviderMode = "occ"
)

// OutageWindow is a stretch of virtual time, [FromMs, ToMs) from the start of the run, during
// which the provider answers SERVER to everything. The zero value is no outage.
type OutageWindow struct {
	FromMs float64 `json:"fromMs"`
	ToMs   float64 `json:"toMs"`
}

// contains reports whether the virtual instant atMs falls in the window.
func (w OutageWindow) contains(atMs float64) bool { return atMs >= w.FromMs && atMs < w.ToMs }

// ProviderModel configures a herd's provider. Start from DefaultCapacityModel or
// DefaultOCCModel: every field is used as given.
type ProviderModel struct {
	Mode ProviderMode `json:"mode"`

	// Capacity mode.

	// RequestsPerSecond is the token bucket's refill rate; 0 means no rate limit.
	RequestsPerSecond float64 `json:"requestsPerSecond"`
	// BurstRequests is the bucket's size: how many requests may arrive at once after a pause
	// (the defaults: a fifth of a second's worth).
	BurstRequests float64 `json:"burstRequests"`
	// Concurrency is how many requests it serves at once; 0 means no limit.
	Concurrency int `json:"concurrency"`
	// ServiceMs is the mean time to serve a request: each takes a time drawn in
	// [ServiceMs/2, 3·ServiceMs/2).
	ServiceMs float64 `json:"serviceMs"`
	// RejectMs is how long a refusal (over capacity, or in the outage) takes to arrive.
	RejectMs float64 `json:"rejectMs"`
	// ServerFraction is the share of over-capacity answers that are SERVER with no hint
	// instead of RATE_LIMIT with one.
	ServerFraction float64 `json:"serverFraction"`
	// RetryAfterStepMs is the Retry-After's resolution: the wait until capacity frees up is
	// rounded up to a multiple of it (1000: whole seconds, as HTTP's Retry-After header).
	RetryAfterStepMs float64 `json:"retryAfterStepMs"`
	// Outage is a window in which every request fails SERVER; it then recovers.
	Outage OutageWindow `json:"outage"`

	// Optimistic-concurrency mode.

	// HopMs is one network hop, the mean one-way latency between a client and the row (Brooker's
	// simulator: 10 ms); HopSdMs its standard deviation (his: 2 ms). Each message's latency is
	// |N(HopMs, HopSdMs)|.
	HopMs   float64 `json:"hopMs"`
	HopSdMs float64 `json:"hopSdMs"`
	// RoundMs is the conflict round: time is cut into rounds of RoundMs, and among the writes
	// that reach the row in one round the first wins. A read-modify-write spends two hops between
	// its read and its write (the read's answer, the write's request), so the default is 2·HopMs.
	RoundMs float64 `json:"roundMs"`
}

// DefaultCapacityModel is a provider that serves 50 requests a second and 40 at once, each in
// about 800 ms, and refuses in 20 ms: three times in four RATE_LIMIT with a Retry-After rounded
// up to whole seconds (as HTTP's header), once in four SERVER with no hint (as an overloaded
// API's 503 or 529).
func DefaultCapacityModel() ProviderModel {
	return ProviderModel{
		Mode: ProviderCapacity, RequestsPerSecond: 50, BurstRequests: 10, Concurrency: 40,
		ServiceMs: 800, RejectMs: 20, ServerFraction: 0.25, RetryAfterStepMs: 1000,
	}
}

// DefaultOCCModel is Brooker's network, hops of 10 ± 2 ms, with rounds of two hops.
func DefaultOCCModel() ProviderModel {
	return ProviderModel{Mode: ProviderOCC, HopMs: 10, HopSdMs: 2, RoundMs: 20}
}

// Validate refuses a model that could not run or would never advance time, naming the field.
func (m ProviderModel) Validate() error {
	bad := func(field, format string, args ...any) error {
		return fmt.Errorf("herd: provider: %s: %s", field, fmt.Sprintf(format, args...))
	}
	nonNegative := func(field string, v float64) error {
		if reason := outOfRange(v, false); reason != "" {
			return bad(field, "%s", reason)
		}
		return nil
	}
	positive := func(field string, v float64) error {
		if reason := outOfRange(v, true); reason != "" {
			return bad(field, "%s", reason)
		}
		return nil
	}
	switch m.Mode {
	case ProviderCapacity:
		for _, f := range []struct {
			field string
			v     float64
		}{{"requestsPerSecond", m.RequestsPerSecond}, {"serviceMs", m.ServiceMs}, {"outage.fromMs", m.Outage.FromMs}, {"outage.toMs", m.Outage.ToMs}} {
			if err := nonNegative(f.field, f.v); err != nil {
				return err
			}
		}
		if m.RequestsPerSecond > 0 && (math.IsNaN(m.BurstRequests) || m.BurstRequests < 1) {
			return bad("burstRequests", "%g is below 1: no request could ever be admitted", m.BurstRequests)
		}
		if m.Concurrency < 0 {
			return bad("concurrency", "%d is negative", m.Concurrency)
		}
		if err := positive("rejectMs", m.RejectMs); err != nil {
			return err // a refusal that takes no time lets a retry loop spin at one instant
		}
		if err := positive("retryAfterStepMs", m.RetryAfterStepMs); err != nil {
			return err
		}
		if math.IsNaN(m.ServerFraction) || m.ServerFraction < 0 || m.ServerFraction > 1 {
			return bad("serverFraction", "%g is outside [0, 1]", m.ServerFraction)
		}
		if m.Outage.ToMs < m.Outage.FromMs {
			return bad("outage", "ends at %g ms, before it starts at %g ms", m.Outage.ToMs, m.Outage.FromMs)
		}
	case ProviderOCC:
		if err := positive("hopMs", m.HopMs); err != nil {
			return err
		}
		if err := nonNegative("hopSdMs", m.HopSdMs); err != nil {
			return err
		}
		if err := positive("roundMs", m.RoundMs); err != nil {
			return err
		}
	default:
		return bad("mode", "%q is not capacity or occ", string(m.Mode))
	}
	return nil
}

// herdProviderName is the provider's name in retry chains.
const herdProviderName = "herd"

// herdProvider is the shared provider. The scheduler runs one task at a time, but the provider
// is a harness.Provider like any other, so its state is guarded all the same; the lock is never
// held across a runtime call.
type herdProvider struct {
	model       ProviderModel
	rt          *sched.Scheduler
	maxRequests int

	mu  sync.Mutex
	rng *rand.Rand
	// Capacity mode: the bucket (tokens as of refilledAt) and the requests being served.
	tokens     float64
	refilledAt time.Duration
	serving    []*herdSlot
	// Optimistic-concurrency mode: the last round a write won.
	wonRound int64
	// What happened, in virtual time: every request's arrival, every success's answer, and the
	// failures by code.
	requests  []time.Duration
	successes []time.Duration
	failures  map[string]int
}

// herdSlot is one admitted request, served until end.
type herdSlot struct{ end time.Duration }

func newHerdProvider(model ProviderModel, rt *sched.Scheduler, seed int64, maxRequests int) *herdProvider {
	return &herdProvider{
		model: model, rt: rt, rng: rand.New(rand.NewSource(seed)), maxRequests: maxRequests,
		tokens: model.BurstRequests, wonRound: -1, failures: map[string]int{},
	}
}

// Name is the provider's name in retry chains.
func (p *herdProvider) Name() string { return herdProviderName }

// now is the virtual time since the start of the run.
func (p *herdProvider) now() time.Duration { return p.rt.Elapsed() }

// Stream takes one request: it records its arrival and, in capacity mode, admits or refuses it
// at once; the answer arrives through the stream, in virtual time.
func (p *herdProvider) Stream(ctx context.Context, _ harness.Request) (harness.Stream, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if len(p.requests) == p.maxRequests {
		// The run ends when this task yields; until then every request is refused.
		p.rt.Stop(FindingRequestLimit, fmt.Sprintf("the provider took %d requests, the herd's limit", p.maxRequests))
		return nil, &harness.LlmError{Failure: harness.Failure{Code: harness.CodeServer, Message: "request limit"}}
	}
	p.requests = append(p.requests, now)
	if p.model.Mode == ProviderOCC {
		return &occStream{p: p}, nil
	}
	nowMs := float64(now) / float64(time.Millisecond)
	if p.model.Outage.contains(nowMs) {
		return p.refuse(harness.Failure{Code: harness.CodeServer, Message: "outage", Status: 503}), nil
	}
	p.refillLocked(now)
	var waitMs float64
	over := false
	if p.model.Concurrency > 0 && len(p.serving) >= p.model.Concurrency {
		over = true
		earliest := p.serving[0].end
		for _, s := range p.serving[1:] {
			earliest = min(earliest, s.end)
		}
		waitMs = float64(earliest-now) / float64(time.Millisecond)
	}
	if p.model.RequestsPerSecond > 0 && p.tokens < 1 {
		over = true
		waitMs = math.Max(waitMs, (1-p.tokens)/p.model.RequestsPerSecond*1000)
	}
	if over {
		if p.model.ServerFraction > 0 && p.rng.Float64() < p.model.ServerFraction {
			return p.refuse(harness.Failure{Code: harness.CodeServer, Message: "overloaded", Status: 503}), nil
		}
		step := p.model.RetryAfterStepMs
		hint := math.Max(step, math.Ceil(waitMs/step)*step)
		return p.refuse(harness.Failure{Code: harness.CodeRateLimit, Message: "rate limited", Status: 429, ProviderRetryAfterMs: hint}), nil
	}
	if p.model.RequestsPerSecond > 0 {
		p.tokens--
	}
	service := herdDuration(p.model.ServiceMs * (0.5 + p.rng.Float64()))
	slot := &herdSlot{end: now + service}
	p.serving = append(p.serving, slot)
	return &servedStream{p: p, slot: slot, service: service}, nil
}

// refillLocked adds the tokens earned since the last refill, up to the bucket's size.
func (p *herdProvider) refillLocked(now time.Duration) {
	if p.model.RequestsPerSecond > 0 {
		earned := float64(now-p.refilledAt) / float64(time.Second) * p.model.RequestsPerSecond
		p.tokens = math.Min(p.model.BurstRequests, p.tokens+earned)
	}
	p.refilledAt = now
}

// refuse counts a refusal and returns the stream that delivers it after RejectMs.
func (p *herdProvider) refuse(f harness.Failure) harness.Stream {
	p.failures[f.Code]++
	return &failedStream{p: p, after: herdDuration(p.model.RejectMs), err: &harness.LlmError{Failure: f}}
}

// release ends a served request: its slot frees, and a success is recorded.
func (p *herdProvider) release(slot *herdSlot, succeeded bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if i := slices.Index(p.serving, slot); i >= 0 {
		p.serving = slices.Delete(p.serving, i, i+1)
	}
	if succeeded {
		p.successes = append(p.successes, p.now())
	}
}

// latency draws one message's network latency, |N(HopMs, HopSdMs)|.
func (p *herdProvider) latency() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return herdDuration(math.Abs(p.rng.NormFloat64()*p.model.HopSdMs + p.model.HopMs))
}

// write is a write reaching the row now: the first of its round wins.
func (p *herdProvider) write() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	round := int64(math.Floor(float64(p.now()) / float64(herdDuration(p.model.RoundMs))))
	if round == p.wonRound {
		return false
	}
	p.wonRound = round
	return true
}

// answered records how an optimistic-concurrency attempt ended.
func (p *herdProvider) answered(won bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if won {
		p.successes = append(p.successes, p.now())
	} else {
		p.failures[harness.CodeServer]++
	}
}

// herdAnswer is the text a successful request streams.
var herdAnswer = harness.Chunk{Kind: harness.ChunkText, Text: "ok"}

var herdFinish = harness.Chunk{Kind: harness.ChunkFinish, Finish: harness.FinishCompleted}

// errConflict is the optimistic-concurrency loser's failure: retryable, as a SERVER error is.
var errConflict = &harness.LlmError{Failure: harness.Failure{Code: harness.CodeServer, Message: "conflict", Status: 409}}

// servedStream is an admitted request: after its service time, the answer and its finish.
type servedStream struct {
	p       *herdProvider
	slot    *herdSlot
	service time.Duration
	sent    int
}

func (s *servedStream) Next(ctx context.Context) (harness.Chunk, error) {
	switch s.sent {
	case 0:
		err := s.p.rt.Sleep(s.service, ctx)
		s.p.release(s.slot, err == nil)
		if err != nil {
			return harness.Chunk{}, err
		}
		s.sent++
		return herdAnswer, nil
	case 1:
		s.sent++
		return herdFinish, nil
	}
	return harness.Chunk{}, io.EOF
}

// failedStream is a refusal, delivered after a delay.
type failedStream struct {
	p     *herdProvider
	after time.Duration
	err   error
}

func (s *failedStream) Next(ctx context.Context) (harness.Chunk, error) {
	if err := s.p.rt.Sleep(s.after, ctx); err != nil {
		return harness.Chunk{}, err
	}
	return harness.Chunk{}, s.err
}

// occStream is one optimistic-concurrency attempt: a hop to the row, the write, a hop back.
type occStream struct {
	p    *herdProvider
	sent int
}

func (s *occStream) Next(ctx context.Context) (harness.Chunk, error) {
	switch s.sent {
	case 0:
		if err := s.p.rt.Sleep(s.p.latency(), ctx); err != nil {
			return harness.Chunk{}, err
		}
		won := s.p.write()
		if err := s.p.rt.Sleep(s.p.latency(), ctx); err != nil {
			return harness.Chunk{}, err
		}
		s.p.answered(won)
		if !won {
			return harness.Chunk{}, errConflict
		}
		s.sent++
		return herdAnswer, nil
	case 1:
		s.sent++
		return herdFinish, nil
	}
	return harness.Chunk{}, io.EOF
}

// herdDuration converts milliseconds to a Duration, to the nanosecond.
func herdDuration(ms float64) time.Duration {
	return time.Duration(math.Round(ms * float64(time.Millisecond)))
}

// outOfRange says why v cannot be a herd's time or rate ("" when it can): not finite, negative
// (or, when positive, zero), or above the timer ceiling, past which virtual time overflowed and a
// run reported silent nonsense (1e18 ms of service finished in 1.7 s).
func outOfRange(v float64, positive bool) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0) || v < 0:
		return fmt.Sprintf("%g is not a finite number ≥ 0", v)
	case positive && v == 0:
		return fmt.Sprintf("%g is not a finite number > 0", v)
	case v > harness.TimerCeilingMs:
		return fmt.Sprintf("%g is above %g, the longest a timer waits", v, harness.TimerCeilingMs)
	}
	return ""
}
