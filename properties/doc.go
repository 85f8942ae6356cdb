// Package properties is turnsim's catalogue of what must hold whatever goes wrong: every turn
// settled, every dispatched call answered once, backoff written before it is waited, delays
// inside the formula's window, aborts carrying the right cause, and so on. Each property has a
// name (a contract: summaries and corpus files group violations by it) and a doc line saying what
// it protects, and is checked after every simulated run on the session log and on the
// simulator's trace (Run).
//
// Every property can fail: the planted bugs of package internal/plant, compiled in only under the
// build tag plantedbugs, each make one property fire within a few thousand seeds, and the tests
// prove it.
package properties
