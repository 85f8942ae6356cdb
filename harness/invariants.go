package harness

import (
	"fmt"
	"math"
	"slices"
)

// Invariant rules. Each refusal names one, so a tool that checks logs (and its users) can tell
// which promise a bad event breaks.
const (
	RuleSeq          = "seq"           // seq starts at 1 and grows by exactly 1
	RuleData         = "data"          // the payload's own fields are well formed
	RuleTurn         = "turn"          // turns numbered 1, 2, …, never nested; turn/end closes the open turn with no open step
	RuleStep         = "step"          // steps numbered 1, 2, … within a turn, never nested
	RuleScope        = "scope"         // step-scoped events name the open turn and step
	RuleToolPairing  = "tool-pairing"  // a result needs its call in the step; one result per call
	RuleRetryFields  = "retry-fields"  // llm/retry's fields are well formed for its mode
	RuleRetryChain   = "retry-chain"   // retry numbers continue by one; retryIds stay with their chain
	RuleRetryStarted = "retry-started" // llm/retry-started pairs once with its llm/retry
)

// InvariantError is an event the invariant layer refused: which event, which rule, and why.
type InvariantError struct {
	Seq    int64
	Type   string
	Rule   string
	Reason string
}

func (e *InvariantError) Error() string {
	return fmt.Sprintf("harness: invariant %s: event %d (%s): %s", e.Rule, e.Seq, e.Type, e.Reason)
}

// ChainKey identifies a retry chain: retries of one step, one provider, one policy.
type ChainKey struct {
	Turn      int
	Step      int
	Provider  string
	PolicyKey string
}

// ChainState is where a retry chain stands: its retryId, the last retry number written, the
// delays it waited so far and when its first failure was recorded (Unix ms).
type ChainState struct {
	RetryID  string
	Retry    int
	DelaysMs []float64
	FirstMs  int64
}

// Validator is the invariant layer: it holds just enough state, derived from the events it
// accepted, to judge the next one. The session runs every append through it; the simulator and
// `simrun check` replay whole logs through a fresh one. It is not safe for concurrent use.
type Validator struct {
	lastSeq  int64
	lastTurn int
	turnOpen bool
	lastStep int
	stepOpen bool
	// calls holds the open step's callIds, chains its retry chains (see invariants_state.go).
	calls  stepCalls
	chains stepChains
	// retryOwners holds every chain's retryId: a new chain must not reuse one.
	retryOwners retryIDs
	// awaitingStart holds llm/retry events not yet paired with their llm/retry-started.
	awaitingStart awaitingStarts
}

// NewValidator returns the invariant layer for an empty log. The zero Validator is one too.
func NewValidator() *Validator { return &Validator{} }

// Chain returns the state of a retry chain, read from the accepted events: the llm-retry plugin's
// memory of a chain is the log, never a counter of its own.
func (v *Validator) Chain(key ChainKey) (ChainState, bool) {
	return v.chains.find(key)
}

// OpenTurn returns the open turn and step (0 when none), and the last turn number used.
func (v *Validator) OpenTurn() (turn, step, lastTurn int) {
	if v.turnOpen {
		turn = v.lastTurn
		if v.stepOpen {
			step = v.lastStep
		}
	}
	return turn, step, v.lastTurn
}

// Append checks e against every rule and, if it passes, takes it into the state.
func (v *Validator) Append(e Event) error {
	if err := v.Check(e); err != nil {
		return err
	}
	v.apply(e)
	return nil
}

// Accept takes in an event Check has just accepted, without judging it again: for a caller that
// checks, then does its I/O, then takes the event in (the file store refuses before it writes a
// byte). Between the two nothing else may be checked or taken in. An event that does not follow
// the last one taken in is a broken invariant of the caller's, and panics.
func (v *Validator) Accept(e Event) {
	if e.Seq != v.lastSeq+1 {
		panic(fmt.Sprintf("harness: invariant: Accept of seq %d after seq %d: it was not the event just checked", e.Seq, v.lastSeq))
	}
	v.apply(e)
}

