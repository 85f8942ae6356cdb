package harness

import (
	"context"
	"errors"
	"fmt"
)

// turnEndError is a turn/end that could not be written. It escapes the turn loop: the session is
// broken, an infrastructure failure no turn outcome can describe.
type turnEndError struct{ err error }

func (e *turnEndError) Error() string { return "harness: turn/end not written: " + e.err.Error() }
func (e *turnEndError) Unwrap() error { return e.err }

// escapes reports whether err is (or wraps) a turnEndError.
func escapes(err error) bool {
	_, ok := errors.AsType[*turnEndError](err)
	return ok
}

// runTurn runs one turn to its end. turn/end is written on every way out (the seed's finally):
// a cancellation ends it aborted with the cancellation's cause, a provider failure ends it in
// error with that Failure, any other error in error with code UNKNOWN and the ErrorChain text.
// Only max-tokens is sticky: once a step ends max-tokens, later completed steps keep it.
// It reports whether it opened the turn: a refused turn/start opens none, and the turn's number
// is then not used.
func (a *Agent) runTurn(ctx context.Context, turn int) (opened bool, err error) {
	if err := a.appendUnlessCancelled(ctx, "driver: before turn/start", TurnStart{Turn: turn}); err != nil {
		if ctx.Err() != nil {
			return false, err
		}
		a.emitError(AgentError{Turn: turn, Source: "turn/start", Err: err})
		// No turn was opened, so none must be settled; nor is the session broken (only a
		// turn/end that cannot be written breaks it): the driver serves a wake that came meanwhile.
		return false, fmt.Errorf("harness: turn %d not opened: %w", turn, err)
	}
	// ends is how the turn ends. Its Kind is set on every way out; only max-tokens, once set,
	// stays.
	var ends TurnEndReason
	current := 0      // the step running, for agent/error; 0 outside steps
	returned := false // set on the way out by return: an earlier step may have set ends already
	defer func() {
		panicked := recover()
		a.conversation.dropUnanswered() // a call the turn never answered is not replayed
		if panicked != nil {
			ends = a.failedTurn(ctx, turn, current, fmt.Errorf("panic: %v", panicked))
		}
		if panicked == nil && !returned {
			// Neither finished nor failed nor panicked: the goroutine is ending by
			// runtime.Goexit (a t.FailNow in a test's provider or tool, or the simulator killing
			// a crashed process, whose disk takes no more writes). The turn still settles, as
			// failed, like a panic.
			ends = a.failedTurn(ctx, turn, current, errGoexit)
		}
		if appendErr := a.writeTurnEnd(ctx, turn, ends); appendErr != nil {
			a.emitError(AgentError{Turn: turn, Source: "turn/end", Err: appendErr})
			err = &turnEndError{err: appendErr}
		}
		if panicked != nil {
			panic(panicked)
		}
	}()
	for step := 1; ; step++ {
		current = step
		finish, stepErr := a.runStep(ctx, turn, step)
		if stepErr != nil {
			ends, returned = a.failedTurn(ctx, turn, step, stepErr), true
			return true, stepErr
		}
		current = 0
		if finish == FinishToolCalls {
			continue
		}
		if ends.Kind != EndMaxTokens {
			ends = TurnEndReason{Kind: string(finish)}
		}
		a.preemptionPoint("turn: before next-step check")
		a.mu.Lock()
		done := a.inbox.nextStepEmpty()
		a.mu.Unlock()
		if done {
			returned = true
			return true, nil
		}
	}
}

// errGoexit is the failure of a turn whose goroutine ended by runtime.Goexit.
var errGoexit = errors.New("harness: the turn's goroutine exited (runtime.Goexit) before the turn ended")

// failedTurn classifies the error a turn ended with. A cancellation wins over whatever error it
// caused; every other error is reported to watchers as agent/error.
func (a *Agent) failedTurn(ctx context.Context, turn, step int, err error) TurnEndReason {
	if ctx.Err() != nil {
		return abortedBy(ctx)
	}
	failure, _ := FailureOf(err)
	a.emitError(AgentError{Turn: turn, Step: step, Source: "turn", Err: err})
	return TurnEndReason{Kind: EndError, Error: &failure}
}

// abortedBy is the turn/end reason of a turn cancelled through ctx.
func abortedBy(ctx context.Context) TurnEndReason {
	cause := causeOf(ctx)
	return TurnEndReason{Kind: EndAborted, Reason: &cause}
}

// writeTurnEnd settles the turn. A cancel that lands before turn/end is written wins over the
// way the turn was about to end (its last step done, or its failure decided): the check and the
// write happen under the agent's lock, which Cancel takes too, so a cancel comes either before
// turn/end (the turn ends aborted) or after it (the turn was over).
func (a *Agent) writeTurnEnd(ctx context.Context, turn int, ends TurnEndReason) error {
	a.preemptionPoint("turn/end: before lock")
	a.mu.Lock()
	defer a.unlock()
	if ctx.Err() != nil && ends.Kind != EndAborted {
		ends = abortedBy(ctx)
	}
	_, err := a.session.appendQuiet(TurnEnd{Turn: turn, Reason: ends})
	return err
}

// causeOf returns the CancelCause a context was cancelled with.
func causeOf(ctx context.Context) CancelCause {
	if cause, ok := errors.AsType[CancelCause](context.Cause(ctx)); ok {
		return cause
	}
	return CancelCause{Kind: CauseUser, Reason: ErrorChain(context.Cause(ctx))}
}

// cancelled is the seed's throwIfAborted: the cause, once ctx is done.
func cancelled(ctx context.Context) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return nil
}
