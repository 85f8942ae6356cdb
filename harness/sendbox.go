package harness

import (
	"strconv"
	"sync/atomic"
)

// A send logs user/message and inbox/push, and makes the message's id: three allocations a
// send, about ten a simulated schedule. The id of the n-th message ("m" and n) and the
// inbox/push payload, given its lane and kind, are the same in every session, so for the first
// sendBoxMessages messages of a session, which most sessions stay within, they are made once
// and shared, as the step boxes are (stepbox.go). The user/message payload carries the text,
// and is boxed at each send.

// sendBoxMessages bounds the shared ids and inbox/push boxes: a later message's are made at
// each send, as before.
const sendBoxMessages = 32

// messageIDs holds "m1" to "m32", made once.
var messageIDs = func() (ids [sendBoxMessages]string) {
	for i := range ids {
		ids[i] = "m" + strconv.Itoa(i+1)
	}
	return ids
}()

// messageID is the id of a session's n-th message.
func messageID(n int) string {
	if n >= 1 && n <= sendBoxMessages {
		return messageIDs[n-1]
	}
	return "m" + strconv.Itoa(n) // not fmt.Sprintf: about 700 instructions a send
}

// inboxPushBoxes holds, for message n (from 1) and each of inboxPushPlaces, the boxed InboxPush
// of the message with its shared id, shared by the agents of a process (sharedBox).
var inboxPushBoxes [sendBoxMessages][len(inboxPushPlaces)]atomic.Pointer[EventData]

// inboxPushPlaces are the places a push of a kind goes, each kind into the lane it takes
// (MessageKind.lane), and a waking steer after an abort into the next turn's.
var inboxPushPlaces = [...]struct {
	lane Lane
	kind MessageKind
}{{LaneNextTurn, KindFollowup}, {LaneNextStep, KindSteer}, {LaneNextStep, KindInject}, {LaneNextTurn, KindSteer}}

// inboxPushData is InboxPush{Lane: lane, Kind: kind, MessageID: messageID(n)} as EventData. A
// shared box holds the place's constants, not the caller's strings.
func inboxPushData(lane Lane, kind MessageKind, n int) EventData {
	if n >= 1 && n <= sendBoxMessages {
		for i, p := range inboxPushPlaces {
			if p.lane == lane && p.kind == kind {
				return sharedBox(&inboxPushBoxes[n-1][i], func() EventData {
					return InboxPush{Lane: p.lane, Kind: p.kind, MessageID: messageIDs[n-1]}
				})
			}
		}
	}
	return InboxPush{Lane: lane, Kind: kind, MessageID: messageID(n)}
}