// Check judges e without taking it in.
func (v *Validator) Check(e Event) error {
	c := checked{seq: e.Seq, typ: e.Type}
	if e.Seq != v.lastSeq+1 {
		return c.refuse(RuleSeq, "seq %d does not follow %d", e.Seq, v.lastSeq)
	}
	if e.Data == nil {
		return c.refuse(RuleData, "no data")
	}
	if e.Data.EventType() != e.Type {
		return c.refuse(RuleData, "data of type %s in a %s event", e.Data.EventType(), e.Type)
	}
	switch d := e.Data.(type) {
	case UserMessage:
		if d.Message.ID == "" {
			return c.refuse(RuleData, "message id is empty")
		}
	case InboxPush:
		return v.checkInbox(c, d.Lane, d.MessageID, &d.Kind)
	case InboxClear:
		return v.checkInbox(c, d.Lane, d.MessageID, nil)
	case InboxClaim:
		if err := v.checkScope(c, d.Turn, d.Step); err != nil {
			return err
		}
		return v.checkInbox(c, d.Lane, d.MessageID, nil)
	case TurnStart:
		if v.turnOpen {
			return c.refuse(RuleTurn, "turn %d starts while turn %d is open", d.Turn, v.lastTurn)
		}
		if d.Turn != v.lastTurn+1 {
			return c.refuse(RuleTurn, "turn %d does not follow turn %d", d.Turn, v.lastTurn)
		}
	case TurnEnd:
		if !v.turnOpen || d.Turn != v.lastTurn {
			return c.refuse(RuleTurn, "turn/end for turn %d, but the open turn is %s", d.Turn, v.openTurnText())
		}
		if v.stepOpen {
			return c.refuse(RuleTurn, "turn/end while step %d is open", v.lastStep)
		}
		return checkTurnEndReason(c, d.Reason)
	case StepStart:
		if !v.turnOpen || d.Turn != v.lastTurn {
			return c.refuse(RuleScope, "step/start names turn %d, but the open turn is %s", d.Turn, v.openTurnText())
		}
		if v.stepOpen {
			return c.refuse(RuleStep, "step %d starts while step %d is open", d.Step, v.lastStep)
		}
		if d.Step != v.lastStep+1 {
			return c.refuse(RuleStep, "step %d does not follow step %d", d.Step, v.lastStep)
		}
	case StepEnd:
		return v.checkScope(c, d.Turn, d.Step)
	case AssistantChunk:
		return v.checkScope(c, d.Turn, d.Step)
	case AssistantMessage:
		if err := v.checkScope(c, d.Turn, d.Step); err != nil {
			return err
		}
		if d.Finish != FinishCompleted && d.Finish != FinishMaxTokens && d.Finish != FinishToolCalls {
			return c.refuse(RuleData, "finish %q is not completed, max-tokens or tool-calls", string(d.Finish))
		}
	case ToolCall:
		if err := v.checkScope(c, d.Turn, d.Step); err != nil {
			return err
		}
		if d.CallID == "" || d.Name == "" {
			return c.refuse(RuleData, "tool/call needs a callId and a name")
		}
		if _, seen := v.calls.find(d.CallID); seen {
			return c.refuse(RuleToolPairing, "callId %q is called twice in step %d", d.CallID, d.Step)
		}
	case ToolResult:
		if err := v.checkScope(c, d.Turn, d.Step); err != nil {
			return err
		}
		return v.checkToolResult(c, d)
	case LlmRetry:
		if err := v.checkScope(c, d.Turn, d.Step); err != nil {
			return err
		}
		return v.checkRetry(c, d)
	case LlmRetryStarted:
		if err := v.checkScope(c, d.Turn, d.Step); err != nil {
			return err
		}
		if at, ok := v.awaitingStart.find(startedKey{d.RetryID, d.Retry}); !ok || at.Turn != d.Turn || at.Step != d.Step {
			return c.refuse(RuleRetryStarted, "no unstarted llm/retry with retryId %q and retry %d in turn %d step %d", d.RetryID, d.Retry, d.Turn, d.Step)
		}
	default:
		return c.refuse(RuleData, "unknown data type %T", e.Data)
	}
	return nil
}

