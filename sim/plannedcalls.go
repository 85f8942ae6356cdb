package sim

import (
	"encoding/json"
	"strconv"

	"github.com/turnsim/turnsim/faults"
)

// The tool calls the world asked for, by their arguments. A simulated tool learns what the plan
// wants of its call from the arguments the model sent (the plan's Call, as JSON), and decoding
// them with encoding/json showed in a schedule's profile. The world encoded them itself when it
// streamed the call, so it keeps what it encoded under the exact text and a tool given that text
// takes it back. Arguments the world never wrote (a harness that altered them) are decoded as
// before, and fail as before when they are not a plan call.

// askedCall is a call the world streamed: the arguments text and what it encodes, the plan's
// Call by reference (the plan is read only), not a copy: the record stays small.
type askedCall struct {
	arguments string
	callID    string
	input     string
	call      *faults.Call
	request   int
}

// askedBuffered is the room the asked calls start with, made at the first: a run streams few
// calls (most runs that run a tool run four or fewer).
const askedBuffered = 8

// askCall records the arguments text the world streamed for args, whose Call is planned's, the
// plan's own.
func (t *tracer) askCall(arguments string, args *toolArguments, planned *faults.Call) {
	t.mu.Lock()
	if t.asked == nil {
		t.asked = make([]askedCall, 0, askedBuffered)
	}
	t.asked = append(t.asked, askedCall{arguments: arguments, callID: args.CallID, input: args.Input, call: planned, request: args.Request})
	t.mu.Unlock()
}

// askedCall is what the world encoded as arguments, decoded only if it never did. The calls are
// a list searched from the latest, which is the call a tool usually runs: a run streams a few,
// and a map of them cost more than the search (it hashed each text twice). Texts are unique in a run
// (they hold the request and call numbers); were one streamed again, the latest would answer,
// as the map's last write did.
func (t *tracer) askedCall(arguments string) (toolArguments, error) {
	t.mu.Lock()
	for i := len(t.asked) - 1; i >= 0; i-- {
		if a := &t.asked[i]; a.arguments == arguments {
			args := toolArguments{CallID: a.callID, Request: a.request, Call: *a.call, Input: a.input}
			t.mu.Unlock()
			return args, nil
		}
	}
	t.mu.Unlock()
	return decodeCall(arguments)
}

// decodeCall decodes arguments the world never wrote. Apart from askedCall, so that only this
// variable escapes to the heap (through Unmarshal), not askedCall's on every tool call.
func decodeCall(arguments string) (toolArguments, error) {
	var args toolArguments
	err := json.Unmarshal([]byte(arguments), &args)
	return args, err
}

// encodeCall is the call id id names, and json.Marshal of args with that id, as one string:
// the id is a part of the text. Marshal (reflection, its pooled buffer, a copy into a string) and
// the id's fmt.Sprintf with a string of its own showed in a schedule's profile; this writes the
// same bytes straight into one string. A string that JSON would escape
// (a quote, a backslash, a control byte, <, > or &, anything outside ASCII) sends the call to
// Marshal instead, so the text is Marshal's byte for byte (TestEncodeCallIsMarshal).
func encodeCall(id []byte, args toolArguments) (callID, text string) {
	const head = `{"callId":"`
	var room [256]byte
	b := append(append(room[:0], head...), id...)
	if b, ok := appendCallRest(b, args); ok && plainJSON(string(id)) {
		text = string(b)
		return text[len(head) : len(head)+len(id)], text
	}
	args.CallID = string(id)
	encoded, err := json.Marshal(args)
	if err != nil {
		panic("sim: invariant: a plan call does not encode: " + err.Error())
	}
	return args.CallID, string(encoded)
}

// appendCallRest appends what follows the call id in json.Marshal's text of args: the fields
// in toolArguments' order, with its omitempty rules. false: a string needs escaping.
func appendCallRest(b []byte, args toolArguments) ([]byte, bool) {
	call := args.Call
	if !plainJSON(call.Name) || !plainJSON(call.Outcome) || !plainJSON(args.Input) {
		return b, false
	}
	b = append(b, `","request":`...)
	b = strconv.AppendInt(b, int64(args.Request), 10)
	b = append(b, `,"name":"`...)
	b = append(b, call.Name...)
	b = append(b, `","latencyMs":`...)
	b = strconv.AppendInt(b, call.LatencyMs, 10)
	b = append(b, `,"outcome":"`...)
	b = append(b, call.Outcome...)
	b = append(b, '"')
	if call.IgnoreCancel {
		b = append(b, `,"ignoreCancel":true`...)
	}
	var ok bool
	if b, ok = appendPlainList(b, "faults", call.Faults); !ok {
		return b, false
	}
	if b, ok = appendPlainList(b, "wrap", call.Wrap); !ok {
		return b, false
	}
	if args.Input != "" {
		b = append(b, `,"input":"`...)
		b = append(b, args.Input...)
		b = append(b, '"')
	}
	return append(b, '}'), true
}

// plainJSON reports whether encoding/json writes s inside its quotes as it is: printable ASCII
// without a quote, a backslash, or the HTML characters <, > and & that Marshal escapes.
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20, c > 0x7e, c == '"', c == '\\', c == '<', c == '>', c == '&':
			return false
		}
	}
	return true
}

// appendPlainList appends `,"key":["a","b"]` for a non-empty list of strings that need no
// escaping; ok is false (and b is not to be used) when one does.
func appendPlainList(b []byte, key string, list []string) (_ []byte, ok bool) {
	if len(list) == 0 {
		return b, true
	}
	b = append(b, `,"`...)
	b = append(b, key...)
	b = append(b, `":[`...)
	for i, item := range list {
		if !plainJSON(item) {
			return b, false
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, item...)
		b = append(b, '"')
	}
	return append(b, ']'), true
}
