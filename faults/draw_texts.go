package faults

import "strconv"

// The texts of the scripted user's sends: each is its kind and its number in the plan ("steer
// 3"), unique in the plan, so that the properties tell messages apart by their text. A drawn
// plan numbers at most about 21 sends; their texts are made once here instead of concatenated
// for every send of every plan (about 2.5 allocations a plan).

// sendKind says which of sendPrefixes a send's text starts with.
type sendKind int

const (
	sendFollowup sendKind = iota
	sendSteer
	sendInject
	sendObserverFollowup
	sendObserverSteer
	sendRacingSteer
	sendRacingFollowup
)

// sendPrefixes are the texts of the kinds of send, in sendKind's order, each before its number.
var sendPrefixes = [...]string{
	sendFollowup:         ActFollowup + " ",
	sendSteer:            ActSteer + " ",
	sendInject:           ActInject + " ",
	sendObserverFollowup: "observer " + ActFollowup + " ",
	sendObserverSteer:    "observer " + ActSteer + " ",
	sendRacingSteer:      "racing " + ActSteer + " ",
	sendRacingFollowup:   "racing " + ActFollowup + " ",
}

// sendTextsMade is how many numbers of each kind sendTexts holds, from 0.
const sendTextsMade = 32

// sendTexts[kind][n] is sendText(kind, n) for n below sendTextsMade.
var sendTexts = func() (texts [len(sendPrefixes)][sendTextsMade]string) {
	for kind, prefix := range sendPrefixes {
		for n := range sendTextsMade {
			texts[kind][n] = prefix + strconv.Itoa(n)
		}
	}
	return texts
}()

// sendText is the text of a send of kind numbered n: its prefix, then n.
func sendText(kind sendKind, n int) string {
	if n >= 0 && n < sendTextsMade {
		return sendTexts[kind][n]
	}
	return sendPrefixes[kind] + strconv.Itoa(n)
}
