package harness

import (
	"context"
	"errors"
)

// phaseKind is the agent's lifecycle phase. Each non-idle phase owns a cancellation.
type phaseKind int

const (
	phaseIdle phaseKind = iota
	// phaseMaintenance is work outside turns (compaction, say); publicly the agent reads idle.
	phaseMaintenance
	phaseRunning
)

// errPhaseOver cancels a phase's context once the phase is done, releasing it.
var errPhaseOver = errors.New("harness: phase over")

// newPhaseLocked gives the agent a fresh phase with its own cancellation and a clear wake latch.
func (a *Agent) newPhaseLocked(kind phaseKind) {
	if a.phaseCancel != nil {
		a.phaseCancel(errPhaseOver)
	}
	a.phase = kind
	a.phaseCtx, a.phaseCancel = context.WithCancelCause(context.Background())
	a.wakeRequested = false
	a.turn, a.step = 0, 0
}

// wakeLocked handles a waking send. An idle agent starts running (the caller then starts the
// driver task, outside the lock). A wake during maintenance, or while an aborted turn winds
// down, is latched and replayed when that phase ends — never after a disposed cancellation.
func (a *Agent) wakeLocked() (startDriver bool) {
	switch a.phase {
	case phaseIdle:
		if a.disposed {
			return false
		}
		a.newPhaseLocked(phaseRunning)
		return true
	case phaseMaintenance:
		if !a.disposedCauseLocked() {
			a.wakeRequested = true
		}
	case phaseRunning:
		if a.phaseCtx.Err() != nil && !a.disposedCauseLocked() {
			a.wakeRequested = true
		} else if a.phaseCtx.Err() == nil {
			a.wokenInTurn = true
		}
	}
	return false
}

// disposedCauseLocked reports whether the current phase was cancelled with cause disposed.
func (a *Agent) disposedCauseLocked() bool {
	if a.phaseCtx == nil {
		return false
	}
	cause, ok := errors.AsType[CancelCause](context.Cause(a.phaseCtx))
	return ok && cause.Kind == CauseDisposed
}

// drive is the driver task (the seed's kick): it runs turns while the inbox has work. After a
// turn, pending work starts another turn under a fresh cancellation with the wake latch reset,
// unless the turn failed before taking any message: then the agent goes idle with the work
// queued, and only the next wake (a send, Wake, a latched wake) runs it, so a store that keeps
// refusing cannot spin the driver.
// An aborted turn stops the loop; a latched wake may restart it (see endPhaseLocked). Every
// decision to stop is taken under the same lock as a send's wake, so no message can arrive
// unseen between the last look at the inbox and the return to idle.
func (a *Agent) drive() {
	inTurn := false // runTurn runs unlocked; a runtime.Goexit (or a panic) in it skips the rest
	defer func() {
		if inTurn {
			// The turn settled (runTurn's deferred turn/end), and this goroutine is ending (a
			// runtime.Goexit, or a panic on its way up). The loop cannot go on here, so a new
			// driver serves what it would have served, by the loop's own rules: after a turn that
			// took a message or was woken while it ran, pending work starts another turn (else a
			// send made while the turn failed would wait for the next one). Otherwise the phase
			// ends as after any turn that stops the loop, so that the agent goes idle and WhenIdle
			// returns. Not when the loop itself panicked holding the lock: that is a harness bug,
			// and must surface.
			a.mu.Lock()
			a.lastTurn = a.session.lastTurn() // its turn/start, if written, counts
			goOn := !a.disposed && a.phaseCtx.Err() == nil && (a.claimedInTurn > 0 || a.wokenInTurn) && a.inbox.hasPending()
			if goOn {
				a.newPhaseLocked(phaseRunning)
			} else {
				goOn = a.endPhaseLocked()
			}
			a.mu.Unlock()
			if goOn {
				a.runtime.Go("driver", a.drive)
			}
		}
	}()
	a.preemptionPoint("driver: before lock")
	a.mu.Lock()
	for !a.disposed && a.phaseCtx.Err() == nil && a.inbox.hasPending() {
		turn := a.lastTurn + 1
		a.turn, a.step = turn, 0
		a.claimedInTurn = 0 // wokenInTurn is cleared as turn/start is written (appendUnlessCancelled)
		ctx := a.phaseCtx
		a.mu.Unlock()

		inTurn = true
		opened, err := a.runTurn(ctx, turn)
		inTurn = false

		a.preemptionPoint("driver: after turn, before lock")
		a.mu.Lock()
		if opened {
			a.lastTurn = turn // a turn whose turn/start was refused never happened: its number is reused
		}
		if err != nil && ctx.Err() == nil && a.claimedInTurn == 0 && !a.wokenInTurn {
			// The turn failed before it took any message (its turn/start, step/start or first
			// claim was refused, say): running another turn now would fail the same way on the
			// same messages, a loop that never yields. They stay queued; the next wake serves them
			// (or one that came while the turn ran: then the loop goes on).
			break
		}
		if ctx.Err() != nil || escapes(err) {
			break
		}
		if a.inbox.hasPending() {
			a.newPhaseLocked(phaseRunning)
		}
	}
	replay := a.endPhaseLocked()
	a.mu.Unlock()
	if replay {
		a.runtime.Go("driver", a.drive)
	}
}

// endPhaseLocked returns the agent to idle. It replays a latched wake (reporting that the caller
// must start the driver) if the inbox still has work and the phase was not disposed; otherwise
// it wakes WhenIdle waiters once everything has settled.
func (a *Agent) endPhaseLocked() (replay bool) {
	replay = a.wakeRequested && a.inbox.hasPending() && !a.disposed && !a.disposedCauseLocked()
	if a.phaseCancel != nil {
		a.phaseCancel(errPhaseOver)
	}
	a.phase, a.turn, a.step = phaseIdle, 0, 0
	a.wakeRequested = false
	if replay {
		a.newPhaseLocked(phaseRunning)
	} else {
		a.notifyIdleLocked()
	}
	return replay
}

// Maintain runs fn in the maintenance phase: work outside turns, under its own cancellation,
// while the agent reads idle. Wakes that arrive meanwhile are latched and replayed afterwards.
// It runs in the caller's task and fails with ErrNotIdle unless the agent is idle.
func (a *Agent) Maintain(fn func(ctx context.Context) error) error {
	a.mu.Lock()
	if a.disposed {
		a.mu.Unlock()
		return ErrDisposed
	}
	if a.phase != phaseIdle {
		a.mu.Unlock()
		return ErrNotIdle
	}
	a.newPhaseLocked(phaseMaintenance)
	ctx := a.phaseCtx
	a.mu.Unlock()
	defer func() { // deferred, so a panicking fn still returns the agent to idle
		a.mu.Lock()
		replay := a.endPhaseLocked()
		a.mu.Unlock()
		if replay {
			a.runtime.Go("driver", a.drive)
		}
	}()
	return fn(ctx)
}
