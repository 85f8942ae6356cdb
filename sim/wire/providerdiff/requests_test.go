package providerdiff

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/harness/provider/anthropic"
	"github.com/turnsim/turnsim/harness/provider/openai"
	"github.com/turnsim/turnsim/internal/faultserver"
	"github.com/turnsim/turnsim/sim"
	"github.com/turnsim/turnsim/sim/sched"
)

// attemptOutcome is what one request gave the harness: the chunks, and the failure that ended it
// (empty code when it finished), read the way the turn loop reads them.
type attemptOutcome struct {
	Chunks []harness.Chunk
	// Before says whether the failure came before any chunk: only then can a real provider send
	// it as an HTTP status with headers.
	Before  bool
	Failure harness.Failure
}

// drainAttempt reads one stream to its end and assembles it, as the turn loop does.
func drainAttempt(ctx context.Context, p harness.Provider, req harness.Request) attemptOutcome {
	var out attemptOutcome
	s, err := p.Stream(ctx, req)
	var asm harness.BlockAssembler
	for err == nil {
		var c harness.Chunk
		c, err = s.Next(ctx)
		if errors.Is(err, io.EOF) {
			_, _, err = asm.Finish()
			break
		}
		if err == nil {
			out.Chunks = append(out.Chunks, c)
			err = asm.Add(c)
		}
	}
	if err != nil {
		out.Failure, _ = harness.FailureOf(err)
		out.Before = len(out.Chunks) == 0
	}
	return out
}

// simulatedAttempts plays a plan's answers through the simulator's provider model, on the
// deterministic scheduler, one request after another.
func simulatedAttempts(t *testing.T, plan faults.Plan) []attemptOutcome {
	plan.HorizonMs = math.MaxInt64 // every planned answer is served, however long they take
	s := sched.New(sched.Options{Seed: 1, MaxVirtualTime: 24 * time.Hour})
	var outs []attemptOutcome
	report := s.Run("main", func() {
		p := sim.PlanProvider(s, plan)
		for i := range plan.Answers {
			outs = append(outs, drainAttempt(context.Background(), p, harness.Request{Turn: 1, Step: 1, Attempt: i + 1}))
		}
	})
	require.Empty(t, report.Findings)
	return outs
}

// realAttempts plays the same answers through the fault server over loopback HTTP and a real
// adapter.
func realAttempts(t *testing.T, plan faults.Plan, adapter string) []attemptOutcome {
	fs, err := faultserver.New(faultserver.Config{Steps: faultserver.FromPlan(&plan), Scale: 0.002, MaxRequests: len(plan.Answers) + 1})
	require.NoError(t, err)
	srv := httptest.NewServer(fs)
	defer srv.Close()
	newProvider := func(timeout time.Duration) harness.Provider {
		var p harness.Provider
		clk := harness.Clock(wallClock{})
		switch adapter {
		case "openai":
			p, err = openai.New(openai.Config{BaseURL: srv.URL + "/v1", Model: "m", Clock: clk, Timeout: timeout})
		default:
			p, err = anthropic.New(anthropic.Config{BaseURL: srv.URL, Model: "m", Clock: clk, Timeout: timeout})
		}
		require.NoError(t, err)
		return p
	}
	quick, patient := newProvider(stallTimeout), newProvider(answerTimeout)
	req := harness.Request{Messages: []harness.Entry{{Role: harness.RoleUser, Text: "hi"}}, Tools: append(append([]string(nil), faults.ParallelTools...), faults.ExclusiveTools...)}
	var outs []attemptOutcome
	for _, a := range plan.Answers {
		p := patient
		if stalls(a) {
			p = quick
		}
		outs = append(outs, drainAttempt(context.Background(), p, req))
	}
	return outs
}

// The adapters' request timeouts. stallTimeout ends a planned TIMEOUT without a status (the server
// stalls until the client gives up); answerTimeout is every other request's, so long that a
// loaded machine's slowness is never taken for a timeout (250 ms for all once failed under load).
const (
	stallTimeout  = 250 * time.Millisecond
	answerTimeout = 30 * time.Second
)

// stalls reports whether the fault server answers a by stalling until the client times out.
func stalls(a faults.Answer) bool {
	return a.Fail != nil && !a.Fail.Plain && a.Fail.Code == harness.CodeTimeout && a.Fail.Status == 0
}

type wallClock struct{}

func (wallClock) Now() time.Time { return time.Now() }

