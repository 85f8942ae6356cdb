// Package sched is turnsim's deterministic scheduler: a harness.Runtime that runs one task at a
// time, in a seeded order, on virtual time, so any code written against harness.Runtime replays exactly.
package sched
