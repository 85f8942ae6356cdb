package harness

import "context"

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
// conversation so far and the names of the registered tools.
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
}

// Len returns the number of entries.
func (c *Conversation) Len() int { return len(c.entries) }

// Compact drops the older half of the history, keeping at least the newest entry, and returns how
// many entries it dropped. It is the crude shrink the example compaction handler uses.
func (c *Conversation) Compact() int {
	drop := len(c.entries) / 2
	c.entries = append([]Entry(nil), c.entries[drop:]...)
	return drop
}

func (c *Conversation) add(e Entry) { c.entries = append(c.entries, e) }

func (c *Conversation) snapshot() []Entry { return append([]Entry(nil), c.entries...) }
