// Package sim is turnsim's deterministic world. Its Scheduler implements harness.Runtime: every
// task is a real goroutine, but only one runs at a time, the next is drawn from a seeded random
// source, and virtual time jumps to the next timer when every task is blocked. So the same seed
// gives the same session log, byte for byte, whatever the machine or GOMAXPROCS.
//
// On top of the scheduler sit the seed article's named scenarios (Scenarios, SimulateScenario),
// each a scripted story (provider answers, tools, user actions at fixed times) that runs in
// virtual time and, shortened, on the production runtime too; and Describe and Timeline, which
// render a log for people.
//
// The world of seeded schedules (NewSchedule, RunSchedule, RunSeeds) plays a fault plan against
// one agent, crashes, power losses and restarts included (the agent's log then goes through the
// real file store onto a simulated disk, disk.go), and checks every property; Shrink and the corpus
// keep what fails small and forever; RunHerd plays many agents against one shared provider to
// compare retry strategies under contention; TimelineHTML draws a run.
package sim
