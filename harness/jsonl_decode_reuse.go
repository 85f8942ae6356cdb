package harness

import "unsafe"

// A JSONLDecoder decodes logs one after another into memory it keeps from one log to the next:
// the events' slice and their payloads. Decoding a log allocates a payload for nearly every
// event (an interface holds a copy of its value, made on the heap), about twenty a run of the
// simulator, whose log-replays property decodes each run's log only to compare it with the
// session's and drop it; with a decoder kept across runs those allocations are made once, when
// the decoder grows to the size of the logs it reads. So are the allocations of what payloads
// point at (a message's blocks, a turn end's cause) and of strings with escapes.
//
// The zero JSONLDecoder is ready to use. It is not safe for concurrent use.
type JSONLDecoder struct {
	events []Event
	slabs  payloadSlabs
}

// DecodeShared is DecodeJSONLShared(data) into the decoder's memory: the same events, or the
// same error. The events are overwritten by the decoder's next call, and so is what they point
// at: their payloads, a payload's blocks, cause, error and maxRetries, and the strings with
// escapes (the others are substrings of data, which must not change while they are in use, as
// with DecodeJSONLShared). A caller reads them and keeps nothing of them, not even a payload
// copied out of one, before it decodes again.
func (d *JSONLDecoder) DecodeShared(data []byte) ([]Event, error) {
	d.slabs.reset()
	events, err := decodeJSONLAppend(d.events[:0], data, true, &d.slabs, 0)
	if err == nil && cap(events) > cap(d.events) {
		d.events = events[:0] // grown: the next log is decoded into this array
	}
	return events, err
}

// payloadSlabs hold the payloads of a log's events, one array for each payload type, reused from
// one log to the next: an event's Data is an interface whose data word points at its payload in
// the array (boxed), where converting the payload to the interface would copy it to a new
// allocation. reset makes the arrays' elements free again; the events holding them must be dead
// by then, as DecodeShared's contract says.
type payloadSlabs struct {
	userMessage      slab[UserMessage]
	inboxPush        slab[InboxPush]
	inboxClaim       slab[InboxClaim]
	inboxClear       slab[InboxClear]
	turnStart        slab[TurnStart]
	turnEnd          slab[TurnEnd]
	stepStart        slab[StepStart]
	stepEnd          slab[StepEnd]
	assistantChunk   slab[AssistantChunk]
	assistantMessage slab[AssistantMessage]
	toolCall         slab[ToolCall]
	toolResult       slab[ToolResult]
	llmRetry         slab[LlmRetry]
	llmRetryStarted  slab[LlmRetryStarted]
	// What payloads point at: a turn end's cause or error, a tool result's error, a retry's
	// maxRetries, an assistant message's blocks (one array, each message's a capped slice of it),
	// and the bytes of the strings with escapes (textBytes), whose values are not in the log.
	cancelCauses slab[CancelCause]
	failures     slab[Failure]
	toolErrors   slab[ToolError]
	ints         slab[int]
	blocks       []Block
	textBytes    []byte
}

func (s *payloadSlabs) reset() {
	s.userMessage.used, s.inboxPush.used, s.inboxClaim.used, s.inboxClear.used = 0, 0, 0, 0
	s.turnStart.used, s.turnEnd.used, s.stepStart.used, s.stepEnd.used = 0, 0, 0, 0
	s.assistantChunk.used, s.assistantMessage.used, s.toolCall.used, s.toolResult.used = 0, 0, 0, 0
	s.llmRetry.used, s.llmRetryStarted.used = 0, 0
	s.cancelCauses.used, s.failures.used, s.toolErrors.used, s.ints.used = 0, 0, 0, 0
	s.blocks, s.textBytes = s.blocks[:0], s.textBytes[:0]
}

// The parser's allocations of what payloads point at: in its JSONLDecoder's slabs when it has
// one, new otherwise.

func (p *eventParser) newCancelCause() *CancelCause {
	if p.slabs == nil {
		return &CancelCause{}
	}
	return p.slabs.cancelCauses.take()
}

func (p *eventParser) newFailure() *Failure {
	if p.slabs == nil {
		return &Failure{}
	}
	return p.slabs.failures.take()
}

func (p *eventParser) newToolError() *ToolError {
	if p.slabs == nil {
		return &ToolError{}
	}
	return p.slabs.toolErrors.take()
}

func (p *eventParser) newInt() *int {
	if p.slabs == nil {
		return new(int)
	}
	return p.slabs.ints.take()
}

// text is a buffer of n bytes for a string's value: a new one, or the next n bytes of the
// decoder's array of them (a new, larger array when they do not fit: the strings made in the old
// one keep it). Its capacity is n, so nothing written into it reaches another string's bytes.
func (p *eventParser) text(n int) []byte {
	if p.slabs == nil {
		return make([]byte, n)
	}
	out := p.slabs.textRoom(n)
	p.slabs.textBytes = p.slabs.textBytes[:len(p.slabs.textBytes)+n]
	return out[:n:n]
}

