// Package splitmix is turnsim's seeded random source: SplitMix64 behind math/rand's API, and
// the derivation of independent per-consumer seeds from one seed, shared by faults, sim and sim/sched.
package splitmix
