package properties

import (
	"reflect"
	"slices"

	"github.com/turnsim/turnsim/harness"
)

// sameEvent is reflect.DeepEqual(a, b), written out field by field for the harness's event data
// types: log-replays and no-acknowledged-loss compare every event of every run, and DeepEqual
// walks each one by reflection. A data type it does not know (a new one, or a pointer to one) is
// left to DeepEqual itself. TestSameEventIsDeepEqual changes every field of every type, so a
// field added to the harness and not compared here fails it.
func sameEvent(a, b *harness.Event) bool {
	if a == b {
		return true // DeepEqual's answer for one pointer, whatever it points at (a NaN delay, say)
	}
	return a.Seq == b.Seq && a.Type == b.Type && a.Time == b.Time && sameData(a.Data, b.Data)
}

// sameData is reflect.DeepEqual(a, b) for event data. Types of booleans, numbers and strings
// only are compared with ==, which is what DeepEqual does for them (NaN included: unequal to
// itself both ways); the types holding pointers or slices compare what these point at.
func sameData(a, b harness.EventData) bool {
	switch x := a.(type) {
	case harness.AssistantChunk:
		y, ok := b.(harness.AssistantChunk)
		return ok && x == y
	case harness.UserMessage:
		y, ok := b.(harness.UserMessage)
		return ok && x == y
	case harness.InboxPush:
		y, ok := b.(harness.InboxPush)
		return ok && x == y
	case harness.InboxClaim:
		y, ok := b.(harness.InboxClaim)
		return ok && x == y
	case harness.InboxClear:
		y, ok := b.(harness.InboxClear)
		return ok && x == y
	case harness.TurnStart:
		y, ok := b.(harness.TurnStart)
		return ok && x == y
	case harness.StepStart:
		y, ok := b.(harness.StepStart)
		return ok && x == y
	case harness.StepEnd:
		y, ok := b.(harness.StepEnd)
		return ok && x == y
	case harness.ToolCall:
		y, ok := b.(harness.ToolCall)
		return ok && x == y
	case harness.LlmRetryStarted:
		y, ok := b.(harness.LlmRetryStarted)
		return ok && x == y
	case harness.TurnEnd:
		y, ok := b.(harness.TurnEnd)
		return ok && x.Turn == y.Turn && x.Reason.Kind == y.Reason.Kind &&
			samePointee(x.Reason.Reason, y.Reason.Reason) && samePointee(x.Reason.Error, y.Reason.Error)
	case harness.AssistantMessage:
		y, ok := b.(harness.AssistantMessage)
		return ok && x.Turn == y.Turn && x.Step == y.Step && x.Finish == y.Finish &&
			sameSlice(x.Message.Blocks, y.Message.Blocks)
	case harness.ToolResult:
		y, ok := b.(harness.ToolResult)
		return ok && x.Turn == y.Turn && x.Step == y.Step && x.CallID == y.CallID &&
			x.IsError == y.IsError && x.Content == y.Content && samePointee(x.Error, y.Error)
	case harness.LlmRetry:
		y, ok := b.(harness.LlmRetry)
		return ok && x.RetryID == y.RetryID && x.Turn == y.Turn && x.Step == y.Step &&
			x.Provider == y.Provider && x.Mode == y.Mode && x.PolicyKey == y.PolicyKey &&
			x.Retry == y.Retry && samePointee(x.MaxRetries, y.MaxRetries) && x.DelayMs == y.DelayMs &&
			x.Failure == y.Failure
	}
	return reflect.DeepEqual(a, b)
}

// samePointee is DeepEqual for pointers to such a type: both nil, the same pointer (equal even
// if it points at a NaN), or pointing at equal values.
func samePointee[T comparable](a, b *T) bool {
	if a == b {
		return true
	}
	return a != nil && b != nil && *a == *b
}

// sameSlice is DeepEqual for slices of a type of strings only (harness.Block): both nil or both
// not, and equal elements. (DeepEqual also calls two slices over the same array equal without
// looking, which only matters for elements unequal to themselves, a NaN: strings never are.)
func sameSlice[T comparable](a, b []T) bool {
	return (a == nil) == (b == nil) && slices.Equal(a, b)
}
