// Package faults is turnsim's catalogue of what can go wrong around an agent harness: a
// provider that rate-limits, fails mid-stream or cuts an answer off at max-tokens; tools that are
// slow, fail, panic, are unknown or ignore cancellation; a user who steers, cancels or disposes at
// any moment; a host whose session store refuses a write, whose process crashes, or whose machine
// loses power.
//
// Each fault has a name (a contract: schedules, coverage reports and the -faults flag use it), a
// group and a one-line doc. DrawSwarm picks, per seed, a random subset of faults at random rates
// (swarm testing, as TigerBeetle's VOPR and FoundationDB do), so rare combinations get reached;
// DrawPlan turns a swarm into a Plan: a plain, JSON-serialisable script of provider answers, tool
// behaviours and user actions that the simulator (package sim) plays in virtual time. A Plan is
// explicit on purpose: a failing one can be saved, replayed and shrunk without re-drawing.
package faults
