package sim

import "encoding/json"

// The tool calls the world asked for, by their arguments. A simulated tool learns what the plan
// wants of its call from the arguments the model sent (the plan's Call, as JSON), and decoding
// them with encoding/json was about 1.5 % of a schedule. The world encoded them itself when it
// streamed the call, so it keeps what it encoded under the exact text and a tool given that text
// takes it back. Arguments the world never wrote (a harness that altered them) are decoded as
// before, and fail as before when they are not a plan call.

// askCall records the arguments text the world streamed for args.
func (t *tracer) askCall(arguments string, args toolArguments) {
	t.mu.Lock()
	if t.asked == nil {
		t.asked = make(map[string]toolArguments, 8)
	}
	t.asked[arguments] = args
	t.mu.Unlock()
}

// askedCall is what the world encoded as arguments, decoded only if it never did.
func (t *tracer) askedCall(arguments string) (toolArguments, error) {
	t.mu.Lock()
	args, ok := t.asked[arguments]
	t.mu.Unlock()
	if ok {
		return args, nil
	}
	err := json.Unmarshal([]byte(arguments), &args)
	return args, err
}
