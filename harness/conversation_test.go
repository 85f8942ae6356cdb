package harness

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A request never carries a tool call without its result, nor a result without its call (spec
// §9): compaction drops the results whose call it dropped, and a turn that ends with calls
// unanswered (its executor failed before committing them) takes them out of the conversation.

func userEntry(text string) Entry { return Entry{Role: RoleUser, Text: text} }

func callsEntry(ids ...string) Entry {
	e := Entry{Role: RoleAssistant, Blocks: []Block{{Type: BlockText, Text: "on it"}}}
	for _, id := range ids {
		e.Blocks = append(e.Blocks, Block{Type: BlockToolCall, CallID: id, Name: "read"})
	}
	return e
}

func resultEntry(id string) Entry { return Entry{Role: RoleTool, CallID: id, Text: "ok"} }

func TestCompactDropsResultsWhoseCallItDropped(t *testing.T) {
	c := Conversation{entries: []Entry{userEntry("a"), callsEntry("c1", "c2"), resultEntry("c1"), resultEntry("c2"), userEntry("b"), callsEntry("c3"), resultEntry("c3")}}
	dropped := c.Compact()
	// the older half (3 entries) goes, taking the assistant entry of c1 and c2: c2's result goes too
	assert.Equal(t, []Entry{userEntry("b"), callsEntry("c3"), resultEntry("c3")}, c.entries)
	assert.Equal(t, 4, dropped)
}

func TestCompactKeepsACallWithItsResults(t *testing.T) {
	c := Conversation{entries: []Entry{userEntry("a"), userEntry("b"), callsEntry("c1"), resultEntry("c1")}}
	assert.Equal(t, 2, c.Compact())
	assert.Equal(t, []Entry{callsEntry("c1"), resultEntry("c1")}, c.entries)
}

func TestDropUnansweredRemovesCallsWithoutAResult(t *testing.T) {
	c := Conversation{entries: []Entry{userEntry("a"), callsEntry("c1", "c2", "c3"), resultEntry("c1")}}
	c.dropUnanswered()
	assert.Equal(t, []Entry{userEntry("a"), callsEntry("c1"), resultEntry("c1")}, c.entries)
	c.dropUnanswered()
	assert.Equal(t, []Entry{userEntry("a"), callsEntry("c1"), resultEntry("c1")}, c.entries, "nothing more to drop")
}

// Each turn's end looks at the entries since the last one: a call left unanswered in a later
// turn is dropped even when an earlier turn answered a call of the same id (ids are unique per
// step only), and entries settled before stay as they were.
func TestDropUnansweredLooksAtEachTurnsOwnResults(t *testing.T) {
	c := Conversation{}
	for _, e := range []Entry{userEntry("a"), callsEntry("c1"), resultEntry("c1")} {
		c.add(e)
	}
	c.dropUnanswered() // turn 1 ends: all answered
	for _, e := range []Entry{userEntry("b"), callsEntry("c1", "c2"), resultEntry("c2")} {
		c.add(e)
	}
	c.dropUnanswered() // turn 2 ends: its c1 has no result of its own
	assert.Equal(t, []Entry{userEntry("a"), callsEntry("c1"), resultEntry("c1"), userEntry("b"), callsEntry("c2"), resultEntry("c2")}, c.entries)
}

// After a compaction moved the entries, the next turn's end looks at all of them again.
func TestDropUnansweredAfterCompactLooksAtEverything(t *testing.T) {
	c := Conversation{}
	for _, e := range []Entry{userEntry("a"), userEntry("b"), callsEntry("c1"), resultEntry("c1"), userEntry("c"), callsEntry("c2", "c3"), resultEntry("c2")} {
		c.add(e)
	}
	c.settled = len(c.entries) // as if a turn had ended here, wrongly: Compact must forget it
	c.Compact()
	c.dropUnanswered()
	for _, e := range c.entries {
		for _, b := range e.Blocks {
			assert.NotEqual(t, "c3", b.CallID, "c3 has no result and must go")
		}
	}
}

// Within one turn, too: a later step's call is answered only by the results that follow its own
// answer, not by an earlier step's result with the same id (ids are unique per step only). The
// simulator's call-id-reuse fault found this: step 1 answered c1, step 2's c1 was never answered
// (its tool/call refused), and the next turn's request carried it without a result.
func TestDropUnansweredLooksAtEachStepsOwnResults(t *testing.T) {
	c := Conversation{}
	for _, e := range []Entry{userEntry("a"), callsEntry("c1"), resultEntry("c1"), callsEntry("c1", "c2"), resultEntry("c2")} {
		c.add(e)
	}
	c.dropUnanswered() // the turn ends: step 2's c1 has no result of its own
	assert.Equal(t, []Entry{userEntry("a"), callsEntry("c1"), resultEntry("c1"), callsEntry("c2"), resultEntry("c2")}, c.entries)
}

// Looking at the whole conversation (after a restart rebuilt it from the log, or a compaction
// moved it), each answer's calls are still judged by the results that follow that answer: a
// later result with the same id answers another step's call.
func TestDropUnansweredOverTheWholeConversationPairsByStep(t *testing.T) {
	c := Conversation{entries: []Entry{userEntry("a"), callsEntry("c1", "c2"), resultEntry("c2"), userEntry("b"), callsEntry("c1"), resultEntry("c1")}}
	c.dropUnanswered() // settled 0: as resume and a compaction leave it
	assert.Equal(t, []Entry{userEntry("a"), callsEntry("c2"), resultEntry("c2"), userEntry("b"), callsEntry("c1"), resultEntry("c1")}, c.entries)
}

// A request's messages are shared, not copied: what the turn loop does to its conversation after
// an attempt (an entry appended, an unanswered call dropped, a compaction) never shows in a
// request already sent, and the conversation goes on as it would have with a copy.
func TestARequestsMessagesNeverChangeAfterItIsSent(t *testing.T) {
	c := Conversation{}
	for _, e := range []Entry{userEntry("a"), callsEntry("c1", "c2"), resultEntry("c1")} {
		c.add(e)
	}
	sent := c.snapshot()
	want := []Entry{userEntry("a"), callsEntry("c1", "c2"), resultEntry("c1")}
	assert.Equal(t, want, sent)

	c.add(userEntry("b"))        // past the request's end
	sent = append(sent, Entry{}) // a provider appending to its request: clipped, so it copies
	sent = sent[:3]
	c.dropUnanswered() // c2 has no result: the entry changes, in a copy
	assert.Equal(t, want, sent, "the request sent before")
	assert.Equal(t, []Entry{userEntry("a"), callsEntry("c1"), resultEntry("c1"), userEntry("b")}, c.entries)

	again := c.snapshot()
	c.Compact()
	assert.Equal(t, []Entry{userEntry("a"), callsEntry("c1"), resultEntry("c1"), userEntry("b")}, again, "the request sent before compaction")
	c.add(userEntry("c"))
	assert.Equal(t, []Entry{userEntry("a"), callsEntry("c1"), resultEntry("c1"), userEntry("b")}, again, "the request sent before an entry was added")
}
