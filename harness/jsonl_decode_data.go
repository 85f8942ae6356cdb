package harness

// The payload readers: one a payload type (and one a nested object), each a loop over the
// object's members that switches on the member's key. A key the type does not have, like a
// repeated or unknown one, ends the fast path; a key left out leaves its field's zero value, as
// encoding/json does.

// data decodes the payload of an event of the given type.
func (p *eventParser) data(eventType string) (EventData, bool) {
	switch eventType {
	case TypeUserMessage:
		var d UserMessage
		ok := p.userMessage(&d)
		return d, ok
	case TypeInboxPush:
		var d InboxPush
		ok := p.inboxPush(&d)
		return d, ok
	case TypeInboxClaim:
		var d InboxClaim
		ok := p.inboxClaim(&d)
		return d, ok
	case TypeInboxClear:
		var d InboxClear
		ok := p.inboxClear(&d)
		return d, ok
	case TypeTurnStart:
		var d TurnStart
		ok := p.turnStart(&d)
		return d, ok
	case TypeTurnEnd:
		var d TurnEnd
		ok := p.turnEnd(&d)
		return d, ok
	case TypeStepStart:
		var d StepStart
		ok := p.turnStep(&d.Turn, &d.Step)
		return d, ok
	case TypeStepEnd:
		var d StepEnd
		ok := p.turnStep(&d.Turn, &d.Step)
		return d, ok
	case TypeAssistantChunk:
		var d AssistantChunk
		ok := p.assistantChunk(&d)
		return d, ok
	case TypeAssistantMessage:
		var d AssistantMessage
		ok := p.assistantMessage(&d)
		return d, ok
	case TypeToolCall:
		var d ToolCall
		ok := p.toolCall(&d)
		return d, ok
	case TypeToolResult:
		var d ToolResult
		ok := p.toolResult(&d)
		return d, ok
	case TypeLlmRetry:
		var d LlmRetry
		ok := p.llmRetry(&d)
		return d, ok
	case TypeLlmRetryStarted:
		var d LlmRetryStarted
		ok := p.llmRetryStarted(&d)
		return d, ok
	}
	return nil, false
}

func (p *eventParser) userMessage(d *UserMessage) bool {
	if !p.open() {
		return false
	}
	var seen keySet
	for ok := true; ok; {
		switch p.member(&seen) {
		case keyEnd:
			return true
		case keyMessage:
			ok = p.message(&d.Message)
		default:
			return false
		}
	}
	return false
}

func (p *eventParser) message(m *Message) bool {
	if !p.open() {
		return false
	}
	var seen keySet
	for ok := true; ok; {
		switch p.member(&seen) {
		case keyEnd:
			return true
		case keyID:
			ok = p.stringInto(&m.ID)
		case keyText:
			ok = p.stringInto(&m.Text)
		default:
			return false
		}
	}
	return false
}

func (p *eventParser) inboxPush(d *InboxPush) bool {
	if !p.open() {
		return false
	}
	var seen keySet
	for ok := true; ok; {
		switch p.member(&seen) {
		case keyEnd:
			return true
		case keyLane:
			ok = p.stringInto((*string)(&d.Lane))
		case keyKind:
			ok = p.stringInto((*string)(&d.Kind))
		case keyMessageID:
			ok = p.stringInto(&d.MessageID)
		default:
			return false
		}
	}
	return false
}

func (p *eventParser) inboxClaim(d *InboxClaim) bool {
	if !p.open() {
		return false
	}
	var seen keySet
	for ok := true; ok; {
		switch p.member(&seen) {
		case keyEnd:
			return true
		case keyTurn:
			ok = p.intInto(&d.Turn)
		case keyStep:
			ok = p.intInto(&d.Step)
		case keyLane:
			ok = p.stringInto((*string)(&d.Lane))
		case keyMessageID:
			ok = p.stringInto(&d.MessageID)
		default:
			return false
		}
	}
	return false
}

func (p *eventParser) inboxClear(d *InboxClear) bool {
	if !p.open() {
		return false
	}
	var seen keySet
	for ok := true; ok; {
		switch p.member(&seen) {
		case keyEnd:
			return true
		case keyLane:
			ok = p.stringInto((*string)(&d.Lane))
		case keyMessageID:
			ok = p.stringInto(&d.MessageID)
		default:
			return false
		}
	}
	return false
}

func (p *eventParser) turnStart(d *TurnStart) bool {
	if !p.open() {
		return false
	}
	var seen keySet
	for ok := true; ok; {
		switch p.member(&seen) {
		case keyEnd:
			return true
		case keyTurn:
			ok = p.intInto(&d.Turn)
		default:
			return false
		}
	}
	return false
}

