//go:build !turnsim_nowire

package main

// simrun runs the real provider adapters on the simulator's wire: a share of every run's seeds
// sends some answers as HTTP and server-sent events to them (see sim's wire.go).
//
// Built with -tags turnsim_nowire, simrun is the same command without them: what sim/cli's
// process tests build, so that the core's `go test ./...` compiles no provider SDK. Its seeds
// draw no wire (sim.WireRegistered), so they are other schedules than the shipped simrun's, as
// hunt's are: a seed it reports reproduces in that build, not under `go run ./cmd/simrun`.
import _ "github.com/turnsim/turnsim/sim/wire"
