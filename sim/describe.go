package sim

import (
	"fmt"
	"strings"
	"time"

	"github.com/turnsim/turnsim/harness"
)

// Describe renders one event as a short line a person can scan: its type, where it happened
// (turn.step) and what matters about it. Tests use it to state exact event sequences; repro uses
// it for timelines.
func Describe(e harness.Event) string {
	switch d := e.Data.(type) {
	case harness.UserMessage:
		return fmt.Sprintf("user/message %s %q", d.Message.ID, d.Message.Text)
	case harness.InboxPush:
		return fmt.Sprintf("inbox/push %s %s %s", d.MessageID, d.Lane, d.Kind)
	case harness.InboxClaim:
		return fmt.Sprintf("inbox/claim %d.%d %s %s", d.Turn, d.Step, d.MessageID, d.Lane)
	case harness.InboxClear:
		return fmt.Sprintf("inbox/clear %s %s", d.MessageID, d.Lane)
	case harness.TurnStart:
		return fmt.Sprintf("turn/start %d", d.Turn)
	case harness.TurnEnd:
		return fmt.Sprintf("turn/end %d %s", d.Turn, DescribeReason(d.Reason))
	case harness.StepStart:
		return fmt.Sprintf("step/start %d.%d", d.Turn, d.Step)
	case harness.StepEnd:
		return fmt.Sprintf("step/end %d.%d", d.Turn, d.Step)
	case harness.AssistantChunk:
		return fmt.Sprintf("assistant/chunk %d.%d %s", d.Turn, d.Step, describeChunk(d.Chunk))
	case harness.AssistantMessage:
		return fmt.Sprintf("assistant/message %d.%d %s", d.Turn, d.Step, d.Finish)
	case harness.ToolCall:
		return fmt.Sprintf("tool/call %d.%d %s %s", d.Turn, d.Step, d.CallID, d.Name)
	case harness.ToolResult:
		if d.IsError {
			code := "error"
			if d.Error != nil {
				code = d.Error.Code
			}
			return fmt.Sprintf("tool/result %d.%d %s %s", d.Turn, d.Step, d.CallID, code)
		}
		return fmt.Sprintf("tool/result %d.%d %s ok", d.Turn, d.Step, d.CallID)
	case harness.LlmRetry:
		return fmt.Sprintf("llm/retry %d.%d #%d %s %s delay=%gms", d.Turn, d.Step, d.Retry, d.Mode, d.Failure.Code, d.DelayMs)
	case harness.LlmRetryStarted:
		return fmt.Sprintf("llm/retry-started %d.%d #%d", d.Turn, d.Step, d.Retry)
	}
	return e.Type
}

// DescribeReason renders a turn/end reason: "completed", "aborted(user)", "error(RATE_LIMIT)".
func DescribeReason(r harness.TurnEndReason) string {
	switch {
	case r.Reason != nil && r.Reason.Reason != "":
		return fmt.Sprintf("%s(%s: %s)", r.Kind, r.Reason.Kind, r.Reason.Reason)
	case r.Reason != nil:
		return fmt.Sprintf("%s(%s)", r.Kind, r.Reason.Kind)
	case r.Error != nil:
		return fmt.Sprintf("%s(%s)", r.Kind, r.Error.Code)
	}
	return r.Kind
}

func describeChunk(c harness.Chunk) string {
	switch c.Kind {
	case harness.ChunkText:
		return fmt.Sprintf("text %q", c.Text)
	case harness.ChunkToolCall:
		return fmt.Sprintf("tool-call %s %s", c.CallID, c.Name)
	case harness.ChunkFinish:
		return "finish " + string(c.Finish)
	}
	return c.Kind
}

// Timeline renders events one per line as "+virtual time  description", time measured from
// start (Unix ms), so a run reads as a story.
func Timeline(events []harness.Event, startMs int64) string {
	var b strings.Builder
	for _, e := range events {
		fmt.Fprintf(&b, "%9s  %s\n", "+"+formatOffset(e.Time-startMs), Describe(e))
	}
	return b.String()
}

func formatOffset(ms int64) string {
	return fmt.Sprintf("%.3fs", (time.Duration(ms) * time.Millisecond).Seconds())
}

// Story renders a log as the story of its run: each event as Describe gives it, with the jittered
// delay of llm/retry lines left out. Two runs of one schedule on runtimes whose clocks differ (the
// scheduler's and the production runtime's, the simulator's provider model and a real HTTP
// provider) tell the same story when they behave alike, whatever their times and jitter.
func Story(events []harness.Event) []string {
	out := make([]string, len(events))
	for i, e := range events {
		l := Describe(e)
		if j := strings.Index(l, " delay="); j >= 0 {
			l = l[:j]
		}
		out[i] = l
	}
	return out
}
