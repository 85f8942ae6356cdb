package harness

// The payload readers: one a payload type (and one a nested object). Each first reads the
// object as the encoder spells it (its keys in struct order, an optional one left out or in its
// place, no spacing) as a straight line of constant comparisons, p.lit; at the first difference it
// starts again from the object's brace with a loop over the object's members that switches on
// the member's key, which reads any spelling encoding/json reads the same way. A key the type does
// not have, like a repeated or unknown one, ends the fast path; a key left out leaves its field's
// zero value, as encoding/json does. The straight line reads nothing the loop would read
// differently, so which of the two read an object never shows in its value.

// lit reads text if the line goes on with it. The callers spell text out as a constant, so that
// the comparison, inlined, is a load or two and a compare up to eight bytes (a call to memequal
// beyond, still cheaper than reading the key and looking it up).
func (p *eventParser) lit(text string) bool {
	if len(p.b)-p.i >= len(text) && p.b[p.i:p.i+len(text)] == text {
		p.i += len(text)
		return true
	}
	return false
}

// data decodes the payload of an event of the given type.
func (p *eventParser) data(eventType string) (EventData, bool) {
	if p.slabs != nil {
		return p.dataInSlabs(eventType) // a JSONLDecoder's
	}
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
	start := p.i
	if p.lit(`{"message":{"id":`) && p.stringInto(&d.Message.ID) &&
		p.lit(`,"text":`) && p.stringInto(&d.Message.Text) && p.lit(`}}`) {
		return true
	}
	p.i, *d = start, UserMessage{}
	return p.fields(func(key memberKey) bool {
		switch key {
		case keyMessage:
			return p.message(&d.Message)
		}
		return false
	})
}

func (p *eventParser) inboxPush(d *InboxPush) bool {
	start := p.i
	if p.lit(`{"lane":`) && p.stringInto((*string)(&d.Lane)) && p.lit(`,"kind":`) && p.stringInto((*string)(&d.Kind)) &&
		p.lit(`,"messageId":`) && p.stringInto(&d.MessageID) && p.lit(`}`) {
		return true
	}
	p.i, *d = start, InboxPush{}
	return p.fields(func(key memberKey) bool {
		switch key {
		case keyLane:
			return p.stringInto((*string)(&d.Lane))
		case keyKind:
			return p.stringInto((*string)(&d.Kind))
		case keyMessageID:
			return p.stringInto(&d.MessageID)
		}
		return false
	})
}

func (p *eventParser) inboxClaim(d *InboxClaim) bool {
	start := p.i
	if p.lit(`{"turn":`) && p.intInto(&d.Turn) && p.lit(`,"step":`) && p.intInto(&d.Step) &&
		p.lit(`,"lane":`) && p.stringInto((*string)(&d.Lane)) && p.lit(`,"messageId":`) && p.stringInto(&d.MessageID) && p.lit(`}`) {
		return true
	}
	p.i, *d = start, InboxClaim{}
	return p.fields(func(key memberKey) bool {
		switch key {
		case keyTurn:
			return p.intInto(&d.Turn)
		case keyStep:
			return p.intInto(&d.Step)
		case keyLane:
			return p.stringInto((*string)(&d.Lane))
		case keyMessageID:
			return p.stringInto(&d.MessageID)
		}
		return false
	})
}

func (p *eventParser) inboxClear(d *InboxClear) bool {
	start := p.i
	if p.lit(`{"lane":`) && p.stringInto((*string)(&d.Lane)) && p.lit(`,"messageId":`) && p.stringInto(&d.MessageID) && p.lit(`}`) {
		return true
	}
	p.i, *d = start, InboxClear{}
	return p.fields(func(key memberKey) bool {
		switch key {
		case keyLane:
			return p.stringInto((*string)(&d.Lane))
		case keyMessageID:
			return p.stringInto(&d.MessageID)
		}
		return false
	})
}