// Known differences between the simulator's provider model and real HTTP, each a fact of the
// wire rather than a bug of either side; the test counts them and fails on any other.
const (
	// diffEmptyFinish: the model streams a finish chunk for an empty answer and lets the
	// assembler call it EMPTY_RESPONSE; the adapters report EMPTY_RESPONSE instead of the finish.
	diffEmptyFinish = "empty answer: finish chunk streamed by the model, not by the adapter"
	// diffMidStreamHeaders: a failure after some chunks arrives in-stream on a 200 response, so
	// it has no HTTP status and no Retry-After; the model gives it the plan's status and hint.
	diffMidStreamHeaders = "mid-stream failure: no status or Retry-After on the wire"
	// diffPlainStatus: the model's plain error has no status; over HTTP it is a 400.
	diffPlainStatus = "plain error: status 400 on the wire"
)

// compareAttempt returns "" when the two agree, a known difference's name, or what differs.
func compareAttempt(sim, real attemptOutcome, a faults.Answer) string {
	simChunks := sim.Chunks
	if sim.Failure.Code == harness.CodeEmptyResponse && len(simChunks) > 0 && len(real.Chunks) == len(simChunks)-1 && simChunks[len(simChunks)-1].Kind == harness.ChunkFinish {
		if fmt.Sprint(simChunks[:len(simChunks)-1]) == fmt.Sprint(real.Chunks) && real.Failure.Code == harness.CodeEmptyResponse {
			return diffEmptyFinish
		}
	}
	if fmt.Sprint(simChunks) != fmt.Sprint(real.Chunks) {
		return fmt.Sprintf("chunks differ:\n  sim  %v\n  real %v", simChunks, real.Chunks)
	}
	if sim.Failure.Code != real.Failure.Code {
		return fmt.Sprintf("code: sim %q, real %q (%s)", sim.Failure.Code, real.Failure.Code, real.Failure.Message)
	}
	sameHeaders := sim.Failure.Status == real.Failure.Status && sim.Failure.ProviderRetryAfterMs == real.Failure.ProviderRetryAfterMs
	switch {
	case sameHeaders:
		return ""
	case a.Fail != nil && a.Fail.Plain && real.Failure.Status == 400 && sim.Failure.Status == 0:
		return diffPlainStatus
	case !sim.Before && real.Failure.Status == 0 && real.Failure.ProviderRetryAfterMs == 0:
		return diffMidStreamHeaders
	}
	return fmt.Sprintf("status/retry-after: sim %d/%g, real %d/%g", sim.Failure.Status, sim.Failure.ProviderRetryAfterMs, real.Failure.Status, real.Failure.ProviderRetryAfterMs)
}

// differentialSeeds is how many seeds' plans are compared: TURNSIM_DIFF_SEEDS, default 30 (5
// under -short or the race detector).
func differentialSeeds(t *testing.T) int {
	n := 30
	if v := os.Getenv("TURNSIM_DIFF_SEEDS"); v != "" {
		var err error
		n, err = strconv.Atoi(v)
		require.NoError(t, err, "TURNSIM_DIFF_SEEDS")
	}
	if testing.Short() || raceEnabled {
		n = min(n, 5) // the race detector needs few seeds to see the adapters' goroutines race
	}
	return n
}

// The simulator's provider model checked against real HTTP: each seed's provider plan is played
// by the model and, over loopback, by the fault server through both real adapters; every
// request must give the harness the same chunks and the same failure (code, status, Retry-After),
// except for the known differences of the wire, which are counted and reported.
func TestProviderModelMatchesRealHTTP(t *testing.T) {
	seeds := differentialSeeds(t)
	known := map[string]int{}
	requests := 0
	for seed := int64(1); seed <= int64(seeds); seed++ {
		plan := sim.NewSchedule(seed, nil).Plan
		// A provider ending its caller's goroutine (provider-goexit) or returning neither a
		// stream nor an error (provider-nil-stream) happens in the client's process, not on the
		// wire: nothing to compare.
		plan.Answers = slices.DeleteFunc(plan.Answers, func(a faults.Answer) bool { return a.Goexit || a.NilStream })
		if len(plan.Answers) == 0 {
			continue
		}
		modelled := simulatedAttempts(t, plan)
		for _, adapter := range []string{"openai", "anthropic"} {
			real := realAttempts(t, plan, adapter)
			for i := range plan.Answers {
				requests++
				switch d := compareAttempt(modelled[i], real[i], plan.Answers[i]); d {
				case "":
				case diffEmptyFinish, diffMidStreamHeaders, diffPlainStatus:
					known[d]++
				default:
					assert.Fail(t, "the model and the wire disagree", "seed %d, %s, request %d (fault %q): %s", seed, adapter, i+1, plan.Answers[i].Fault, d)
				}
			}
		}
	}
	t.Logf("%d seeds, %d requests compared over both adapters; known differences: %v", seeds, requests, known)
	assert.Positive(t, requests)
}