func (p *eventParser) turnEnd(d *TurnEnd) bool {
	if !p.open() {
		return false
	}
	var seen keySet
	for ok := true; ok; {
		switch p.member(&seen) {
		case keyEnd:
			return true
		case keyTurn:
			ok = p.intInto(&d.Turn)
		case keyReason:
			ok = p.turnEndReason(&d.Reason)
		default:
			return false
		}
	}
	return false
}

func (p *eventParser) turnEndReason(r *TurnEndReason) bool {
	if !p.open() {
		return false
	}
	var seen keySet
	for ok := true; ok; {
		switch p.member(&seen) {
		case keyEnd:
			return true
		case keyKind:
			ok = p.stringInto(&r.Kind)
		case keyReason:
			r.Reason = &CancelCause{}
			ok = p.cancelCause(r.Reason)
		case keyError:
			r.Error = &Failure{}
			ok = p.failure(r.Error)
		default:
			return false
		}
	}
	return false
}

func (p *eventParser) cancelCause(c *CancelCause) bool {
	if !p.open() {
		return false
	}
	var seen keySet
	for ok := true; ok; {
		switch p.member(&seen) {
		case keyEnd:
			return true
		case keyKind:
			ok = p.stringInto(&c.Kind)
		case keyReason:
			ok = p.stringInto(&c.Reason)
		default:
			return false
		}
	}
	return false
}

// turnStep reads the payload of step/start and step/end, alike but for their types.
func (p *eventParser) turnStep(turn, step *int) bool {
	if !p.open() {
		return false
	}
	var seen keySet
	for ok := true; ok; {
		switch p.member(&seen) {
		case keyEnd:
			return true
		case keyTurn:
			ok = p.intInto(turn)
		case keyStep:
			ok = p.intInto(step)
		default:
			return false
		}
	}
	return false
}

func (p *eventParser) assistantChunk(d *AssistantChunk) bool {
	if !p.open() {
		return false
	}
	var seen keySet
	for ok := true; ok; {
		switch p.member(&seen) {
		case keyEnd:
			return true
		case keyTurn:
			ok = p.intInto(&d.Turn)
		case keyStep:
			ok = p.intInto(&d.Step)
		case keyChunk:
			ok = p.chunk(&d.Chunk)
		default:
			return false
		}
	}
	return false
}

func (p *eventParser) chunk(c *Chunk) bool {
	if !p.open() {
		return false
	}
	var seen keySet
	for ok := true; ok; {
		switch p.member(&seen) {
		case keyEnd:
			return true
		case keyKind:
			ok = p.stringInto(&c.Kind)
		case keyText:
			ok = p.stringInto(&c.Text)
		case keyCallID:
			ok = p.stringInto(&c.CallID)
		case keyName:
			ok = p.stringInto(&c.Name)
		case keyArguments:
			ok = p.stringInto(&c.Arguments)
		case keyFinish:
			ok = p.stringInto((*string)(&c.Finish))
		default:
			return false
		}
	}
	return false
}

func (p *eventParser) assistantMessage(d *AssistantMessage) bool {
	if !p.open() {
		return false
	}
	var seen keySet
	for ok := true; ok; {
		switch p.member(&seen) {
		case keyEnd:
			return true
		case keyTurn:
			ok = p.intInto(&d.Turn)
		case keyStep:
			ok = p.intInto(&d.Step)
		case keyMessage:
			ok = p.assembledMessage(&d.Message)
		case keyFinish:
			ok = p.stringInto((*string)(&d.Finish))
		default:
			return false
		}
	}
	return false
}

func (p *eventParser) assembledMessage(m *AssembledMessage) bool {
	if !p.open() {
		return false
	}
	var seen keySet
	for ok := true; ok; {
		switch p.member(&seen) {
		case keyEnd:
			return true
		case keyBlocks:
			ok = p.blocks(&m.Blocks)
		default:
			return false
		}
	}
	return false
}

// blocks reads an array of blocks; [] gives an empty, non-nil slice and null a nil one, as
// encoding/json does (the harness writes both).
func (p *eventParser) blocks(out *[]Block) bool {
	p.space()
	if len(p.b)-p.i >= 4 && p.b[p.i:p.i+4] == "null" {
		p.i += 4
		*out = nil
		return true
	}
	if !p.consume('[') {
		return false
	}
	blocks := []Block{}
	p.space()
	if p.consume(']') {
		*out = blocks
		return true
	}
	for {
		var b Block
		if !p.block(&b) {
			return false
		}
		blocks = append(blocks, b)
		p.space()
		if p.consume(']') {
			*out = blocks
			return true
		}
		if !p.consume(',') {
			return false
		}
	}
}