// checked is the event under check, as far as a refusal names it.
type checked struct {
	seq int64
	typ string
}

// refuse is the InvariantError refusing the checked event under rule.
func (c checked) refuse(rule, format string, args ...any) error {
	return &InvariantError{Seq: c.seq, Type: c.typ, Rule: rule, Reason: fmt.Sprintf(format, args...)}
}

func (v *Validator) openTurnText() string {
	if !v.turnOpen {
		return "none"
	}
	return fmt.Sprint(v.lastTurn)
}

func (v *Validator) checkScope(c checked, turn, step int) error {
	if !v.turnOpen || !v.stepOpen || turn != v.lastTurn || step != v.lastStep {
		open := "none"
		if v.turnOpen && v.stepOpen {
			open = fmt.Sprintf("turn %d step %d", v.lastTurn, v.lastStep)
		}
		return c.refuse(RuleScope, "names turn %d step %d, but the open step is %s", turn, step, open)
	}
	return nil
}

func (v *Validator) checkInbox(c checked, lane Lane, messageID string, kind *MessageKind) error {
	if lane != LaneNextTurn && lane != LaneNextStep {
		return c.refuse(RuleData, "lane %q is not next-turn or next-step", string(lane))
	}
	if messageID == "" {
		return c.refuse(RuleData, "messageId is empty")
	}
	if kind != nil {
		switch *kind {
		case KindFollowup, KindSteer, KindInject:
		default:
			return c.refuse(RuleData, "kind %q is not followup, steer or inject", string(*kind))
		}
	}
	return nil
}

func checkTurnEndReason(c checked, r TurnEndReason) error {
	switch r.Kind {
	case EndCompleted, EndMaxTokens, EndInterrupted:
		if r.Reason != nil || r.Error != nil {
			return c.refuse(RuleData, "a %s turn/end carries no reason or error", r.Kind)
		}
	case EndAborted:
		if r.Reason == nil || !validCauseKind(r.Reason.Kind) {
			return c.refuse(RuleData, "an aborted turn/end needs a cause of user, parent, hook or disposed")
		}
	case EndError:
		if r.Error == nil || r.Error.Code == "" || r.Error.Message == "" {
			return c.refuse(RuleData, "an error turn/end needs a failure with a code and a message")
		}
	default:
		return c.refuse(RuleData, "turn/end reason kind %q is unknown", r.Kind)
	}
	return nil
}

func (v *Validator) checkToolResult(c checked, d ToolResult) error {
	if d.CallID == "" {
		return c.refuse(RuleData, "tool/result needs a callId")
	}
	if d.Error != nil && !d.IsError {
		return c.refuse(RuleData, "tool/result carries an error but isError is false")
	}
	resulted, called := v.calls.find(d.CallID)
	switch {
	case !called && d.Error != nil && d.Error.Code == CodeToolNotStarted:
		return nil // crash repair: the call was asked for but never dispatched
	case !called:
		return c.refuse(RuleToolPairing, "tool/result for callId %q with no tool/call in turn %d step %d", d.CallID, d.Turn, d.Step)
	case resulted:
		return c.refuse(RuleToolPairing, "second tool/result for callId %q", d.CallID)
	}
	return nil
}

