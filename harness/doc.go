// Package harness is a Go port of an LLM agent's turn loop, as described in the seed article
// "Retry、Abort 与 turn 结账" (retry, abort and turn settlement): an agent runs turns, a turn runs
// steps, a step is one model request plus its retries and the tool calls its answer asks for, and
// everything that happens is an event in an append-only session log.
//
// Map of the package:
//   - event.go, types.go, linelimit.go: the session log's typed events, and the longest line of its
//     JSON Lines form (package eventjson reads and writes that form);
//   - invariants.go, invariants_state.go, session.go: the invariant layer every append passes,
//     its memory of the open step and of retry chains, and the log itself;
//   - failure.go, errorchain.go: Failure, the LlmError that carries it, ErrorChain;
//   - policy.go, strategy.go, retry.go, waterfall.go, compaction.go: the retry policy and delay
//     formula, RetryStrategy (the policy is one), the llm-retry plugin (chain state read from the
//     log, durable before wait), the request-error waterfall and an example compaction handler;
//     retry_lifetime.go, the plugin's lifetime, whose context is made at its first backoff wait;
//   - agent.go, driver.go, turn.go, step.go, inbox.go, assembler.go: the agent's public API,
//     phases and the wake latch, the turn loop with its settlement (turn/end on every way out),
//     steps, the two-lane inbox and the block assembler;
//   - tools.go: tool execution with exclusive and parallel groups, drain and synthetic results;
//   - toolset.go: the registered tools, found by name;
//   - provider.go: the Provider seam, the Request an attempt sends and the Conversation it carries;
//   - history.go, resume.go, repair.go: ValidatedHistory (a log the invariant layer accepted),
//     an agent resuming from a log, and crash repair of the turn a crash left open;
//   - runtime.go, runtime_production.go, random.go: the injected seams (Clock, Runtime, Random)
//     and their production implementations.
//
// Nothing here starts a goroutine, sleeps, reads the clock or draws a random number except
// through what is injected (runtime_production.go is the one exception, by design), so the same
// code runs for real and on the simulator's deterministic scheduler. A test enforces it.
package harness
