package eventjson

import "github.com/turnsim/turnsim/harness"

// The readers of the payload types and the objects nested in them: one member loop each,
// reading any key order and spacing, a key left out leaving its field's zero value, as
// encoding/json does.

// The keys of each object, in the order the encoder writes them.
var (
	userMessageKeys      = newKeys(keyMessage)
	turnStartKeys        = newKeys(keyTurn)
	assembledMessageKeys = newKeys(keyBlocks)
	messageKeys          = newKeys(keyId, keyText)
	inboxPushKeys        = newKeys(keyLane, keyKind, keyMessageID)
	inboxClaimKeys       = newKeys(keyTurn, keyStep, keyLane, keyMessageID)
	inboxClearKeys       = newKeys(keyLane, keyMessageID)
	turnEndKeys          = newKeys(keyTurn, keyReason)
	turnEndReasonKeys    = newKeys(keyKind, keyReason, keyError)
	cancelCauseKeys      = newKeys(keyKind, keyReason)
	turnStepKeys         = newKeys(keyTurn, keyStep)
	assistantChunkKeys   = newKeys(keyTurn, keyStep, keyChunk)
	chunkKeys            = newKeys(keyKind, keyText, keyCallID, keyName, keyArguments, keyFinish)
	assistantMessageKeys = newKeys(keyTurn, keyStep, keyMessage, keyFinish)
	blockKeys            = newKeys(keyType, keyText, keyCallID, keyName, keyArguments)
	toolCallKeys         = newKeys(keyTurn, keyStep, keyCallID, keyName, keyArguments)
	toolResultKeys       = newKeys(keyTurn, keyStep, keyCallID, keyIsError, keyContent, keyError)
	toolErrorKeys        = newKeys(keyName, keyCode, keyMessage)
	llmRetryKeys         = newKeys(keyRetryID, keyTurn, keyStep, keyProvider, keyMode, keyPolicyKey, keyRetry, keyMaxRetries, keyDelayMs, keyFailure)
	failureKeys          = newKeys(keyCode, keyMessage, keyStatus, keyProviderRetryAfterMs, keyRequestID)
	llmRetryStartedKeys  = newKeys(keyRetryID, keyTurn, keyStep, keyRetry)
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
	return p.object(&userMessageKeys, func(k key) bool {
		return k == keyMessage && p.message(&d.Message)
	})
}

func (p *parser) message(m *harness.Message) bool {
	return p.object(&messageKeys, func(k key) bool {
		switch k {
		case keyId:
			return p.string(&m.ID)
		case keyText:
			return p.string(&m.Text)
		}
		return false
	})
}

func (p *parser) inboxPush(d *harness.InboxPush) bool {
	return p.object(&inboxPushKeys, func(k key) bool {
		switch k {
		case keyLane:
			return p.string((*string)(&d.Lane))
		case keyKind:
			return p.string((*string)(&d.Kind))
		case keyMessageID:
			return p.string(&d.MessageID)
		}
		return false
	})
}

func (p *parser) inboxClaim(d *harness.InboxClaim) bool {
	return p.object(&inboxClaimKeys, func(k key) bool {
		switch k {
		case keyTurn:
			return p.int(&d.Turn)
		case keyStep:
			return p.int(&d.Step)
		case keyLane:
			return p.string((*string)(&d.Lane))
		case keyMessageID:
			return p.string(&d.MessageID)
		}
		return false
	})
}

func (p *parser) inboxClear(d *harness.InboxClear) bool {
	return p.object(&inboxClearKeys, func(k key) bool {
		switch k {
		case keyLane:
			return p.string((*string)(&d.Lane))
		case keyMessageID:
			return p.string(&d.MessageID)
		}
		return false
	})
}

func (p *parser) turnStart(d *harness.TurnStart) bool {
	return p.object(&turnStartKeys, func(k key) bool {
		return k == keyTurn && p.int(&d.Turn)
	})
}

func (p *parser) turnEnd(d *harness.TurnEnd) bool {
	return p.object(&turnEndKeys, func(k key) bool {
		switch k {
		case keyTurn:
			return p.int(&d.Turn)
		case keyReason:
			return p.turnEndReason(&d.Reason)
		}
		return false
	})
}

func (p *parser) turnEndReason(r *harness.TurnEndReason) bool {
	return p.object(&turnEndReasonKeys, func(k key) bool {
		switch k {
		case keyKind:
			return p.string(&r.Kind)
		case keyReason:
			r.Reason = new(harness.CancelCause)
			return p.cancelCause(r.Reason)
		case keyError:
			r.Error = new(harness.Failure)
			return p.failure(r.Error)
		}
		return false
	})
}

func (p *parser) cancelCause(c *harness.CancelCause) bool {
	return p.object(&cancelCauseKeys, func(k key) bool {
		switch k {
		case keyKind:
			return p.string(&c.Kind)
		case keyReason:
			return p.string(&c.Reason)
		}
		return false
	})
}