func (p *eventParser) turnStart(d *TurnStart) bool {
	start := p.i
	if p.lit(`{"turn":`) && p.intInto(&d.Turn) && p.lit(`}`) {
		return true
	}
	p.i, *d = start, TurnStart{}
	return p.fields(func(key memberKey) bool {
		switch key {
		case keyTurn:
			return p.intInto(&d.Turn)
		}
		return false
	})
}

func (p *eventParser) turnEnd(d *TurnEnd) bool {
	start := p.i
	if p.lit(`{"turn":`) && p.intInto(&d.Turn) && p.lit(`,"reason":`) && p.turnEndReason(&d.Reason) && p.lit(`}`) {
		return true
	}
	p.i, *d = start, TurnEnd{}
	return p.fields(func(key memberKey) bool {
		switch key {
		case keyTurn:
			return p.intInto(&d.Turn)
		case keyReason:
			return p.turnEndReason(&d.Reason)
		}
		return false
	})
}

// turnStep reads the payload of step/start and step/end, alike but for their types.
func (p *eventParser) turnStep(turn, step *int) bool {
	start := p.i
	if p.lit(`{"turn":`) && p.intInto(turn) && p.lit(`,"step":`) && p.intInto(step) && p.lit(`}`) {
		return true
	}
	p.i, *turn, *step = start, 0, 0
	return p.fields(func(key memberKey) bool {
		switch key {
		case keyTurn:
			return p.intInto(turn)
		case keyStep:
			return p.intInto(step)
		}
		return false
	})
}

func (p *eventParser) assistantChunk(d *AssistantChunk) bool {
	start := p.i
	if p.lit(`{"turn":`) && p.intInto(&d.Turn) && p.lit(`,"step":`) && p.intInto(&d.Step) &&
		p.lit(`,"chunk":`) && p.chunk(&d.Chunk) && p.lit(`}`) {
		return true
	}
	p.i, *d = start, AssistantChunk{}
	return p.fields(func(key memberKey) bool {
		switch key {
		case keyTurn:
			return p.intInto(&d.Turn)
		case keyStep:
			return p.intInto(&d.Step)
		case keyChunk:
			return p.chunk(&d.Chunk)
		}
		return false
	})
}

func (p *eventParser) assistantMessage(d *AssistantMessage) bool {
	start := p.i
	if p.lit(`{"turn":`) && p.intInto(&d.Turn) && p.lit(`,"step":`) && p.intInto(&d.Step) &&
		p.lit(`,"message":{"blocks":`) && p.blocks(&d.Message.Blocks) && p.lit(`},"finish":`) &&
		p.stringInto((*string)(&d.Finish)) && p.lit(`}`) {
		return true
	}
	p.i, *d = start, AssistantMessage{}
	return p.fields(func(key memberKey) bool {
		switch key {
		case keyTurn:
			return p.intInto(&d.Turn)
		case keyStep:
			return p.intInto(&d.Step)
		case keyMessage:
			return p.assembledMessage(&d.Message)
		case keyFinish:
			return p.stringInto((*string)(&d.Finish))
		}
		return false
	})
}

func (p *eventParser) toolCall(d *ToolCall) bool {
	start := p.i
	if p.lit(`{"turn":`) && p.intInto(&d.Turn) && p.lit(`,"step":`) && p.intInto(&d.Step) &&
		p.lit(`,"callId":`) && p.stringInto(&d.CallID) && p.lit(`,"name":`) && p.stringInto(&d.Name) &&
		p.lit(`,"arguments":`) && p.stringInto(&d.Arguments) && p.lit(`}`) {
		return true
	}
	p.i, *d = start, ToolCall{}
	return p.fields(func(key memberKey) bool {
		switch key {
		case keyTurn:
			return p.intInto(&d.Turn)
		case keyStep:
			return p.intInto(&d.Step)
		case keyCallID:
			return p.stringInto(&d.CallID)
		case keyName:
			return p.stringInto(&d.Name)
		case keyArguments:
			return p.stringInto(&d.Arguments)
		}
		return false
	})
}

