package eventjson

import "github.com/turnsim/turnsim/harness"

// The readers of the payload types and the objects nested in them: one member loop each,
// reading any key order and spacing, a key left out leaving its field's zero value, as
// encoding/json does.

// The keys of each object, in the order the encoder writes them.
var (
	userMessageKeys      = newKeys("message")
	turnStartKeys        = newKeys("turn")
	assembledMessageKeys = newKeys("blocks")
	messageKeys          = newKeys("id", "text")
	inboxPushKeys        = newKeys("lane", "kind", "messageId")
	inboxClaimKeys       = newKeys("turn", "step", "lane", "messageId")
	inboxClearKeys       = newKeys("lane", "messageId")
	turnEndKeys          = newKeys("turn", "reason")
	turnEndReasonKeys    = newKeys("kind", "reason", "error")
	cancelCauseKeys      = newKeys("kind", "reason")
	turnStepKeys         = newKeys("turn", "step")
	assistantChunkKeys   = newKeys("turn", "step", "chunk")
	chunkKeys            = newKeys("kind", "text", "callId", "name", "arguments", "finish")
	assistantMessageKeys = newKeys("turn", "step", "message", "finish")
	blockKeys            = newKeys("type", "text", "callId", "name", "arguments")
	toolCallKeys         = newKeys("turn", "step", "callId", "name", "arguments")
	toolResultKeys       = newKeys("turn", "step", "callId", "isError", "content", "error")
	toolErrorKeys        = newKeys("name", "code", "message")
	llmRetryKeys         = newKeys("retryId", "turn", "step", "provider", "mode", "policyKey", "retry", "maxRetries", "delayMs", "failure")
	failureKeys          = newKeys("code", "message", "status", "providerRetryAfterMs", "requestId")
	llmRetryStartedKeys  = newKeys("retryId", "turn", "step", "retry")
)

// data reads the payload of an event of the given type into out, as a value: the form the harness
// appends.
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
		if !p.turnStep(&d.Turn, &d.Step) {
			return false
		}
		*out = d
	case harness.TypeStepEnd:
		var d harness.StepEnd
		if !p.turnStep(&d.Turn, &d.Step) {
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
	return p.object(&userMessageKeys, func(key string) bool {
		return key == "message" && p.message(&d.Message)
	})
}

func (p *parser) message(m *harness.Message) bool {
	return p.object(&messageKeys, func(key string) bool {
		switch key {
		case "id":
			return p.string(&m.ID)
		case "text":
			return p.string(&m.Text)
		}
		return false
	})
}

func (p *parser) inboxPush(d *harness.InboxPush) bool {
	return p.object(&inboxPushKeys, func(key string) bool {
		switch key {
		case "lane":
			return p.string((*string)(&d.Lane))
		case "kind":
			return p.string((*string)(&d.Kind))
		case "messageId":
			return p.string(&d.MessageID)
		}
		return false
	})
}

func (p *parser) inboxClaim(d *harness.InboxClaim) bool {
	return p.object(&inboxClaimKeys, func(key string) bool {
		switch key {
		case "turn":
			return p.int(&d.Turn)
		case "step":
			return p.int(&d.Step)
		case "lane":
			return p.string((*string)(&d.Lane))
		case "messageId":
			return p.string(&d.MessageID)
		}
		return false
	})
}

func (p *parser) inboxClear(d *harness.InboxClear) bool {
	return p.object(&inboxClearKeys, func(key string) bool {
		switch key {
		case "lane":
			return p.string((*string)(&d.Lane))
		case "messageId":
			return p.string(&d.MessageID)
		}
		return false
	})
}

func (p *parser) turnStart(d *harness.TurnStart) bool {
	return p.object(&turnStartKeys, func(key string) bool {
		return key == "turn" && p.int(&d.Turn)
	})
}

func (p *parser) turnEnd(d *harness.TurnEnd) bool {
	return p.object(&turnEndKeys, func(key string) bool {
		switch key {
		case "turn":
			return p.int(&d.Turn)
		case "reason":
			return p.turnEndReason(&d.Reason)
		}
		return false
	})
}

func (p *parser) turnEndReason(r *harness.TurnEndReason) bool {
	return p.object(&turnEndReasonKeys, func(key string) bool {
		switch key {
		case "kind":
			return p.string(&r.Kind)
		case "reason":
			r.Reason = new(harness.CancelCause)
			return p.cancelCause(r.Reason)
		case "error":
			r.Error = new(harness.Failure)
			return p.failure(r.Error)
		}
		return false
	})
}

func (p *parser) cancelCause(c *harness.CancelCause) bool {
	return p.object(&cancelCauseKeys, func(key string) bool {
		switch key {
		case "kind":
			return p.string(&c.Kind)
		case "reason":
			return p.string(&c.Reason)
		}
		return false
	})
}

// turnStep reads the payload of step/start and step/end, alike but for their types.
func (p *parser) turnStep(turn, step *int) bool {
	return p.object(&turnStepKeys, func(key string) bool {
		switch key {
		case "turn":
			return p.int(turn)
		case "step":
			return p.int(step)
		}
		return false
	})
}

