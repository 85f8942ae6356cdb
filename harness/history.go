package harness

import "slices"

// ValidatedHistory is a session log the invariant layer accepted, event by event, kept together
// with the state the layer was left in. A file store that reads a log back validates it anyway
// (so that it can refuse an append that would make the file unreadable); it hands the result on,
// and an agent resuming from it (Config.ResumeFrom) takes that state over instead of replaying the
// whole log through the layer a second time.
//
// It is as safe as History: only ValidateHistory and Extend make one, and each runs every event
// it adds through the invariant layer, so a ValidatedHistory never holds an event the layer
// refused; a log that breaks an invariant is refused by them with the error ValidateLog gives.
// What it vouches for is its own copy of the events, which Events returns without copying: like
// Session.Log's, they must not be modified (a caller that wrote into them would resume an agent
// from events nobody judged). It never changes once made, and is safe for concurrent use.
type ValidatedHistory struct {
	events []Event
	// state is the invariant layer after events; never changed: an agent, a store or an extension
	// each takes a clone.
	state Validator
}

// ValidateHistory replays events through a fresh invariant layer, as ValidateLog does, and returns
// them validated: the first refusal is its error (an *InvariantError), as ValidateLog's. The
// history holds its own copy of events. The history of no events is nil, which every method takes.
func ValidateHistory(events []Event) (*ValidatedHistory, error) {
	return (*ValidatedHistory)(nil).Extend(events)
}

// Extend returns the history h followed by more, validated: more is judged against the state h
// left the invariant layer in, so h's events are not replayed again. It is for a log that grew
// since h was read from it (a file store reopening it after a restart). A nil h is the empty log:
// Extend is ValidateHistory then. h is unchanged; the first refusal is the error.
func (h *ValidatedHistory) Extend(more []Event) (*ValidatedHistory, error) {
	if len(more) == 0 {
		return h, nil // it never changes: the same history serves (nil for an empty log)
	}
	state := h.Validator()
	for _, e := range more {
		if err := state.Append(e); err != nil {
			return nil, err
		}
	}
	events := slices.Concat(h.Events(), more)
	return &ValidatedHistory{events: events, state: state}, nil
}

// Events returns the history's events. They must not be modified (the history vouches for them),
// and the slice is clipped: an append to it copies.
func (h *ValidatedHistory) Events() []Event {
	if h == nil {
		return nil
	}
	return slices.Clip(h.events)
}

// Validator returns the invariant layer as the history left it, a copy of its own: for a store
// that goes on checking the events appended after the history.
func (h *ValidatedHistory) Validator() Validator {
	if h == nil {
		return Validator{}
	}
	return h.state.clone()
}
