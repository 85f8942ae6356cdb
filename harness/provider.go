package harness

import (
	"context"
	"slices"
)

// Provider streams model answers. Its Name keys retry chains: a changed provider starts a new
// chain. Failures are reported as *LlmError carrying a Failure; any other error is UNKNOWN.
type Provider interface {
	Name() string
	// Stream sends one request. The stream's chunks arrive through Next.
	Stream(ctx context.Context, request Request) (Stream, error)
}

// Stream is one answer in flight. Next returns io.EOF after the last chunk. Both Stream and Next
// should return promptly once ctx is done; the turn loop checks ctx around every call anyway.
type Stream interface {
	Next(ctx context.Context) (Chunk, error)
}

// Role of a conversation entry.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Entry is one item of the conversation sent with each request.
type Entry struct {
	Role    string
	Text    string
	CallID  string  // RoleTool: the call this result answers
	IsError bool    // RoleTool: the result is an error
	Blocks  []Block // RoleAssistant: the assembled blocks
}

// Request is what one attempt sends: which turn, step and attempt it belongs to, the
// conversation so far and the names of the registered tools. Messages and Tools are shared, not
// copied: a provider reads them and must not change them. The turn loop never changes what it
// shared either (it appends past the end, and copies before it changes an entry), so a provider
// may keep them as they are.
type Request struct {
	Turn     int
	Step     int
	Attempt  int
	Messages []Entry
	Tools    []string
}

// Conversation is the history the turn loop sends with each request. Request-error handlers may
// change it before a retry (compaction shrinks it). Only the turn loop's task touches it.
type Conversation struct {
	entries []Entry
	// settled is how many entries dropUnanswered has been through: every call among them has its
	// result (or was dropped), and the results of calls made later come after them.
	settled int
	// shared says a request holds the entries' array (snapshot): an entry is not changed in
	// place until the conversation has an array of its own again.
	shared bool
}

// Len returns the number of entries.
func (c *Conversation) Len() int { return len(c.entries) }

// Compact drops the older half of the history, and with it every tool result whose call it
// dropped (a result without its call is a malformed request), and returns how many entries it
// dropped. It is the crude shrink the example compaction handler uses.
func (c *Conversation) Compact() int {
	before := len(c.entries)
	kept := c.entries[before/2:]
	asked := map[string]bool{}
	var entries []Entry
	for _, e := range kept {
		for _, b := range e.Blocks {
			if b.Type == BlockToolCall {
				asked[b.CallID] = true
			}
		}
		if e.Role == RoleTool && !asked[e.CallID] {
			continue
		}
		entries = append(entries, e)
	}
	c.entries, c.shared = entries, false
	c.settled = 0 // the kept entries moved: look at them all again
	return before - len(entries)
}

// dropUnanswered removes the tool calls that never got a result (the executor failed before
// committing it, say) from the assistant entries that asked for them, so that no later request
// carries a call without its result. The session log keeps them as they were. Only the entries
// since the last call are looked at: every call before them is settled. An answer's calls are
// answered by the tool entries that follow it, up to the next answer: ids are unique per step
// only, so a result elsewhere with the same id answers another step's call.
func (c *Conversation) dropUnanswered() {
	from := min(c.settled, len(c.entries))
	for i := from; i < len(c.entries); i++ {
		if c.entries[i].Role != RoleAssistant {
			continue
		}
		end := i + 1
		for end < len(c.entries) && c.entries[end].Role != RoleAssistant {
			end++
		}
		results := c.entries[i+1 : end]
		answered := func(id string) bool {
			return slices.ContainsFunc(results, func(r Entry) bool { return r.Role == RoleTool && r.CallID == id })
		}
		blocks := c.entries[i].Blocks
		if !slices.ContainsFunc(blocks, func(b Block) bool { return b.Type == BlockToolCall && !answered(b.CallID) }) {
			continue // every call answered: the entry stays as it is, nothing copied
		}
		var kept []Block
		for _, b := range blocks {
			if b.Type != BlockToolCall || answered(b.CallID) {
				kept = append(kept, b)
			}
		}
		if c.shared {
			c.entries, c.shared = slices.Clone(c.entries), false
		}
		c.entries[i].Blocks = kept
	}
	c.settled = len(c.entries)
}

// add appends one entry.
func (c *Conversation) add(e Entry) { c.entries = append(c.entries, e) }

// snapshot is the conversation as a request carries it: the entries themselves, clipped so that
// an append goes past the request's end, and shared, so that an entry changes only in a copy: a
// provider may keep what it was sent without the turn loop copying the conversation for it.
func (c *Conversation) snapshot() []Entry {
	c.shared = true
	return slices.Clip(c.entries)
}