func (p *parser) assistantChunk(d *harness.AssistantChunk) bool {
	return p.object(&assistantChunkKeys, func(key string) bool {
		switch key {
		case "turn":
			return p.int(&d.Turn)
		case "step":
			return p.int(&d.Step)
		case "chunk":
			return p.chunk(&d.Chunk)
		}
		return false
	})
}

func (p *parser) chunk(c *harness.Chunk) bool {
	return p.object(&chunkKeys, func(key string) bool {
		switch key {
		case "kind":
			return p.string(&c.Kind)
		case "text":
			return p.string(&c.Text)
		case "callId":
			return p.string(&c.CallID)
		case "name":
			return p.string(&c.Name)
		case "arguments":
			return p.string(&c.Arguments)
		case "finish":
			return p.string((*string)(&c.Finish))
		}
		return false
	})
}

func (p *parser) assistantMessage(d *harness.AssistantMessage) bool {
	return p.object(&assistantMessageKeys, func(key string) bool {
		switch key {
		case "turn":
			return p.int(&d.Turn)
		case "step":
			return p.int(&d.Step)
		case "message":
			return p.object(&assembledMessageKeys, func(key string) bool {
				return key == "blocks" && p.blocks(&d.Message.Blocks)
			})
		case "finish":
			return p.string((*string)(&d.Finish))
		}
		return false
	})
}

// blocks reads an array of blocks: [] gives an empty slice and null a nil one, as encoding/json
// reads them (the harness writes both).
func (p *parser) blocks(out *[]harness.Block) bool {
	p.space()
	if p.i+4 <= len(p.s) && p.s[p.i:p.i+4] == "null" {
		p.i += 4
		*out = nil
		return true
	}
	if !p.next('[') {
		return false
	}
	blocks := []harness.Block{}
	if p.next(']') {
		*out = blocks
		return true
	}
	for {
		var b harness.Block
		if !p.block(&b) {
			return false
		}
		blocks = append(blocks, b)
		if p.next(']') {
			*out = blocks
			return true
		}
		if !p.next(',') {
			return false
		}
	}
}

func (p *parser) block(b *harness.Block) bool {
	return p.object(&blockKeys, func(key string) bool {
		switch key {
		case "type":
			return p.string(&b.Type)
		case "text":
			return p.string(&b.Text)
		case "callId":
			return p.string(&b.CallID)
		case "name":
			return p.string(&b.Name)
		case "arguments":
			return p.string(&b.Arguments)
		}
		return false
	})
}

func (p *parser) toolCall(d *harness.ToolCall) bool {
	return p.object(&toolCallKeys, func(key string) bool {
		switch key {
		case "turn":
			return p.int(&d.Turn)
		case "step":
			return p.int(&d.Step)
		case "callId":
			return p.string(&d.CallID)
		case "name":
			return p.string(&d.Name)
		case "arguments":
			return p.string(&d.Arguments)
		}
		return false
	})
}

func (p *parser) toolResult(d *harness.ToolResult) bool {
	return p.object(&toolResultKeys, func(key string) bool {
		switch key {
		case "turn":
			return p.int(&d.Turn)
		case "step":
			return p.int(&d.Step)
		case "callId":
			return p.string(&d.CallID)
		case "isError":
			return p.bool(&d.IsError)
		case "content":
			return p.string(&d.Content)
		case "error":
			d.Error = new(harness.ToolError)
			return p.toolError(d.Error)
		}
		return false
	})
}

func (p *parser) toolError(e *harness.ToolError) bool {
	return p.object(&toolErrorKeys, func(key string) bool {
		switch key {
		case "name":
			return p.string(&e.Name)
		case "code":
			return p.string(&e.Code)
		case "message":
			return p.string(&e.Message)
		}
		return false
	})
}

func (p *parser) llmRetry(d *harness.LlmRetry) bool {
	return p.object(&llmRetryKeys, func(key string) bool {
		switch key {
		case "retryId":
			return p.string(&d.RetryID)
		case "turn":
			return p.int(&d.Turn)
		case "step":
			return p.int(&d.Step)
		case "provider":
			return p.string(&d.Provider)
		case "mode":
			return p.string((*string)(&d.Mode))
		case "policyKey":
			return p.string(&d.PolicyKey)
		case "retry":
			return p.int(&d.Retry)
		case "maxRetries":
			d.MaxRetries = new(int)
			return p.int(d.MaxRetries)
		case "delayMs":
			return p.float(&d.DelayMs)
		case "failure":
			return p.failure(&d.Failure)
		}
		return false
	})
}

func (p *parser) failure(f *harness.Failure) bool {
	return p.object(&failureKeys, func(key string) bool {
		switch key {
		case "code":
			return p.string(&f.Code)
		case "message":
			return p.string(&f.Message)
		case "status":
			return p.int(&f.Status)
		case "providerRetryAfterMs":
			return p.float(&f.ProviderRetryAfterMs)
		case "requestId":
			return p.string(&f.RequestID)
		}
		return false
	})
}

func (p *parser) llmRetryStarted(d *harness.LlmRetryStarted) bool {
	return p.object(&llmRetryStartedKeys, func(key string) bool {
		switch key {
		case "retryId":
			return p.string(&d.RetryID)
		case "turn":
			return p.int(&d.Turn)
		case "step":
			return p.int(&d.Step)
		case "retry":
			return p.int(&d.Retry)
		}
		return false
	})
}
