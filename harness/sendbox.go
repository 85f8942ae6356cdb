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

// inboxPushBoxes holds, for message n (from 1) and each of its kind's places in the lanes (see
// inboxPushSlot), the boxed InboxPush of the message with its shared id. The agents of a process
// share it, so each box is published atomically: a racing first use makes two equal boxes, and
// either one serves.
var inboxPushBoxes [sendBoxMessages][4]atomic.Pointer[EventData]

// inboxPushSlot is where a push of kind into lane goes in a message's boxes: the lane a kind
// takes (MessageKind.lane), or the next-turn lane for a waking send after an abort. -1: none.
func inboxPushSlot(lane Lane, kind MessageKind) int {
	switch {
	case lane == LaneNextTurn && kind == KindFollowup:
		return 0
	case lane == LaneNextStep && kind == KindSteer:
		return 1
	case lane == LaneNextStep && kind == KindInject:
		return 2
	case lane == LaneNextTurn && kind == KindSteer:
		return 3
	}
	return -1
}

// inboxPushData is InboxPush{Lane: lane, Kind: kind, MessageID: messageID(n)} as EventData.
func inboxPushData(lane Lane, kind MessageKind, n int) EventData {
	slot := inboxPushSlot(lane, kind)
	if slot < 0 || n < 1 || n > sendBoxMessages {
		return InboxPush{Lane: lane, Kind: kind, MessageID: messageID(n)}
	}
	box := &inboxPushBoxes[n-1][slot]
	if shared := box.Load(); shared != nil {
		return *shared
	}
	var made EventData = InboxPush{Lane: lane, Kind: kind, MessageID: messageID(n)}
	box.Store(&made)
	return made
}