// turnStep reads the payload of step/start and step/end, alike but for their types.
func (p *parser) turnStep(turn, step *int) bool {
	return p.object(&turnStepKeys, func(k key) bool {
		switch k {
		case keyTurn:
			return p.int(turn)
		case keyStep:
			return p.int(step)
		}
		return false
	})
}

func (p *parser) assistantChunk(d *harness.AssistantChunk) bool {
	return p.object(&assistantChunkKeys, func(k key) bool {
		switch k {
		case keyTurn:
			return p.int(&d.Turn)
		case keyStep:
			return p.int(&d.Step)
		case keyChunk:
			return p.chunk(&d.Chunk)
		}
		return false
	})
}

func (p *parser) chunk(c *harness.Chunk) bool {
	return p.object(&chunkKeys, func(k key) bool {
		switch k {
		case keyKind:
			return p.string(&c.Kind)
		case keyText:
			return p.string(&c.Text)
		case keyCallID:
			return p.string(&c.CallID)
		case keyName:
			return p.string(&c.Name)
		case keyArguments:
			return p.string(&c.Arguments)
		case keyFinish:
			return p.string((*string)(&c.Finish))
		}
		return false
	})
}

func (p *parser) assistantMessage(d *harness.AssistantMessage) bool {
	return p.object(&assistantMessageKeys, func(k key) bool {
		switch k {
		case keyTurn:
			return p.int(&d.Turn)
		case keyStep:
			return p.int(&d.Step)
		case keyMessage:
			return p.object(&assembledMessageKeys, func(k key) bool {
				return k == keyBlocks && p.blocks(&d.Message.Blocks)
			})
		case keyFinish:
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
	return p.object(&blockKeys, func(k key) bool {
		switch k {
		case keyType:
			return p.string(&b.Type)
		case keyText:
			return p.string(&b.Text)
		case keyCallID:
			return p.string(&b.CallID)
		case keyName:
			return p.string(&b.Name)
		case keyArguments:
			return p.string(&b.Arguments)
		}
		return false
	})
}

func (p *parser) toolCall(d *harness.ToolCall) bool {
	return p.object(&toolCallKeys, func(k key) bool {
		switch k {
		case keyTurn:
			return p.int(&d.Turn)
		case keyStep:
			return p.int(&d.Step)
		case keyCallID:
			return p.string(&d.CallID)
		case keyName:
			return p.string(&d.Name)
		case keyArguments:
			return p.string(&d.Arguments)
		}
		return false
	})
}

func (p *parser) toolResult(d *harness.ToolResult) bool {
	return p.object(&toolResultKeys, func(k key) bool {
		switch k {
		case keyTurn:
			return p.int(&d.Turn)
		case keyStep:
			return p.int(&d.Step)
		case keyCallID:
			return p.string(&d.CallID)
		case keyIsError:
			return p.bool(&d.IsError)
		case keyContent:
			return p.string(&d.Content)
		case keyError:
			d.Error = new(harness.ToolError)
			return p.toolError(d.Error)
		}
		return false
	})
}

func (p *parser) toolError(e *harness.ToolError) bool {
	return p.object(&toolErrorKeys, func(k key) bool {
		switch k {
		case keyName:
			return p.string(&e.Name)
		case keyCode:
			return p.string(&e.Code)
		case keyMessage:
			return p.string(&e.Message)
		}
		return false
	})
}

func (p *parser) llmRetry(d *harness.LlmRetry) bool {
	return p.object(&llmRetryKeys, func(k key) bool {
		switch k {
		case keyRetryID:
			return p.string(&d.RetryID)
		case keyTurn:
			return p.int(&d.Turn)
		case keyStep:
			return p.int(&d.Step)
		case keyProvider:
			return p.string(&d.Provider)
		case keyMode:
			return p.string((*string)(&d.Mode))
		case keyPolicyKey:
			return p.string(&d.PolicyKey)
		case keyRetry:
			return p.int(&d.Retry)
		case keyMaxRetries:
			d.MaxRetries = new(int)
			return p.int(d.MaxRetries)
		case keyDelayMs:
			return p.float(&d.DelayMs)
		case keyFailure:
			return p.failure(&d.Failure)
		}
		return false
	})
}

func (p *parser) failure(f *harness.Failure) bool {
	return p.object(&failureKeys, func(k key) bool {
		switch k {
		case keyCode:
			return p.string(&f.Code)
		case keyMessage:
			return p.string(&f.Message)
		case keyStatus:
			return p.int(&f.Status)
		case keyProviderRetryAfterMs:
			return p.float(&f.ProviderRetryAfterMs)
		case keyRequestID:
			return p.string(&f.RequestID)
		}
		return false
	})
}

func (p *parser) llmRetryStarted(d *harness.LlmRetryStarted) bool {
	return p.object(&llmRetryStartedKeys, func(k key) bool {
		switch k {
		case keyRetryID:
			return p.string(&d.RetryID)
		case keyTurn:
			return p.int(&d.Turn)
		case keyStep:
			return p.int(&d.Step)
		case keyRetry:
			return p.int(&d.Retry)
		}
		return false
	})
}
