// Package properties is turnsim's catalogue of what must hold whatever goes wrong: every turn
// settled, every dispatched call answered once, backoff written before it is waited, delays
// inside the formula's window, aborts carrying the right cause, and so on. Each property has a
// name (a contract: summaries and corpus files group violations by it) and a doc line saying what
// it protects, and is checked after every simulated run on the session log and on the
// simulator's trace (Run).
//
// Every property can fail: the mutants in internal/mutants (deliberate defects kept as patches
// outside the harness, planted at build time by `go build -overlay`) each make one property fire
// within 2,000 seeds, and `simrun mutate` proves it in CI.
//
// The oracles are independent of what they judge: spec.go states the spec's retryable codes,
// delay window and pool default, and policykey.go reads the log's policyKey format, in this
// package's own code. From the harness it uses only types, constants, its JSON Lines decoder and
// ValidateLog; independence_test.go type-checks the package and fails on anything else (a
// default such as the harness's default retryable codes, a helper such as its delay window, a
// policy's method), since a property that read those would move with the bug it exists to catch.
// labelchecks.go judges the labels the harness gives the faults the world says it injected.
package properties
