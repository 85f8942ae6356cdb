package faults

import "strconv"

// The texts of the scripted user's sends: each is its kind and its number in the plan ("steer
// 3"), unique in the plan, so that the properties tell messages apart by their text.

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
	sendAimed
	sendAim
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
	sendAimed:            "aimed send ",
	sendAim:              "aim send ",
}

// sendText is the text of a send of kind numbered n: its prefix, then n.
func sendText(kind sendKind, n int) string { return sendPrefixes[kind] + strconv.Itoa(n) }
