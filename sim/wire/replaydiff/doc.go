// Package replaydiff holds sim.ScheduleFromLog to production logs: plans drawn from seeds are
// played by the production runtime (real goroutines and timers, the real file store, the real
// OpenAI and Anthropic adapters against the loopback fault server, restarts after a kill), and
// each log is replayed from itself alone in the simulator and compared event by event. It has
// only tests.
//
// The tests live here, in the wire's module, so that the core's tests do not link the provider
// SDKs (see sim/wire/providerdiff).
package replaydiff
