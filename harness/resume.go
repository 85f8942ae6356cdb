package harness

import "fmt"

// resume rebuilds the agent from a log written earlier, then repairs it: what the inbox still
// held (pushed, never claimed or cleared), how many turns and messages there were, and the
// conversation so far. The repair events go through the session, so they are durable before New
// returns. The history is taken in validated, without judging its events again.
func (a *Agent) resume(validated *ValidatedHistory) error {
	history := validated.Events()
	if err := a.session.resumeFrom(validated); err != nil {
		return err
	}
	texts := map[string]string{}
	pending := map[string]inboxEntry{}
	var order []string
	for _, e := range history {
		switch d := e.Data.(type) {
		case UserMessage:
			texts[d.Message.ID] = d.Message.Text
			a.messageCount++
		case InboxPush:
			pending[d.MessageID] = inboxEntry{id: d.MessageID, kind: d.Kind, lane: d.Lane, text: texts[d.MessageID]}
			order = append(order, d.MessageID)
		case InboxClaim:
			if m, ok := pending[d.MessageID]; ok {
				a.conversation.add(Entry{Role: RoleUser, Text: m.text})
			}
			delete(pending, d.MessageID)
		case InboxClear:
			delete(pending, d.MessageID)
		case TurnStart:
			a.lastTurn = d.Turn
		case AssistantMessage:
			message := d.Message
			if d.Finish == FinishMaxTokens {
				message = message.TextOnly() // a log written before max-tokens steps kept text only
			}
			a.conversation.add(Entry{Role: RoleAssistant, Blocks: message.Blocks})
		case ToolResult:
			a.conversation.add(toolEntry(d))
		}
	}
	for _, id := range order {
		if m, ok := pending[id]; ok {
			a.inbox.push(m)
		}
	}
	turn, step, _ := a.session.validator.OpenTurn() // the state the history left, taken over by the session
	repair := repairOpen(history, turn, step)
	for _, data := range repair {
		if _, err := a.session.Append(data); err != nil {
			return fmt.Errorf("harness: crash repair: %w", err)
		}
		if r, ok := data.(ToolResult); ok {
			a.conversation.add(toolEntry(r))
		}
	}
	a.conversation.dropUnanswered() // as the turns that left them did
	return nil
}

// Wake starts a turn if the inbox holds work and the agent is idle: after resuming from a log,
// say, whose inbox still held messages. It is a no-op otherwise.
func (a *Agent) Wake() {
	a.mu.Lock()
	start := a.phase == phaseIdle && a.inbox.hasPending() && a.wakeLocked()
	a.mu.Unlock()
	if start {
		a.runtime.Go("driver", a.drive)
	}
}