// slab is an array of payloads of one type, the first used of them taken.
type slab[T any] struct {
	items []T
	used  int
}

// take is the next free payload of the slab, zeroed (the payload readers fill a zero value). When
// the array is full it grows by append, to a new array: the payloads taken from the old one stay
// where they are, held by their events, and are never written again.
func (s *slab[T]) take() *T {
	if s.used == len(s.items) {
		var zero T
		s.items = append(s.items, zero)
		s.items = s.items[:cap(s.items)]
	}
	p := &s.items[s.used]
	s.used++
	var zero T
	*p = zero
	return p
}

// eface is the layout of an interface value: its type word (an itab, for EventData) and its data
// word, which for the payload types (structs that are not a single pointer) points at the value.
type eface struct {
	tab, data unsafe.Pointer
}

// boxed is the EventData whose value is *p, made without a copy: its data word is p. Nothing
// writes through an interface's data word, so the value is *p as it is now for as long as
// nobody writes *p, which the slabs leave alone until they are reset. tab is typeWord of a T.
func boxed[T EventData](p *T, tab unsafe.Pointer) EventData {
	var d EventData
	*(*eface)(unsafe.Pointer(&d)) = eface{tab: tab, data: unsafe.Pointer(p)}
	return d
}

// dataInSlabs is data, each payload decoded in place in its type's slab.
func (p *eventParser) dataInSlabs(eventType string) (EventData, bool) {
	s := p.slabs
	switch eventType {
	case TypeUserMessage:
		d := s.userMessage.take()
		return boxed(d, tabUserMessage), p.userMessage(d)
	case TypeInboxPush:
		d := s.inboxPush.take()
		return boxed(d, tabInboxPush), p.inboxPush(d)
	case TypeInboxClaim:
		d := s.inboxClaim.take()
		return boxed(d, tabInboxClaim), p.inboxClaim(d)
	case TypeInboxClear:
		d := s.inboxClear.take()
		return boxed(d, tabInboxClear), p.inboxClear(d)
	case TypeTurnStart:
		d := s.turnStart.take()
		return boxed(d, tabTurnStart), p.turnStart(d)
	case TypeTurnEnd:
		d := s.turnEnd.take()
		return boxed(d, tabTurnEnd), p.turnEnd(d)
	case TypeStepStart:
		d := s.stepStart.take()
		return boxed(d, tabStepStart), p.turnStep(&d.Turn, &d.Step)
	case TypeStepEnd:
		d := s.stepEnd.take()
		return boxed(d, tabStepEnd), p.turnStep(&d.Turn, &d.Step)
	case TypeAssistantChunk:
		d := s.assistantChunk.take()
		return boxed(d, tabAssistantChunk), p.assistantChunk(d)
	case TypeAssistantMessage:
		d := s.assistantMessage.take()
		return boxed(d, tabAssistantMessage), p.assistantMessage(d)
	case TypeToolCall:
		d := s.toolCall.take()
		return boxed(d, tabToolCall), p.toolCall(d)
	case TypeToolResult:
		d := s.toolResult.take()
		return boxed(d, tabToolResult), p.toolResult(d)
	case TypeLlmRetry:
		d := s.llmRetry.take()
		return boxed(d, tabLlmRetry), p.llmRetry(d)
	case TypeLlmRetryStarted:
		d := s.llmRetryStarted.take()
		return boxed(d, tabLlmRetryStarted), p.llmRetryStarted(d)
	}
	return nil, false
}

// typeWord is the type word of an EventData holding d's type.
func typeWord(d EventData) unsafe.Pointer { return (*eface)(unsafe.Pointer(&d)).tab }

// The type words of the payload types, for boxed.
var (
	tabUserMessage      = typeWord(UserMessage{})
	tabInboxPush        = typeWord(InboxPush{})
	tabInboxClaim       = typeWord(InboxClaim{})
	tabInboxClear       = typeWord(InboxClear{})
	tabTurnStart        = typeWord(TurnStart{})
	tabTurnEnd          = typeWord(TurnEnd{})
	tabStepStart        = typeWord(StepStart{})
	tabStepEnd          = typeWord(StepEnd{})
	tabAssistantChunk   = typeWord(AssistantChunk{})
	tabAssistantMessage = typeWord(AssistantMessage{})
	tabToolCall         = typeWord(ToolCall{})
	tabToolResult       = typeWord(ToolResult{})
	tabLlmRetry         = typeWord(LlmRetry{})
	tabLlmRetryStarted  = typeWord(LlmRetryStarted{})
)
