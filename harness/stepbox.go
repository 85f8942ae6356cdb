package harness

import "sync/atomic"

// Every step logs a step/start and a step/end whose payloads are two ints: boxed into EventData
// at each append, that was two allocations a step. A boxed payload is immutable (nothing can
// change the value an interface holds), so the boxes of the turns and steps most sessions reach
// are made once, by the first step that needs each, and shared by every session after it.

// stepBoxTurns and stepBoxSteps bound the shared boxes: a turn or step beyond them is boxed as
// before, at each append.
const (
	stepBoxTurns = 32
	stepBoxSteps = 16
)

// stepBoxes holds, for turn t and step s (from 1), the boxed StepStart [0] and StepEnd [1]. The
// agents of a process share it, so each box is published atomically: a racing first use makes
// two equal boxes, and either one serves.
var stepBoxes [stepBoxTurns][stepBoxSteps][2]atomic.Pointer[EventData]

// stepStartData is StepStart{Turn: turn, Step: step} as EventData.
func stepStartData(turn, step int) EventData {
	return stepBox(turn, step, 0, func() EventData { return StepStart{Turn: turn, Step: step} })
}

// stepEndData is StepEnd{Turn: turn, Step: step} as EventData.
func stepEndData(turn, step int) EventData {
	return stepBox(turn, step, 1, func() EventData { return StepEnd{Turn: turn, Step: step} })
}

// stepBox returns the shared box kind (0 start, 1 end) of turn and step, making it with box on
// first use, or a fresh box outside the shared range.
func stepBox(turn, step, kind int, box func() EventData) EventData {
	if turn < 1 || turn > stepBoxTurns || step < 1 || step > stepBoxSteps {
		return box()
	}
	return sharedBox(&stepBoxes[turn-1][step-1][kind], box)
}

// sharedBox returns the box in slot, making it with box on its first use. The agents of a
// process share the slot, so the box is published atomically: a racing first use makes two
// equal boxes, and either one serves.
func sharedBox(slot *atomic.Pointer[EventData], box func() EventData) EventData {
	if shared := slot.Load(); shared != nil {
		return *shared
	}
	made := box()
	slot.Store(&made)
	return made
}

// Every turn logs a turn/end, and most end completed (or max-tokens, or interrupted by crash
// repair): a payload of a turn number and a reason kind alone, shared in the same way, for the
// turns the step boxes cover. A reason with a cause or an error is boxed at each append.

// turnEndBoxKinds are the reason kinds whose turn/end payloads are shared, in slot order.
var turnEndBoxKinds = [...]string{EndCompleted, EndMaxTokens, EndInterrupted}

// turnEndBoxes holds, for turn t (from 1), the boxed TurnEnd of each of turnEndBoxKinds.
var turnEndBoxes [stepBoxTurns][len(turnEndBoxKinds)]atomic.Pointer[EventData]

// turnEndData is TurnEnd{Turn: turn, Reason: reason} as EventData. A shared box holds the kind's
// constant, not the caller's string, which may share memory the caller reuses.
func turnEndData(turn int, reason TurnEndReason) EventData {
	if reason.Reason == nil && reason.Error == nil && turn >= 1 && turn <= stepBoxTurns {
		for i, k := range turnEndBoxKinds {
			if reason.Kind == k {
				return sharedBox(&turnEndBoxes[turn-1][i], func() EventData {
					return TurnEnd{Turn: turn, Reason: TurnEndReason{Kind: k}}
				})
			}
		}
	}
	return TurnEnd{Turn: turn, Reason: reason}
}
