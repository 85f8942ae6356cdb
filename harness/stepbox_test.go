package harness

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The shared step boxes hold exactly the payloads a step logs, inside the shared range and out
// of it, however many agents ask for them at once (run with -race: the boxes are published
// across goroutines).
func TestStepBoxesAreTheStepPayloads(t *testing.T) {
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for turn := -1; turn <= stepBoxTurns+2; turn++ {
				for step := -1; step <= stepBoxSteps+2; step++ {
					assert.Equal(t, EventData(StepStart{Turn: turn, Step: step}), stepStartData(turn, step))
					assert.Equal(t, EventData(StepEnd{Turn: turn, Step: step}), stepEndData(turn, step))
				}
			}
		})
	}
	wg.Wait()
	start, end := stepStartData(3, 2), stepEndData(3, 2)
	assert.Equal(t, TypeStepStart, start.EventType())
	assert.Equal(t, TypeStepEnd, end.EventType())
	_, isStart := start.(StepStart)
	_, isEnd := end.(StepEnd)
	assert.True(t, isStart && isEnd, "the payloads are values, as every appended payload is")
}

// The shared turn/end boxes hold exactly the payloads a turn logs, for every reason kind shared
// or not, inside the shared range and out of it, however many agents ask at once (-race).
func TestTurnEndBoxesAreTheTurnEndPayloads(t *testing.T) {
	reasons := []TurnEndReason{
		{Kind: EndCompleted}, {Kind: EndMaxTokens}, {Kind: EndInterrupted},
		{Kind: EndAborted, Reason: &CancelCause{Kind: CauseUser}},
		{Kind: EndError, Error: &Failure{Code: CodeUnknown, Message: "boom"}},
		{Kind: EndCompleted, Error: &Failure{Code: CodeUnknown, Message: "not shared: it has an error"}},
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for turn := -1; turn <= stepBoxTurns+2; turn++ {
				for _, reason := range reasons {
					assert.Equal(t, EventData(TurnEnd{Turn: turn, Reason: reason}), turnEndData(turn, reason))
				}
			}
		})
	}
	wg.Wait()
	end, isEnd := turnEndData(2, TurnEndReason{Kind: EndCompleted}).(TurnEnd)
	assert.True(t, isEnd, "the payload is a value, as every appended payload is")
	assert.Equal(t, TurnEnd{Turn: 2, Reason: TurnEndReason{Kind: EndCompleted}}, end)
}
