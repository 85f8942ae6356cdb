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
	"github.com/turnsim/turnsim/harness/filestore"
	"github.com/turnsim/turnsim/properties"
)

// Crashes. A crash kills every task of the agent's process wherever it is parked (mid-backoff,
// mid-stream, mid-tool, mid-drain) or, armed to strike inside an append, dies while the real file
// store writes a line to the simulated disk: before any of it reached the file, after all of it
// did (the append never returned), or with part of it written (a torn line). A power loss is a
// crash that also takes from the disk what was written but not synced. The host then restarts
// the agent by reopening the file store on the disk (whose own torn-tail cut runs), and crash
// repair closes the turn the crash left open.

// sessionLogPath is the session log's name on the simulated disk.
const sessionLogPath = "session.jsonl"

// simStore is one incarnation's session store: it refuses appends in the plan's refusal
// windows, passes the others to the real file store on the world's disk when the plan crashes
// the agent (log; nil otherwise: then nothing is kept), and arms the disk with a crash planned
// to strike inside an append. Each incarnation has its own, so the dying tasks of a dead one can
// never write to the file its successor uses.
type simStore struct {
	world *world
	log   *filestore.Store
	// dead refuses every append: the process that owned the store has died.
	dead bool
}

// recordRefusal records that the store refused e, now: a refusal window's, or a failed sync's.
func (t *tracer) recordRefusal(e harness.Event) {
	turn, step := harness.EventScope(e)
	now := t.nowMs()
	t.record(func(tr *properties.Trace) {
		tr.Refusals = append(tr.Refusals, properties.Refusal{AtMs: now, Type: e.Type, Turn: turn, Step: step, Event: e})
	})
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
	w.countEvent()
	if sinceStart := t.sinceStartMs(); sinceStart < w.schedule.Plan.HorizonMs {
		for i := range w.schedule.Plan.Refusals {
			window := &w.schedule.Plan.Refusals[i]
			if sinceStart >= window.FromMs && sinceStart < window.UntilMs &&
				(window.Type == "" || window.Type == e.Type) && (window.Count == 0 || w.refusedCount[i] < window.Count) {
				w.refusedCount[i]++
				w.refused = true
				t.recordRefusal(e)
				switch window.Fault {
				case faults.CallIDReuse: // it strikes when an id is reused (toolCallChunk)
				case faults.WakeDuringFailedTurn: // it strikes when the wake lands (aim.go)
					t.aimer.refused(e.Type)
				default:
					t.strike(cmp.Or(window.Fault, faults.AppendRefused))
				}
				return errAppendRefused
			}
		}
	}
	if s.log == nil {
		if w.refused {
			t.seqRetaken(e.Seq)
		}
		return nil
	}
	if w.armed != nil && w.process.Owns() && w.calling == 0 {
		w.disk.armed, w.armed = w.armed, nil // the process dies inside this append's write
	}
	err := s.log.Append(e)
	if crash := w.disk.failedSync; crash != nil {
		// The disk failed the sync and the store cut the file back, refusing the event: the power
		// goes now, before any later durable point.
		w.disk.failedSync, w.refused = nil, true
		t.recordRefusal(e)
		w.crash(*crash, e.Seq)
		runtime.Goexit() // the process died with the machine: the append never returns
	}
	if w.disk.armed != nil {
		// The store refused the event before writing it: the crash waits for the next append.
		w.armed, w.disk.armed = w.disk.armed, nil
	}
	if err == nil && w.refused {
		t.seqRetaken(e.Seq)
	}
	return err
}

// seqRetaken records that the store accepted an append at seq: a refused event with that seq
// left a place another event has now filled.
func (t *tracer) seqRetaken(seq int64) {
	t.mu.Lock()
	for i := range t.trace.Refusals {
		if r := &t.trace.Refusals[i]; r.Event.Seq == seq {
			r.SeqRetaken = true
		}
	}
	t.mu.Unlock()
}

// stopHost tells the host task the run is over.
type stopHost struct{}

// restartRequest asks the host to restart the agent after a delay.
type restartRequest struct{ afterMs int64 }

// crash kills the current incarnation: its files close (the disk drops its lock), a power loss
// takes the unsynced bytes with it, its store refuses everything from now on, waits on it end,
// its tasks die, and the host is asked to restart it. It never yields, so it may run inside an
// append. cutBackSeq is the seq of the append the store cut back when the crash follows a failed
// sync (the power-loss-after-cut-back fault); 0 otherwise.
func (w *world) crash(a faults.Action, cutBackSeq int64) {
	t := w.tracer
	t.strike(a.Fault)
	w.disk.closeAll()
	record := properties.Crash{AtMs: t.nowMs(), InAppend: a.InAppend, Written: a.Written, PowerLoss: a.Unsynced != "", CutBackSeq: cutBackSeq}
	if cutBackSeq != 0 {
		// It struck before the failed append returned, the store having cut its line off: to the
		// properties, a crash inside an append that left nothing written.
		record.InAppend, record.Written = true, faults.WrittenNone
	}
	if record.PowerLoss {
		record.DroppedBytes = w.disk.losePower(a.Unsynced)
	}
	record.DurableBytes = len(w.disk.contents(sessionLogPath))
	if record.CutBackSeq != 0 {
		record.DurableEvents = bytes.Count(w.disk.contents(sessionLogPath), []byte{'\n'})
	}
	now := record.AtMs
	t.record(func(tr *properties.Trace) {
		tr.Crashes = append(tr.Crashes, record)
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

// restart reopens the session log with the real file store (which cuts a torn last line,
// and decodes only the lines the log gained since the last restart read it) and
// starts a new incarnation from what it read; crash repair closes the turn the crash left open.
// It reports whether it is done: started, or failed on its last attempt (the agent then stays
// down).
func (w *world) restart(last bool) bool {
	t := w.tracer
	log, opened, err := filestore.ReopenFS(w.disk, sessionLogPath, w.opened)
	if err == nil {
		w.opened = opened
	}
	record := properties.Restart{AtMs: t.nowMs(), Torn: opened.Torn != nil, DurableEvents: len(opened.Events)}
	if err == nil {
		if err = w.startIncarnation(opened.History(), log); err != nil {
			log.Close() // the next attempt opens the log again
			if repair := harness.RepairEvents(opened.Events); len(repair) > 0 {
				record.RepairedTurn = repair[len(repair)-1].(harness.TurnEnd).Turn
			}
		} else if repaired := w.acknowledged[len(opened.Events):]; len(repaired) > 0 {
			// The new session holds the history and then crash repair's events, which end with the
			// turn/end of the turn they closed: read off them, not from RepairEvents, which would
			// replay the whole log through the invariant layer a fourth time this restart.
			end, ok := repaired[len(repaired)-1].Data.(harness.TurnEnd)
			if !ok {
				panic(fmt.Sprintf("sim: invariant: a resumed session's events after its history end with %s, not crash repair's turn/end", repaired[len(repaired)-1].Type))
			}
			record.RepairedTurn = end.Turn
		}
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

// keepDurableAtEnd records, once the run is over, what of the session log is synced: what a
// power loss at the end would leave. The last incarnation's events must be durable too, not only
// those of incarnations a crash ended.
func (w *world) keepDurableAtEnd() {
	if !w.keepDurable || w.down {
		return
	}
	// No copy: the run is over, nothing writes to the disk any more. Never nil: nil would mean
	// "not kept".
	durable := w.disk.syncedContents(sessionLogPath)
	if durable == nil {
		durable = []byte{}
	}
	w.tracer.trace.DurableAtEnd = durable
}
