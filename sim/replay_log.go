package sim

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/harness/filestore"
)

// ErrBadLog wraps every refusal of ReadSessionLog: the log cannot be replayed faithfully, and
// nothing is derived from it.
var ErrBadLog = errors.New("sim: the session log cannot be replayed")

// ReadSessionLog decodes a session log (the file store's JSON Lines, several incarnations of one
// agent, crash restarts included) for ScheduleFromLog. It refuses, with an error that wraps
// ErrBadLog and names the file and the line, a log it cannot replay faithfully: one whose last
// line is torn (a write a crash cut short, which nobody reopened), a line that is not a turnsim
// event (a foreign file), an event type or field this build does not know (a log from a newer
// turnsim), and events the invariant layer refuses (two agents' logs mixed in one file, say).
// name is used in messages only.
func ReadSessionLog(name string, data []byte) ([]harness.Event, error) {
	if len(strings.TrimSpace(string(data))) == 0 {
		return nil, fmt.Errorf("%w: %s: the file is empty: no event to replay", ErrBadLog, name)
	}
	events, torn, err := filestore.Scan(name, data)
	if err != nil {
		var format *filestore.FormatError
		if !errors.As(err, &format) {
			return nil, fmt.Errorf("%w: %s: %w", ErrBadLog, name, err)
		}
		return nil, fmt.Errorf("%w: %s:%d: %s", ErrBadLog, name, format.Line, lineTrouble(data, format))
	}
	if torn != nil {
		return nil, fmt.Errorf("%w: %s:%d: the last line is torn (%d bytes without a newline: a write a crash cut short, and the agent never reopened the log, which would have cut it): replay the lines before it by removing it, or open the log with the file store first", ErrBadLog, name, torn.Line, torn.Bytes)
	}
	v := harness.NewValidator()
	for i, e := range events {
		if err := v.Append(e); err != nil {
			return nil, fmt.Errorf("%w: %s:%d: %s", ErrBadLog, name, i+1, invariantTrouble(events, i, err))
		}
	}
	return events, nil
}

// lineTrouble says what is wrong with the line a FormatError names: not JSON or not an event (a
// foreign file), or an event type or field this build does not know (a newer turnsim's log).
func lineTrouble(data []byte, format *filestore.FormatError) string {
	line := lineText(data, format.Line)
	if strings.TrimSpace(line) == "" {
		return format.Reason
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal([]byte(line), &fields); err != nil {
		return "not a JSON object: not a turnsim session log (" + format.Reason + ")"
	}
	for _, key := range []string{"seq", "type", "time", "data"} {
		if _, ok := fields[key]; !ok {
			return fmt.Sprintf("no %q: not a turnsim session log event (%s)", key, format.Reason)
		}
	}
	switch reason := format.Reason; {
	case strings.Contains(reason, "unknown event type"), strings.Contains(reason, "unknown field"):
		return fmt.Sprintf("%s: this build (turnsim %s) does not know it: a log written by a newer turnsim?", reason, Version)
	default:
		return reason
	}
}

// lineText is the n-th line of data (from 1), "" past its end.
func lineText(data []byte, n int) string {
	lines := strings.SplitN(string(data), "\n", n+1)
	if n < 1 || n > len(lines) {
		return ""
	}
	return lines[n-1]
}

// invariantTrouble says why the invariant layer refused events[i]: a seq that starts again or
// runs backwards is another agent's log mixed into this one.
func invariantTrouble(events []harness.Event, i int, err error) string {
	if i > 0 && events[i].Seq <= events[i-1].Seq {
		return fmt.Sprintf("seq %d follows seq %d: two agents' logs mixed in one file (one agent's log numbers its events 1, 2, 3, … across restarts)", events[i].Seq, events[i-1].Seq)
	}
	var invariant *harness.InvariantError
	if errors.As(err, &invariant) {
		return fmt.Sprintf("the invariant layer refuses %s (rule %s: %s): the log was not written by one turnsim agent through its store", events[i].Type, invariant.Rule, invariant.Reason)
	}
	return err.Error()
}
