// Package faults is turnsim's catalogue of what can go wrong around an agent harness: a
// provider that rate-limits, fails mid-stream, wraps its failures in other errors, streams on
// after a cancellation or cuts an answer off at max-tokens; tools that are slow, fail, panic, are
// unknown or ignore cancellation; a user who steers, cancels or disposes at any moment, or calls
// back from inside an observer; a host whose session store refuses a write or goes down for a
// while, whose process crashes, or whose machine loses power.
//
// Each fault has a name (a contract: schedules, coverage reports and the -faults flag use it), a
// group and a one-line doc. DrawSwarm picks, per seed, a random subset of faults at random rates
// (swarm testing, as TigerBeetle's VOPR and FoundationDB do), so rare combinations get reached;
// DrawPlan turns a swarm into a Plan: a plain, JSON-serialisable script of provider answers, tool
// behaviours and user actions that the simulator (package sim) plays in virtual time;
// DrawSchedule does both from a seed (the seed of a schedule's stream, as package sim draws
// them). A Plan is explicit on purpose: a failing one can be saved, replayed and shrunk
// without re-drawing.
package faults
