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

// claimable appends a step's share to share, left in place: a turn's first step takes one
// next-turn message and all of the next-step lane; later steps take the next-step lane only. The
// caller removes each message once its claim is logged, so the log and the inbox never disagree.
func (b *inbox) claimable(firstStep bool, share []inboxEntry) []inboxEntry {
	if firstStep && len(b.nextTurn) > 0 {
		share = append(share, b.nextTurn[0])
	}
	return append(share, b.nextStep...)
}

// all returns every queued message, next-turn lane first.
func (b *inbox) all() []inboxEntry {
	return append(append([]inboxEntry(nil), b.nextTurn...), b.nextStep...)
}

// remove takes the message out of its lane, in place. Nothing else holds a lane's array:
// claimable and all hand out copies.
func (b *inbox) remove(m inboxEntry) {
	lane := &b.nextStep
	if m.lane == LaneNextTurn {
		lane = &b.nextTurn
	}
	for i, e := range *lane {
		if e.id == m.id {
			last := len(*lane) - 1
			copy((*lane)[i:], (*lane)[i+1:])
			(*lane)[last] = inboxEntry{} // the text is the conversation's now, not the lane's
			*lane = (*lane)[:last]
			return
		}
	}
	panic("harness: invariant: removing message " + m.id + " that is not in the inbox")
}
