package sim

import (
	"bytes"
	"fmt"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/harness/eventjson"
)

// LogMismatch is where a replay's log parts from the incident's.
type LogMismatch struct {
	// Line is the incident log's line (from 1) where the two part; Want is the incident's event
	// there and Got the replay's (nil when that log has ended).
	Line      int
	Want, Got *harness.Event
	// Reason says what differs.
	Reason string
}

func (m *LogMismatch) String() string {
	describe := func(e *harness.Event) string {
		if e == nil {
			return "(the log has ended)"
		}
		line, err := eventjson.Append(nil, []harness.Event{*e})
		if err != nil {
			return Describe(*e)
		}
		return string(bytes.TrimSpace(line))
	}
	return fmt.Sprintf("line %d: %s\n  incident: %s\n  replay:   %s", m.Line, m.Reason, describe(m.Want), describe(m.Got))
}

// CompareLogs compares a replay's log with the incident's, event for event: the same seq, type
// and payload, in the same order, at times at most lateMs apart (a production log's timers fire
// a little late; a replay's never do). A replay may go on past an incident that ends inside a
// turn with exactly crash repair's events for it: the incident's process died there, and the
// replay restarted it. It returns nil when the logs match.
func CompareLogs(incident, replayed []harness.Event, lateMs int64) *LogMismatch {
	for i := range incident {
		want := &incident[i]
		if i >= len(replayed) {
			return &LogMismatch{Line: i + 1, Want: want, Reason: "the replay's log ends here"}
		}
		got := &replayed[i]
		if reason := differs(want, got, lateMs); reason != "" {
			return &LogMismatch{Line: i + 1, Want: want, Got: got, Reason: reason}
		}
	}
	rest := replayed[len(incident):]
	if len(rest) == 0 {
		return nil
	}
	repair := harness.RepairEvents(incident)
	for j, e := range rest {
		line := len(incident) + j + 1
		if j >= len(repair) {
			return &LogMismatch{Line: line, Got: &rest[j], Reason: "the replay's log goes on past the incident's"}
		}
		if e.Type != repair[j].EventType() || !samePayload(e.Data, repair[j]) {
			return &LogMismatch{Line: line, Got: &rest[j], Reason: "the replay's log goes on past the incident's, other than with crash repair's events"}
		}
	}
	return nil
}

// differs says how got differs from want ("" when it does not).
func differs(want, got *harness.Event, lateMs int64) string {
	switch {
	case want.Seq != got.Seq:
		return fmt.Sprintf("seq %d, not %d", got.Seq, want.Seq)
	case want.Type != got.Type:
		return fmt.Sprintf("a %s event, not %s", got.Type, want.Type)
	case !samePayload(want.Data, got.Data):
		return "the payloads differ"
	case got.Time-want.Time > lateMs || want.Time-got.Time > lateMs:
		return fmt.Sprintf("written %+d ms from the incident's time, more than %d ms apart", got.Time-want.Time, lateMs)
	}
	return ""
}

// samePayload reports whether two payloads encode alike.
func samePayload(a, b harness.EventData) bool {
	x, errX := eventjson.Append(nil, []harness.Event{{Type: a.EventType(), Data: a}})
	y, errY := eventjson.Append(nil, []harness.Event{{Type: b.EventType(), Data: b}})
	return errX == nil && errY == nil && bytes.Equal(x, y)
}
