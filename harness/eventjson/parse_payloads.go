package eventjson

import "github.com/turnsim/turnsim/harness"

// The readers of the payload types and the objects nested in them, each the mirror of its writer
// in encode.go: the same literals, the same values, the same optional members.

// data reads the payload of an event of the given type into out, as a value: the form the harness
// appends. A type the harness does not define is encoding/json's to refuse.
func (p *parser) data(eventType string, out *harness.EventData) bool {
	switch eventType {
	case harness.TypeUserMessage:
		var d harness.UserMessage
		if !p.userMessage(&d) {
			return false
		}
		*out = d
	case harness.TypeInboxPush:
		var d harness.InboxPush
		if !p.inboxPush(&d) {
			return false
		}
		*out = d
	case harness.TypeInboxClaim:
		var d harness.InboxClaim
		if !p.inboxClaim(&d) {
			return false
		}
		*out = d
	case harness.TypeInboxClear:
		var d harness.InboxClear
		if !p.inboxClear(&d) {
			return false
		}
		*out = d
	case harness.TypeTurnStart:
		var d harness.TurnStart
		if !p.turnStart(&d) {
			return false
		}
		*out = d
	case harness.TypeTurnEnd:
		var d harness.TurnEnd
		if !p.turnEnd(&d) {
			return false
		}
		*out = d
	case harness.TypeStepStart:
		var d harness.StepStart
		if !p.turnStep(&d.Turn, &d.Step) || !p.literal(`}`) {
			return false
		}
		*out = d
	case harness.TypeStepEnd:
		var d harness.StepEnd
		if !p.turnStep(&d.Turn, &d.Step) || !p.literal(`}`) {
			return false
		}
		*out = d
	case harness.TypeAssistantChunk:
		var d harness.AssistantChunk
		if !p.assistantChunk(&d) {
			return false
		}
		*out = d
	case harness.TypeAssistantMessage:
		var d harness.AssistantMessage
		if !p.assistantMessage(&d) {
			return false
		}
		*out = d
	case harness.TypeToolCall:
		var d harness.ToolCall
		if !p.toolCall(&d) {
			return false
		}
		*out = d
	case harness.TypeToolResult:
		var d harness.ToolResult
		if !p.toolResult(&d) {
			return false
		}
		*out = d
	case harness.TypeLlmRetry:
		var d harness.LlmRetry
		if !p.llmRetry(&d) {
			return false
		}
		*out = d
	case harness.TypeLlmRetryStarted:
		var d harness.LlmRetryStarted
		if !p.llmRetryStarted(&d) {
			return false
		}
		*out = d
	default:
		return false
	}
	return true
}

func (p *parser) userMessage(d *harness.UserMessage) bool {
	return p.literal(`{"message":{"id":`) && p.string(&d.Message.ID) &&
		p.literal(`,"text":`) && p.string(&d.Message.Text) &&
		p.literal(`}}`)
}

func (p *parser) inboxPush(d *harness.InboxPush) bool {
	return p.literal(`{"lane":`) && p.string((*string)(&d.Lane)) &&
		p.literal(`,"kind":`) && p.string((*string)(&d.Kind)) &&
		p.literal(`,"messageId":`) && p.string(&d.MessageID) &&
		p.literal(`}`)
}

func (p *parser) inboxClaim(d *harness.InboxClaim) bool {
	return p.turnStep(&d.Turn, &d.Step) &&
		p.literal(`,"lane":`) && p.string((*string)(&d.Lane)) &&
		p.literal(`,"messageId":`) && p.string(&d.MessageID) &&
		p.literal(`}`)
}

func (p *parser) inboxClear(d *harness.InboxClear) bool {
	return p.literal(`{"lane":`) && p.string((*string)(&d.Lane)) &&
		p.literal(`,"messageId":`) && p.string(&d.MessageID) &&
		p.literal(`}`)
}

func (p *parser) turnStart(d *harness.TurnStart) bool {
	return p.literal(`{"turn":`) && p.int(&d.Turn) && p.literal(`}`)
}

func (p *parser) turnEnd(d *harness.TurnEnd) bool {
	return p.literal(`{"turn":`) && p.int(&d.Turn) &&
		p.literal(`,"reason":`) && p.turnEndReason(&d.Reason) &&
		p.literal(`}`)
}

func (p *parser) turnEndReason(r *harness.TurnEndReason) bool {
	if !p.literal(`{"kind":`) || !p.string(&r.Kind) {
		return false
	}
	if p.literal(`,"reason":`) {
		r.Reason = new(harness.CancelCause)
		if !p.cancelCause(r.Reason) {
			return false
		}
	}
	if p.literal(`,"error":`) {
		r.Error = new(harness.Failure)
		if !p.failure(r.Error) {
			return false
		}
	}
	return p.literal(`}`)
}

func (p *parser) cancelCause(c *harness.CancelCause) bool {
	return p.literal(`{"kind":`) && p.string(&c.Kind) &&
		p.optionalString(`,"reason":`, &c.Reason) &&
		p.literal(`}`)
}

// turnStep reads the turn and step members that open the payloads of several types, and leaves
// the object open after them.
func (p *parser) turnStep(turn, step *int) bool {
	return p.literal(`{"turn":`) && p.int(turn) && p.literal(`,"step":`) && p.int(step)
}

func (p *parser) assistantChunk(d *harness.AssistantChunk) bool {
	return p.turnStep(&d.Turn, &d.Step) &&
		p.literal(`,"chunk":`) && p.chunk(&d.Chunk) &&
		p.literal(`}`)
}