func (p *eventParser) block(b *Block) bool {
	if !p.open() {
		return false
	}
	var seen keySet
	for ok := true; ok; {
		switch p.member(&seen) {
		case keyEnd:
			return true
		case keyType:
			ok = p.stringInto(&b.Type)
		case keyText:
			ok = p.stringInto(&b.Text)
		case keyCallID:
			ok = p.stringInto(&b.CallID)
		case keyName:
			ok = p.stringInto(&b.Name)
		case keyArguments:
			ok = p.stringInto(&b.Arguments)
		default:
			return false
		}
	}
	return false
}

func (p *eventParser) toolCall(d *ToolCall) bool {
	if !p.open() {
		return false
	}
	var seen keySet
	for ok := true; ok; {
		switch p.member(&seen) {
		case keyEnd:
			return true
		case keyTurn:
			ok = p.intInto(&d.Turn)
		case keyStep:
			ok = p.intInto(&d.Step)
		case keyCallID:
			ok = p.stringInto(&d.CallID)
		case keyName:
			ok = p.stringInto(&d.Name)
		case keyArguments:
			ok = p.stringInto(&d.Arguments)
		default:
			return false
		}
	}
	return false
}

func (p *eventParser) toolResult(d *ToolResult) bool {
	if !p.open() {
		return false
	}
	var seen keySet
	for ok := true; ok; {
		switch p.member(&seen) {
		case keyEnd:
			return true
		case keyTurn:
			ok = p.intInto(&d.Turn)
		case keyStep:
			ok = p.intInto(&d.Step)
		case keyCallID:
			ok = p.stringInto(&d.CallID)
		case keyIsError:
			ok = p.boolInto(&d.IsError)
		case keyContent:
			ok = p.stringInto(&d.Content)
		case keyError:
			d.Error = &ToolError{}
			ok = p.toolError(d.Error)
		default:
			return false
		}
	}
	return false
}

func (p *eventParser) toolError(te *ToolError) bool {
	if !p.open() {
		return false
	}
	var seen keySet
	for ok := true; ok; {
		switch p.member(&seen) {
		case keyEnd:
			return true
		case keyName:
			ok = p.stringInto(&te.Name)
		case keyCode:
			ok = p.stringInto(&te.Code)
		case keyMessage:
			ok = p.stringInto(&te.Message)
		default:
			return false
		}
	}
	return false
}

func (p *eventParser) llmRetry(d *LlmRetry) bool {
	if !p.open() {
		return false
	}
	var seen keySet
	for ok := true; ok; {
		switch p.member(&seen) {
		case keyEnd:
			return true
		case keyRetryID:
			ok = p.stringInto(&d.RetryID)
		case keyTurn:
			ok = p.intInto(&d.Turn)
		case keyStep:
			ok = p.intInto(&d.Step)
		case keyProvider:
			ok = p.stringInto(&d.Provider)
		case keyMode:
			ok = p.stringInto((*string)(&d.Mode))
		case keyPolicyKey:
			ok = p.stringInto(&d.PolicyKey)
		case keyRetry:
			ok = p.intInto(&d.Retry)
		case keyMaxRetries:
			d.MaxRetries = new(int)
			ok = p.intInto(d.MaxRetries)
		case keyDelayMs:
			ok = p.floatInto(&d.DelayMs)
		case keyFailure:
			ok = p.failure(&d.Failure)
		default:
			return false
		}
	}
	return false
}

func (p *eventParser) failure(f *Failure) bool {
	if !p.open() {
		return false
	}
	var seen keySet
	for ok := true; ok; {
		switch p.member(&seen) {
		case keyEnd:
			return true
		case keyCode:
			ok = p.stringInto(&f.Code)
		case keyMessage:
			ok = p.stringInto(&f.Message)
		case keyStatus:
			ok = p.intInto(&f.Status)
		case keyProviderRetryAfterMs:
			ok = p.floatInto(&f.ProviderRetryAfterMs)
		case keyRequestID:
			ok = p.stringInto(&f.RequestID)
		default:
			return false
		}
	}
	return false
}

func (p *eventParser) llmRetryStarted(d *LlmRetryStarted) bool {
	if !p.open() {
		return false
	}
	var seen keySet
	for ok := true; ok; {
		switch p.member(&seen) {
		case keyEnd:
			return true
		case keyRetryID:
			ok = p.stringInto(&d.RetryID)
		case keyTurn:
			ok = p.intInto(&d.Turn)
		case keyStep:
			ok = p.intInto(&d.Step)
		case keyRetry:
			ok = p.intInto(&d.Retry)
		default:
			return false
		}
	}
	return false
}
