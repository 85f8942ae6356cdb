package harness

import (
	"context"
	"errors"
	"io"
)

// runStep runs one step: it claims its share of the inbox, sends the request (re-sending it, in
// the same step, whenever the waterfall asks for a retry), logs the assembled answer, and runs
// the tool calls the answer asks for. step/end is written on every way out once step/start was.
func (a *Agent) runStep(ctx context.Context, turn, step int) (finish Finish, err error) {
	if err := a.appendUnlessCancelled(ctx, "open work: before lock", StepStart{Turn: turn, Step: step}); err != nil {
		return "", err
	}
	defer func() {
		if _, endErr := a.session.Append(StepEnd{Turn: turn, Step: step}); endErr != nil && err == nil {
			err = endErr
		}
	}()
	if err := a.claimInbox(ctx, turn, step); err != nil {
		return "", err
	}
	var message AssembledMessage
	for attempt := 1; ; attempt++ {
		var requestErr error
		message, finish, requestErr, err = a.attempt(ctx, turn, step, attempt)
		if err != nil {
			return "", err
		}
		if requestErr == nil {
			a.retryPlugin.observe(AttemptOutcome{Success: true, Attempt: attempt})
			break
		}
		if err := cancelled(ctx); err != nil {
			return "", err
		}
		failure, _ := FailureOf(requestErr)
		a.retryPlugin.observe(AttemptOutcome{Failure: failure, Attempt: attempt})
		retry := a.waterfall.decide(&RequestError{
			Ctx: ctx, Turn: turn, Step: step, Attempt: attempt, Provider: a.provider.Name(),
			Failure: failure, Err: requestErr, Conversation: &a.conversation,
		}, 0)
		if err := cancelled(ctx); err != nil {
			return "", err // an abort beats a returned retry
		}
		if !retry {
			return "", requestErr
		}
	}
	if err := cancelled(ctx); err != nil {
		return "", err
	}
	calls := appendToolCalls(a.stepCalls[:0], message.Blocks)
	a.stepCalls = calls
	if finish == FinishMaxTokens {
		message = message.TextOnly() // a truncated call is neither run nor kept
	}
	if _, err := a.session.Append(AssistantMessage{Turn: turn, Step: step, Message: message, Finish: finish}); err != nil {
		return "", err
	}
	a.conversation.add(Entry{Role: RoleAssistant, Blocks: message.Blocks})
	if finish == FinishToolCalls {
		if err := a.executeToolCalls(ctx, turn, step, calls); err != nil {
			return "", err
		}
	}
	return finish, nil
}

// appendUnlessCancelled appends an event that opens work (turn/start, step/start) unless ctx is
// cancelled, deciding under the agent's lock: Cancel takes that lock too, so a cancel lands
// either before (nothing is written) or after the event, never between the check and the write.
// site names the preemption point in front of that lock.
//
// A turn/start also clears wokenInTurn under that lock: from here on, and only from here, a
// waking send is work for the driver to go on with should the turn fail before its first claim.
// A send logged before turn/start came before the turn, which was run for it, so if the turn fails
// before taking it, it waits for the next wake like the turn's other messages (spec 9), whether
// it came before the driver's decision to run the turn or after.
func (a *Agent) appendUnlessCancelled(ctx context.Context, site string, data EventData) error {
	a.preemptionPoint(site)
	a.mu.Lock()
	defer a.unlock()
	if err := cancelled(ctx); err != nil {
		return err
	}
	if _, opensTurn := data.(TurnStart); opensTurn {
		a.wokenInTurn = false
	}
	_, err := a.session.appendQuiet(data)
	return err
}

// claimInbox moves the step's share of the inbox into the conversation, logging each claim.
func (a *Agent) claimInbox(ctx context.Context, turn, step int) error {
	a.preemptionPoint("claim: before lock")
	a.mu.Lock()
	defer a.unlock()
	a.step = step
	if err := cancelled(ctx); err != nil {
		return err // a cancel that came first keeps (or cleared) the inbox: nothing is claimed after it
	}
	claims := a.inbox.claimable(step == 1, a.claims[:0])
	a.claims = claims
	for _, m := range claims {
		if _, err := a.session.appendQuiet(InboxClaim{Turn: turn, Step: step, Lane: m.lane, MessageID: m.id}); err != nil {
			return err // the message stays queued: the log never said it was claimed
		}
		a.inbox.remove(m)
		a.claimedInTurn++
		a.conversation.add(Entry{Role: RoleUser, Text: m.text})
	}
	return nil
}

// errNilStream is the request's failure when the provider's Stream returns neither a stream nor
// an error.
var errNilStream = errors.New("harness: the provider returned neither a stream nor an error")

// attempt sends the request once and assembles the answer. requestErr is a failure of the
// request itself (the waterfall decides whether to retry it); err is anything else (a
// cancellation, a refused append), which ends the step.
func (a *Agent) attempt(ctx context.Context, turn, step, attempt int) (message AssembledMessage, finish Finish, requestErr, err error) {
	if err := cancelled(ctx); err != nil {
		return message, "", nil, err
	}
	request := Request{Turn: turn, Step: step, Attempt: attempt, Messages: a.conversation.snapshot(), Tools: a.tools.names}
	stream, streamErr := a.provider.Stream(ctx, request)
	if streamErr != nil {
		return message, "", streamErr, nil
	}
	if stream == nil {
		// A buggy adapter or fake answers with neither: calling Next would be a nil-pointer
		// panic that takes the program down. It is the provider's failure (UNKNOWN).
		return message, "", errNilStream, nil
	}
	var assembler BlockAssembler
	for {
		if err := cancelled(ctx); err != nil {
			return message, "", nil, err
		}
		chunk, nextErr := stream.Next(ctx)
		if errors.Is(nextErr, io.EOF) {
			break
		}
		if nextErr != nil {
			return message, "", nextErr, nil
		}
		if err := cancelled(ctx); err != nil {
			return message, "", nil, err
		}
		if _, err := a.session.Append(AssistantChunk{Turn: turn, Step: step, Chunk: chunk}); err != nil {
			return message, "", nil, err
		}
		if addErr := assembler.Add(chunk); addErr != nil {
			return message, "", addErr, nil
		}
	}
	message, finish, requestErr = assembler.Finish()
	return message, finish, requestErr, nil
}