func (p *parser) chunk(c *harness.Chunk) bool {
	return p.literal(`{"kind":`) && p.string(&c.Kind) &&
		p.optionalString(`,"text":`, &c.Text) &&
		p.optionalString(`,"callId":`, &c.CallID) &&
		p.optionalString(`,"name":`, &c.Name) &&
		p.optionalString(`,"arguments":`, &c.Arguments) &&
		p.optionalString(`,"finish":`, (*string)(&c.Finish)) &&
		p.literal(`}`)
}

func (p *parser) assistantMessage(d *harness.AssistantMessage) bool {
	return p.turnStep(&d.Turn, &d.Step) &&
		p.literal(`,"message":{"blocks":`) && p.blocks(&d.Message.Blocks) &&
		p.literal(`},"finish":`) && p.string((*string)(&d.Finish)) &&
		p.literal(`}`)
}

// blocks reads an array of blocks: [] gives an empty slice and null a nil one, as encoding/json
// reads them (the harness writes both).
func (p *parser) blocks(out *[]harness.Block) bool {
	if p.literal("null") {
		*out = nil
		return true
	}
	if !p.literal("[") {
		return false
	}
	blocks := []harness.Block{}
	if p.literal("]") {
		*out = blocks
		return true
	}
	for {
		var b harness.Block
		if !p.block(&b) {
			return false
		}
		blocks = append(blocks, b)
		if p.literal("]") {
			*out = blocks
			return true
		}
		if !p.literal(",") {
			return false
		}
	}
}

func (p *parser) block(b *harness.Block) bool {
	return p.literal(`{"type":`) && p.string(&b.Type) &&
		p.optionalString(`,"text":`, &b.Text) &&
		p.optionalString(`,"callId":`, &b.CallID) &&
		p.optionalString(`,"name":`, &b.Name) &&
		p.optionalString(`,"arguments":`, &b.Arguments) &&
		p.literal(`}`)
}

func (p *parser) toolCall(d *harness.ToolCall) bool {
	return p.turnStep(&d.Turn, &d.Step) &&
		p.literal(`,"callId":`) && p.string(&d.CallID) &&
		p.literal(`,"name":`) && p.string(&d.Name) &&
		p.literal(`,"arguments":`) && p.string(&d.Arguments) &&
		p.literal(`}`)
}

func (p *parser) toolResult(d *harness.ToolResult) bool {
	if !p.turnStep(&d.Turn, &d.Step) ||
		!p.literal(`,"callId":`) || !p.string(&d.CallID) ||
		!p.literal(`,"isError":`) || !p.bool(&d.IsError) ||
		!p.literal(`,"content":`) || !p.string(&d.Content) {
		return false
	}
	if p.literal(`,"error":`) {
		d.Error = new(harness.ToolError)
		if !p.toolError(d.Error) {
			return false
		}
	}
	return p.literal(`}`)
}

func (p *parser) toolError(e *harness.ToolError) bool {
	return p.literal(`{"name":`) && p.string(&e.Name) &&
		p.literal(`,"code":`) && p.string(&e.Code) &&
		p.literal(`,"message":`) && p.string(&e.Message) &&
		p.literal(`}`)
}

func (p *parser) llmRetry(d *harness.LlmRetry) bool {
	if !p.literal(`{"retryId":`) || !p.string(&d.RetryID) ||
		!p.literal(`,"turn":`) || !p.int(&d.Turn) ||
		!p.literal(`,"step":`) || !p.int(&d.Step) ||
		!p.literal(`,"provider":`) || !p.string(&d.Provider) ||
		!p.literal(`,"mode":`) || !p.string((*string)(&d.Mode)) ||
		!p.literal(`,"policyKey":`) || !p.string(&d.PolicyKey) ||
		!p.literal(`,"retry":`) || !p.int(&d.Retry) {
		return false
	}
	if p.literal(`,"maxRetries":`) {
		d.MaxRetries = new(int)
		if !p.int(d.MaxRetries) {
			return false
		}
	}
	return p.literal(`,"delayMs":`) && p.float(&d.DelayMs) &&
		p.literal(`,"failure":`) && p.failure(&d.Failure) &&
		p.literal(`}`)
}

func (p *parser) failure(f *harness.Failure) bool {
	if !p.literal(`{"code":`) || !p.string(&f.Code) ||
		!p.literal(`,"message":`) || !p.string(&f.Message) {
		return false
	}
	if p.literal(`,"status":`) && !p.int(&f.Status) {
		return false
	}
	if p.literal(`,"providerRetryAfterMs":`) && !p.float(&f.ProviderRetryAfterMs) {
		return false
	}
	return p.optionalString(`,"requestId":`, &f.RequestID) && p.literal(`}`)
}

func (p *parser) llmRetryStarted(d *harness.LlmRetryStarted) bool {
	return p.literal(`{"retryId":`) && p.string(&d.RetryID) &&
		p.literal(`,"turn":`) && p.int(&d.Turn) &&
		p.literal(`,"step":`) && p.int(&d.Step) &&
		p.literal(`,"retry":`) && p.int(&d.Retry) &&
		p.literal(`}`)
}

// optionalString reads an omitempty string member, key and value, if the object goes on with
// key; it reports false only for a value that does not read.
func (p *parser) optionalString(key string, out *string) bool {
	return !p.literal(key) || p.string(out)
}
