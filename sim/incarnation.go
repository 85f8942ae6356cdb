package sim

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/properties"
)

// Crashes. A crash kills every task of the agent's process wherever it is parked (mid-backoff,
// mid-stream, mid-tool, mid-drain) or, armed to strike inside an append, dies while writing a
// line: before any of it reached the disk, after all of it did (the append never returned), or
// with part of it written (a torn line). The store keeps apart what is durable; the host then
// restarts the agent from the durable log, whose open turn crash repair closes.

// simStore is one incarnation's session store: it refuses appends in the plan's refusal
// windows, writes the durable image of the log (the world's disk) when the plan crashes the
// agent, and carries out a crash armed to strike inside an append. Each incarnation has its own,
// so the dying tasks of a dead one can never write to the disk its successor uses.
type simStore struct {
	world *world
	// dead refuses every append: the process that owned the store has died.
	dead bool
}

// errProcessDead is the store's answer to an append from a process that has died.
var errProcessDead = errors.New("sim: the agent's process is dead")

// errAppendRefused is the store's refusal in a refusal window: an infrastructure failure.
var errAppendRefused = errors.New("sim: session store refused the append (simulated infrastructure failure)")

func (s *simStore) Append(e harness.Event) error {
	if s.dead {
		return errProcessDead
	}
	w := s.world
	t := w.tracer
	if sinceStart := t.sinceStartMs(); sinceStart < w.schedule.Plan.HorizonMs {
		for i, window := range w.schedule.Plan.Refusals {
			if sinceStart >= window.FromMs && sinceStart < window.UntilMs &&
				(window.Type == "" || window.Type == e.Type) && (window.Count == 0 || w.refusedCount[i] < window.Count) {
				w.refusedCount[i]++
				turn, step := eventScope(e)
				now := t.nowMs()
				t.record(func(tr *properties.Trace) {
					tr.Refusals = append(tr.Refusals, properties.Refusal{AtMs: now, Type: e.Type, Turn: turn, Step: step})
				})
				t.strike(cmp.Or(window.Fault, faults.AppendRefused))
				return errAppendRefused
			}
		}
	}
	if !w.keepDurable {
		return nil
	}
	line, err := harness.EncodeEvent(e)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	if w.armed != nil && w.process.Owns() {
		crash := *w.armed
		w.armed = nil
		switch crash.Written {
		case faults.WrittenWhole:
			w.disk = append(w.disk, line...)
		case faults.WrittenTorn:
			w.disk = append(w.disk, line[:len(line)/2]...)
		}
		w.crash(crash)
		runtime.Goexit() // the process died inside the write: the append never returns
	}
	w.disk = append(w.disk, line...)
	return nil
}

// stopHost tells the host task the run is over.
type stopHost struct{}

// restartRequest asks the host to restart the agent after a delay.
type restartRequest struct{ afterMs int64 }

// crash kills the current incarnation: its store refuses everything from now on, waits on it
// end, its tasks die, and the host is asked to restart it. It never yields, so it may run inside
// an append.
func (w *world) crash(a faults.Action) {
	t := w.tracer
	t.strike(a.Fault)
	now := t.nowMs()
	t.record(func(tr *properties.Trace) {
		tr.Crashes = append(tr.Crashes, properties.Crash{AtMs: now, InAppend: a.InAppend, Written: a.Written, DurableBytes: len(w.disk)})
		for i := range tr.Tools {
			if tr.Tools[i].EndMs < 0 {
				t.toolOrder++
				tr.Tools[i].EndMs, tr.Tools[i].Outcome, tr.Tools[i].EndOrder = now, "killed", t.toolOrder
			}
		}
	})
	t.toolsRunning = 0
	acknowledged := w.acknowledged // not Session().Events(): a crash inside an append holds the session's lock
	w.acknowledged = nil
	t.record(func(tr *properties.Trace) { tr.Acknowledged = append(tr.Acknowledged, acknowledged) })
	w.down = true
	w.store.dead = true
	w.armed = nil
	w.endLife(errCrashed)
	w.process.Kill()
	w.host.Put(restartRequest{afterMs: a.RestartAfterMs})
}

// serveRestarts is the host task: it restarts the agent whenever a crash asks, until the run
// is over.
func (w *world) serveRestarts() {
	for {
		item, _ := w.host.Get(context.Background())
		request, ok := item.(restartRequest)
		if !ok {
			return
		}
		w.rt.Sleep(ms(request.afterMs))
		for attempt := 1; !w.restart(attempt == restartAttemptsMax); attempt++ {
			w.rt.Sleep(ms(restartRetryMs)) // the store refused the repair: try again, as a host would
		}
		w.restarted.Put(nil)
	}
}

// How often, and how far apart, the host tries to restart an agent whose store refuses writes.
const (
	restartAttemptsMax = 20
	restartRetryMs     = 100
)

// restart reopens the durable log (cutting a torn last line, as the file store does) and starts
// a new incarnation from it; crash repair closes the turn the crash left open. It reports
// whether it is done: started, or failed on its last attempt (the agent then stays down).
func (w *world) restart(last bool) bool {
	t := w.tracer
	durable, torn := cutTornLine(w.disk)
	w.disk = durable
	history, err := harness.ReadJSONL(bytes.NewReader(durable))
	record := properties.Restart{AtMs: t.nowMs(), Torn: torn, DurableEvents: len(history)}
	if err == nil {
		if repair := harness.RepairEvents(validPrefixOrNil(history)); len(repair) > 0 {
			record.RepairedTurn = repair[len(repair)-1].(harness.TurnEnd).Turn
		}
		err = w.startIncarnation(history)
	}
	if err != nil && !last && errors.Is(err, errAppendRefused) {
		return false
	}
	if err != nil {
		record.Err = fmt.Sprintf("the durable log could not be reopened: %v", err)
		w.failed = true
	}
	t.record(func(tr *properties.Trace) { tr.Restarts = append(tr.Restarts, record) })
	if err == nil && w.disposed {
		w.agent.Dispose() // the host disposed of the agent while it was down: it stays disposed
	}
	if err == nil {
		w.agent.Wake()
	}
	return true
}

// cutTornLine drops a last line that has no newline: a write the crash cut short.
func cutTornLine(log []byte) ([]byte, bool) {
	if len(log) == 0 || log[len(log)-1] == '\n' {
		return log, false
	}
	return log[:bytes.LastIndexByte(log, '\n')+1], true
}

// validPrefixOrNil returns events if they pass the invariant layer, nil otherwise (then
// harness.New refuses the history and says why).
func validPrefixOrNil(events []harness.Event) []harness.Event {
	if harness.ValidateLog(events) != nil {
		return nil
	}
	return events
}