func (v *Validator) checkRetry(c checked, d LlmRetry) error {
	f := d.Failure
	switch {
	case f.Code == "" || f.Message == "":
		return c.refuse(RuleRetryFields, "failure needs a code and a message")
	case f.Status != 0 && (f.Status < 100 || f.Status > 599):
		return c.refuse(RuleRetryFields, "failure status %d is outside 100–599", f.Status)
	case f.ProviderRetryAfterMs != 0 && !(f.ProviderRetryAfterMs > 0 && !math.IsInf(f.ProviderRetryAfterMs, 0)):
		return c.refuse(RuleRetryFields, "providerRetryAfterMs %g is not positive and finite", f.ProviderRetryAfterMs)
	case d.RetryID == "" || d.Provider == "" || d.PolicyKey == "":
		return c.refuse(RuleRetryFields, "retryId, provider and policyKey must be non-empty")
	case d.Retry < 1:
		return c.refuse(RuleRetryFields, "retry %d is not a positive integer", d.Retry)
	case math.IsNaN(d.DelayMs) || math.IsInf(d.DelayMs, 0) || d.DelayMs < 0 || d.DelayMs > TimerCeilingMs:
		return c.refuse(RuleRetryFields, "delayMs %g is not finite, ≥ 0 and ≤ the timer ceiling", d.DelayMs)
	}
	switch d.Mode {
	case ModeNormal:
		if d.MaxRetries == nil {
			return c.refuse(RuleRetryFields, "normal mode needs maxRetries")
		}
		if d.Retry > *d.MaxRetries {
			return c.refuse(RuleRetryFields, "retry %d is above maxRetries %d", d.Retry, *d.MaxRetries)
		}
	case ModeAlways:
		if d.MaxRetries != nil {
			return c.refuse(RuleRetryFields, "always mode carries no maxRetries")
		}
	default:
		return c.refuse(RuleRetryFields, "mode %q is not normal or always", string(d.Mode))
	}
	key := ChainKey{d.Turn, d.Step, d.Provider, d.PolicyKey}
	prior, continuing := v.chains.find(key)
	if continuing {
		if d.RetryID != prior.RetryID {
			return c.refuse(RuleRetryChain, "retryId %q differs from its chain's %q", d.RetryID, prior.RetryID)
		}
		if d.Retry != prior.Retry+1 {
			return c.refuse(RuleRetryChain, "retry %d does not follow retry %d of its chain", d.Retry, prior.Retry)
		}
		return nil
	}
	if v.retryOwners.has(d.RetryID) {
		return c.refuse(RuleRetryChain, "retryId %q is already owned by another chain", d.RetryID)
	}
	if d.Retry != 1 {
		return c.refuse(RuleRetryChain, "a new chain starts at retry 1, not %d", d.Retry)
	}
	return nil
}

// apply takes an accepted event into the state.
func (v *Validator) apply(e Event) {
	v.lastSeq = e.Seq
	switch d := e.Data.(type) {
	case TurnStart:
		v.lastTurn, v.turnOpen, v.lastStep, v.stepOpen = d.Turn, true, 0, false
	case TurnEnd:
		v.turnOpen = false
	case StepStart:
		v.lastStep, v.stepOpen = d.Step, true
		clear(v.calls)
		v.calls = v.calls[:0]
		clear(v.chains) // a chain never outlives its step; retryOwners keeps the ids unique
		v.chains = v.chains[:0]
	case StepEnd:
		v.stepOpen = false
	case ToolCall:
		v.calls.set(d.CallID, false)
	case ToolResult:
		v.calls.set(d.CallID, true)
	case LlmRetry:
		key := ChainKey{d.Turn, d.Step, d.Provider, d.PolicyKey}
		prior, continuing := v.chains.find(key)
		state := ChainState{RetryID: d.RetryID, Retry: d.Retry, FirstMs: e.Time}
		if continuing {
			state.FirstMs = prior.FirstMs
			state.DelaysMs = append(slices.Clip(prior.DelaysMs), d.DelayMs)
		} else {
			state.DelaysMs = []float64{d.DelayMs}
		}
		v.chains.set(key, state)
		v.retryOwners.add(d.RetryID)
		v.awaitingStart.set(startedKey{d.RetryID, d.Retry}, StepStart{Turn: d.Turn, Step: d.Step})
	case LlmRetryStarted:
		v.awaitingStart.remove(startedKey{d.RetryID, d.Retry})
	}
}

// ValidateLog replays events through a fresh invariant layer and returns the first refusal.
func ValidateLog(events []Event) error {
	v := NewValidator()
	for _, e := range events {
		if err := v.Append(e); err != nil {
			return err
		}
	}
	return nil
}
