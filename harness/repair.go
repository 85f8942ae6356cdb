package harness

// Crash repair: a log whose last turn is open was left by a process that died mid-turn. Opening
// it closes that turn, so every later reader (and the next turn) finds a settled log: each call
// the last answer asked for gets its one result, the step and the turn end, and the turn says it
// was interrupted. No tool is run again: a call that was dispatched may have had its effect, so
// its outcome is recorded as unknown rather than guessed.

// Synthetic results of crash repair.
var (
	notStarted     = ToolError{Name: "Interrupted", Code: CodeToolNotStarted, Message: "the session was interrupted before this call was dispatched"}
	outcomeUnknown = ToolError{Name: "Interrupted", Code: CodeToolOutcomeUnknown, Message: "the session was interrupted while this call ran; its outcome is unknown"}
)

// RepairEvents returns the events that close the open turn of a valid log, in the order they
// must be appended: for the open step, in model order, TOOL_NOT_STARTED for each call its answer
// asked for that was never dispatched and TOOL_OUTCOME_UNKNOWN for each dispatched call without a
// result, then step/end; then turn/end {interrupted}. A log with no open turn needs nothing.
func RepairEvents(events []Event) []EventData {
	v := NewValidator()
	for _, e := range events {
		if err := v.Append(e); err != nil {
			panic("harness: invariant: RepairEvents needs a valid log: " + err.Error())
		}
	}
	turn, step, _ := v.OpenTurn()
	return repairOpen(events, turn, step)
}

// repairOpen is RepairEvents for a log whose open turn and step (0: none) are known already:
// a resumed session's invariant layer knows them from the history it validated.
func repairOpen(events []Event, turn, step int) []EventData {
	if turn == 0 {
		return nil
	}
	var repair []EventData
	if step > 0 {
		repair = append(repair, repairStep(events, turn, step)...)
		repair = append(repair, StepEnd{Turn: turn, Step: step})
	}
	return append(repair, TurnEnd{Turn: turn, Reason: TurnEndReason{Kind: EndInterrupted}})
}

// repairStep gives every call of the open step that lacks a result the result crash repair owes.
func repairStep(events []Event, turn, step int) []EventData {
	var message *AssistantMessage
	called := map[string]bool{}
	resulted := map[string]bool{}
	var callOrder []ToolCall
	for _, e := range events {
		switch d := e.Data.(type) {
		case AssistantMessage:
			if d.Turn == turn && d.Step == step {
				message = &d
			}
		case ToolCall:
			if d.Turn == turn && d.Step == step {
				called[d.CallID] = true
				callOrder = append(callOrder, d)
			}
		case ToolResult:
			if d.Turn == turn && d.Step == step {
				resulted[d.CallID] = true
			}
		}
	}
	var repair []EventData
	owe := func(callID string, why ToolError) {
		if !resulted[callID] {
			resulted[callID] = true
			repair = append(repair, errorResult(ToolResult{Turn: turn, Step: step, CallID: callID}, why))
		}
	}
	if message != nil && message.Finish == FinishToolCalls {
		for _, block := range message.Message.ToolCalls() {
			if called[block.CallID] {
				owe(block.CallID, outcomeUnknown)
			} else {
				owe(block.CallID, notStarted)
			}
		}
	}
	for _, c := range callOrder { // a dispatched call the answer did not list: still owed its result
		owe(c.CallID, outcomeUnknown)
	}
	return repair
}
