//go:build !turnsim_nowire

package main

// simrun runs the real provider adapters on the simulator's wire: a share of every run's seeds
// sends some answers as HTTP and server-sent events to them (see sim's wire.go).
//
// Built with -tags turnsim_nowire, simrun is the same command without them: what sim/cli's
// process tests build, so that the core's `go test ./...` compiles no provider SDK.
import _ "github.com/turnsim/turnsim/sim/wire"
