package harness

// inboxEntry is one queued user message.
type inboxEntry struct {
	id   string
	kind MessageKind
	lane Lane
	text string
}

// inbox holds messages between the user and the turn loop, in two lanes: next-turn work waits
// for the current turn to end, next-step work is taken by the current turn's next step. It is
// guarded by the agent's mutex.
type inbox struct {
	nextTurn []inboxEntry
	nextStep []inboxEntry
}

func (b *inbox) push(e inboxEntry) {
	if e.lane == LaneNextTurn {
		b.nextTurn = append(b.nextTurn, e)
	} else {
		b.nextStep = append(b.nextStep, e)
	}
}

// hasPending reports whether any lane holds work: what lets the driver start another turn.
func (b *inbox) hasPending() bool { return len(b.nextTurn)+len(b.nextStep) > 0 }

// nextStepEmpty reports whether a turn whose step just ended may end.
func (b *inbox) nextStepEmpty() bool { return len(b.nextStep) == 0 }

// claim takes a step's share: a turn's first step takes one next-turn message and all of the
// next-step lane; later steps take the next-step lane only.
func (b *inbox) claim(firstStep bool) []inboxEntry {
	var claimed []inboxEntry
	if firstStep && len(b.nextTurn) > 0 {
		claimed = append(claimed, b.nextTurn[0])
		b.nextTurn = b.nextTurn[1:]
	}
	claimed = append(claimed, b.nextStep...)
	b.nextStep = nil
	return claimed
}

// clear empties both lanes and returns what was dropped, next-turn lane first.
func (b *inbox) clear() []inboxEntry {
	dropped := append(b.nextTurn, b.nextStep...)
	b.nextTurn, b.nextStep = nil, nil
	return dropped
}