func (p *eventParser) toolResult(d *ToolResult) bool {
	start := p.i
	ok := p.lit(`{"turn":`) && p.intInto(&d.Turn) && p.lit(`,"step":`) && p.intInto(&d.Step) &&
		p.lit(`,"callId":`) && p.stringInto(&d.CallID) && p.lit(`,"isError":`) && p.boolInto(&d.IsError) &&
		p.lit(`,"content":`) && p.stringInto(&d.Content)
	if ok && p.lit(`,"error":`) {
		d.Error = p.newToolError()
		ok = p.toolError(d.Error)
	}
	if ok && p.lit(`}`) {
		return true
	}
	p.i, *d = start, ToolResult{}
	return p.fields(func(key memberKey) bool {
		switch key {
		case keyTurn:
			return p.intInto(&d.Turn)
		case keyStep:
			return p.intInto(&d.Step)
		case keyCallID:
			return p.stringInto(&d.CallID)
		case keyIsError:
			return p.boolInto(&d.IsError)
		case keyContent:
			return p.stringInto(&d.Content)
		case keyError:
			d.Error = p.newToolError()
			return p.toolError(d.Error)
		}
		return false
	})
}

func (p *eventParser) llmRetry(d *LlmRetry) bool {
	start := p.i
	ok := p.lit(`{"retryId":`) && p.stringInto(&d.RetryID) && p.lit(`,"turn":`) && p.intInto(&d.Turn) &&
		p.lit(`,"step":`) && p.intInto(&d.Step) && p.lit(`,"provider":`) && p.stringInto(&d.Provider) &&
		p.lit(`,"mode":`) && p.stringInto((*string)(&d.Mode)) && p.lit(`,"policyKey":`) && p.stringInto(&d.PolicyKey) &&
		p.lit(`,"retry":`) && p.intInto(&d.Retry)
	if ok && p.lit(`,"maxRetries":`) {
		d.MaxRetries = p.newInt()
		ok = p.intInto(d.MaxRetries)
	}
	ok = ok && p.lit(`,"delayMs":`) && p.floatInto(&d.DelayMs) && p.lit(`,"failure":`) && p.failure(&d.Failure)
	if ok && p.lit(`}`) {
		return true
	}
	p.i, *d = start, LlmRetry{}
	return p.fields(func(key memberKey) bool {
		switch key {
		case keyRetryID:
			return p.stringInto(&d.RetryID)
		case keyTurn:
			return p.intInto(&d.Turn)
		case keyStep:
			return p.intInto(&d.Step)
		case keyProvider:
			return p.stringInto(&d.Provider)
		case keyMode:
			return p.stringInto((*string)(&d.Mode))
		case keyPolicyKey:
			return p.stringInto(&d.PolicyKey)
		case keyRetry:
			return p.intInto(&d.Retry)
		case keyMaxRetries:
			d.MaxRetries = p.newInt()
			return p.intInto(d.MaxRetries)
		case keyDelayMs:
			return p.floatInto(&d.DelayMs)
		case keyFailure:
			return p.failure(&d.Failure)
		}
		return false
	})
}

func (p *eventParser) llmRetryStarted(d *LlmRetryStarted) bool {
	start := p.i
	if p.lit(`{"retryId":`) && p.stringInto(&d.RetryID) && p.lit(`,"turn":`) && p.intInto(&d.Turn) &&
		p.lit(`,"step":`) && p.intInto(&d.Step) && p.lit(`,"retry":`) && p.intInto(&d.Retry) && p.lit(`}`) {
		return true
	}
	p.i, *d = start, LlmRetryStarted{}
	return p.fields(func(key memberKey) bool {
		switch key {
		case keyRetryID:
			return p.stringInto(&d.RetryID)
		case keyTurn:
			return p.intInto(&d.Turn)
		case keyStep:
			return p.intInto(&d.Step)
		case keyRetry:
			return p.intInto(&d.Retry)
		}
		return false
	})
}
