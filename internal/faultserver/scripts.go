package faultserver

import (
	"fmt"
	"sort"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness"
)

// Scripts are the named answer lists `simrun serve -script` plays.
var Scripts = map[string][]Step{
	// demo walks through the faults the server can play, one per request.
	"demo": {
		rateLimited(1500, faults.RetryAfterMs),
		rateLimited(2000, faults.RetryAfterSeconds),
		rateLimited(3000, faults.RetryAfterDate),
		{Answer: faults.Answer{Fail: &faults.Fail{Code: harness.CodeServer, Message: "service unavailable", Status: 503}}},
		{Answer: faults.Answer{Fail: &faults.Fail{Code: harness.CodeServer, Message: "Overloaded", Status: 529}}},
		{Answer: faults.Answer{Fail: &faults.Fail{Code: harness.CodeServer, Message: "Overloaded"}, Wire: &faults.Wire{InStream: true}}},
		{Answer: faults.Answer{Chunks: 2, ChunkDelayMs: 50, Fail: &faults.Fail{Code: harness.CodeTransport, Message: "connection cut"}}},
		{Answer: faults.Answer{Chunks: 2, ChunkDelayMs: 50, Fail: &faults.Fail{Code: harness.CodeServer, Message: "Overloaded"}}},
		{Answer: faults.Answer{Chunks: 1, ChunkDelayMs: 20, Fail: &faults.Fail{Code: harness.CodeTransport, Message: "malformed stream event"}, Wire: &faults.Wire{Malformed: true}}},
		{Answer: faults.Answer{Chunks: 1, ChunkDelayMs: 20, Fail: &faults.Fail{Code: harness.CodeUnknown, Message: "filtered"}, Wire: &faults.Wire{FinishReason: "content_filter"}}},
		{Answer: faults.Answer{Chunks: 5, ChunkDelayMs: 400, Finish: harness.FinishCompleted}},
		{Answer: faults.Answer{Chunks: 3, ChunkDelayMs: 20, Finish: harness.FinishMaxTokens}},
		{Answer: faults.Answer{Chunks: 1, ChunkDelayMs: 20, Calls: []faults.Call{{Name: "read", Outcome: faults.OutcomeOK}}, Finish: harness.FinishToolCalls}, Arguments: []string{`{"path":"README.md"}`}},
		{Answer: faults.Answer{ChunkDelayMs: 20, Finish: harness.FinishCompleted}},
	},
	// chat is what examples/chat meets in CI: a rate limit, a call to its clock tool, an answer.
	"chat": {
		rateLimited(200, faults.RetryAfterMs),
		{Answer: faults.Answer{Chunks: 1, ChunkDelayMs: 10, Calls: []faults.Call{{Name: "clock", Outcome: faults.OutcomeOK}}, Finish: harness.FinishToolCalls}, Arguments: []string{"{}"}},
		{Answer: faults.Answer{Chunks: 3, ChunkDelayMs: 10, Finish: harness.FinishCompleted}},
	},
}

func rateLimited(ms float64, form string) Step {
	return Step{Answer: faults.Answer{Fail: &faults.Fail{Code: harness.CodeRateLimit, Message: "rate limited", Status: 429, RetryAfterMs: ms}, Wire: &faults.Wire{RetryAfter: form}}}
}

// Script returns the named script, or an error naming the known ones.
func Script(name string) ([]Step, error) {
	steps, ok := Scripts[name]
	if !ok {
		var names []string
		for n := range Scripts {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("faultserver: unknown script %q (known: %v)", name, names)
	}
	return append([]Step(nil), steps...), nil
}
