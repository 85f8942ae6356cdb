package harness

// The readers of the objects nested in payloads, alike in shape to the payload readers: the
// encoder's spelling read as a straight line first, then any other as a loop over the members.

func (p *eventParser) message(m *Message) bool {
	start := p.i
	if p.lit(`{"id":`) && p.stringInto(&m.ID) && p.lit(`,"text":`) && p.stringInto(&m.Text) && p.lit(`}`) {
		return true
	}
	p.i, *m = start, Message{}
	return p.fields(func(key memberKey) bool {
		switch key {
		case keyID:
			return p.stringInto(&m.ID)
		case keyText:
			return p.stringInto(&m.Text)
		}
		return false
	})
}

func (p *eventParser) turnEndReason(r *TurnEndReason) bool {
	start := p.i
	ok := p.lit(`{"kind":`) && p.stringInto(&r.Kind)
	if ok && p.lit(`,"reason":`) {
		r.Reason = p.newCancelCause()
		ok = p.cancelCause(r.Reason)
	}
	if ok && p.lit(`,"error":`) {
		r.Error = p.newFailure()
		ok = p.failure(r.Error)
	}
	if ok && p.lit(`}`) {
		return true
	}
	p.i, *r = start, TurnEndReason{}
	return p.fields(func(key memberKey) bool {
		switch key {
		case keyKind:
			return p.stringInto(&r.Kind)
		case keyReason:
			r.Reason = p.newCancelCause()
			return p.cancelCause(r.Reason)
		case keyError:
			r.Error = p.newFailure()
			return p.failure(r.Error)
		}
		return false
	})
}

func (p *eventParser) cancelCause(c *CancelCause) bool {
	start := p.i
	if p.lit(`{"kind":`) && p.stringInto(&c.Kind) && (!p.lit(`,"reason":`) || p.stringInto(&c.Reason)) && p.lit(`}`) {
		return true
	}
	p.i, *c = start, CancelCause{}
	return p.fields(func(key memberKey) bool {
		switch key {
		case keyKind:
			return p.stringInto(&c.Kind)
		case keyReason:
			return p.stringInto(&c.Reason)
		}
		return false
	})
}

func (p *eventParser) chunk(c *Chunk) bool {
	start := p.i
	if p.lit(`{"kind":`) && p.stringInto(&c.Kind) &&
		(!p.lit(`,"text":`) || p.stringInto(&c.Text)) && (!p.lit(`,"callId":`) || p.stringInto(&c.CallID)) &&
		(!p.lit(`,"name":`) || p.stringInto(&c.Name)) && (!p.lit(`,"arguments":`) || p.stringInto(&c.Arguments)) &&
		(!p.lit(`,"finish":`) || p.stringInto((*string)(&c.Finish))) && p.lit(`}`) {
		return true
	}
	p.i, *c = start, Chunk{}
	return p.fields(func(key memberKey) bool {
		switch key {
		case keyKind:
			return p.stringInto(&c.Kind)
		case keyText:
			return p.stringInto(&c.Text)
		case keyCallID:
			return p.stringInto(&c.CallID)
		case keyName:
			return p.stringInto(&c.Name)
		case keyArguments:
			return p.stringInto(&c.Arguments)
		case keyFinish:
			return p.stringInto((*string)(&c.Finish))
		}
		return false
	})
}

func (p *eventParser) assembledMessage(m *AssembledMessage) bool {
	start := p.i
	if p.lit(`{"blocks":`) && p.blocks(&m.Blocks) && p.lit(`}`) {
		return true
	}
	p.i, *m = start, AssembledMessage{}
	return p.fields(func(key memberKey) bool {
		switch key {
		case keyBlocks:
			return p.blocks(&m.Blocks)
		}
		return false
	})
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
	p.space()
	if p.consume(']') {
		*out = []Block{} // empty, not nil (and no allocation: it has no elements)
		return true
	}
	// The blocks are appended to a JSONLDecoder's array of them when there is one (and taken as a
	// slice of it, capped, at the end), to a new slice otherwise.
	var blocks []Block
	start := 0
	if p.slabs != nil {
		blocks = p.slabs.blocks
		start = len(blocks)
	}
	for {
		var b Block
		if !p.block(&b) {
			return false
		}
		blocks = append(blocks, b)
		p.space()
		if p.consume(']') {
			if p.slabs != nil {
				p.slabs.blocks = blocks
			}
			*out = blocks[start:len(blocks):len(blocks)]
			return true
		}
		if !p.consume(',') {
			return false
		}
	}
}

func (p *eventParser) block(b *Block) bool {
	start := p.i
	if p.lit(`{"type":`) && p.stringInto(&b.Type) &&
		(!p.lit(`,"text":`) || p.stringInto(&b.Text)) && (!p.lit(`,"callId":`) || p.stringInto(&b.CallID)) &&
		(!p.lit(`,"name":`) || p.stringInto(&b.Name)) && (!p.lit(`,"arguments":`) || p.stringInto(&b.Arguments)) && p.lit(`}`) {
		return true
	}
	p.i, *b = start, Block{}
	return p.fields(func(key memberKey) bool {
		switch key {
		case keyType:
			return p.stringInto(&b.Type)
		case keyText:
			return p.stringInto(&b.Text)
		case keyCallID:
			return p.stringInto(&b.CallID)
		case keyName:
			return p.stringInto(&b.Name)
		case keyArguments:
			return p.stringInto(&b.Arguments)
		}
		return false
	})
}

func (p *eventParser) toolError(te *ToolError) bool {
	start := p.i
	if p.lit(`{"name":`) && p.stringInto(&te.Name) && p.lit(`,"code":`) && p.stringInto(&te.Code) &&
		p.lit(`,"message":`) && p.stringInto(&te.Message) && p.lit(`}`) {
		return true
	}
	p.i, *te = start, ToolError{}
	return p.fields(func(key memberKey) bool {
		switch key {
		case keyName:
			return p.stringInto(&te.Name)
		case keyCode:
			return p.stringInto(&te.Code)
		case keyMessage:
			return p.stringInto(&te.Message)
		}
		return false
	})
}

func (p *eventParser) failure(f *Failure) bool {
	start := p.i
	ok := p.lit(`{"code":`) && p.stringInto(&f.Code) && p.lit(`,"message":`) && p.stringInto(&f.Message) &&
		(!p.lit(`,"status":`) || p.intInto(&f.Status)) &&
		(!p.lit(`,"providerRetryAfterMs":`) || p.floatInto(&f.ProviderRetryAfterMs)) &&
		(!p.lit(`,"requestId":`) || p.stringInto(&f.RequestID))
	if ok && p.lit(`}`) {
		return true
	}
	p.i, *f = start, Failure{}
	return p.fields(func(key memberKey) bool {
		switch key {
		case keyCode:
			return p.stringInto(&f.Code)
		case keyMessage:
			return p.stringInto(&f.Message)
		case keyStatus:
			return p.intInto(&f.Status)
		case keyProviderRetryAfterMs:
			return p.floatInto(&f.ProviderRetryAfterMs)
		case keyRequestID:
			return p.stringInto(&f.RequestID)
		}
		return false
	})
}
