// Package herd plays many agents against one shared simulated provider on one deterministic
// scheduler, to compare retry strategies under contention (what simrun policy reports).
package herd
