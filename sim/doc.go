// Package sim is turnsim's deterministic world. It plays an agent on the deterministic scheduler
// of sim/sched (each incarnation of the agent in its own sched.Process), so the same seed gives
// the same session log, byte for byte, whatever the machine or GOMAXPROCS.
//
// The seed article's named scenarios (Scenarios, SimulateScenario) are scripted stories
// (provider answers, tools, user actions at fixed times) that run in virtual time and, shortened,
// on the production runtime too; Describe and Timeline render a log for people.
//
// The world of seeded schedules (NewSchedule, RunSchedule, RunSeeds) plays a fault plan against
// one agent, turnsim's own or a user's (Agent, Check), crashes, power losses and restarts
// included (the agent's log then goes through the real file store onto a simulated disk,
// disk.go), and checks every property; Shrink, the corpus and the rapid state machine keep what
// fails small and forever; CheckPolicy fuzzes retry policies. Beside it, sim/herd plays many
// agents against one shared provider to compare retry strategies under contention,
// sim/timeline draws a run as an HTML chart, and sim/wire/providerdiff checks the provider model
// (PlanProvider) against the real adapters over HTTP.
package sim
