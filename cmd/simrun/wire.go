package main

// simrun runs the real provider adapters on the simulator's wire: a share of every run's seeds
// sends some answers as HTTP and server-sent events to them (see sim's wire.go).
import _ "github.com/turnsim/turnsim/sim/wire"
