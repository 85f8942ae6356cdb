package sim

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness"
)

// From incident to seed: ScheduleFromLog turns a production session log into a schedule whose
// simulated run writes the same log, event for event. The log says a great deal: every request
// the agent made and what came back (the chunks up to where a stream ended, the finish, the
// failure with its code, status and Retry-After as delivered), every tool call with its outcome
// and its time, every message the user sent and when, the cancellations and disposals by their
// causes, and a crash wherever crash repair closed a turn. The derivation reads it in one pass,
// as the harness wrote it, and builds the plan that makes the world play it again: the provider's
// answers in request order, the user's and the host's actions at their times, the retry policy
// the chains name, and the random draws each backoff and retry id implies.
//
// What the log does not fix (when exactly a cancel struck that only ended a draining tool, when a
// crash killed a process that had gone quiet, what an answer cut short would have said, which of
// two same-instant events went first), the derivation picks as the log's own times imply, and
// says so in Derivation.Undetermined. ReplayLog then runs the schedule, and with a search tries
// other seeds (other scheduling orders) until one writes the log again.

// Derivation is a schedule derived from a session log, and what the log left open.
type Derivation struct {
	Schedule Schedule
	// Undetermined lists, one line each, what the log does not determine and what the
	// derivation picked, naming the event by its seq.
	Undetermined []string
	// Events is how many events the log holds; Incarnations how many lives of the agent it shows
	// (crashes plus one).
	Events, Incarnations int
}

// ScheduleFromLog derives the schedule that replays events, a session log that passed the
// invariant layer (ReadSessionLog). name is the log's file, recorded in the schedule for people.
// It refuses, with an error naming the event, a log whose story no schedule can tell: a turn
// that failed outside any request (a refused append, say), or a failure after a streamed call.
func ScheduleFromLog(name string, events []harness.Event) (Derivation, error) {
	if len(events) == 0 {
		return Derivation{}, fmt.Errorf("%w: %s: no event to replay", ErrBadLog, name)
	}
	d := newDeriver(events)
	if err := d.derive(); err != nil {
		return Derivation{}, fmt.Errorf("sim: replay %s: %w", name, err)
	}
	d.replay.Log = filepath.Base(name)
	schedule := Schedule{Version: ScheduleVersion, Seed: 1, Strategy: StrategyUniform, Plan: d.plan, Replay: &d.replay}
	schedule.Swarm = swarmOf(schedule.Plan)
	if err := schedule.Validate(); err != nil {
		return Derivation{}, fmt.Errorf("sim: replay %s: the derived schedule is invalid: %w", name, err)
	}
	return Derivation{Schedule: schedule, Undetermined: d.notes, Events: len(events), Incarnations: d.incarnation}, nil
}

// deriver is one derivation's state as it reads the log in order.
type deriver struct {
	events []harness.Event
	// origin is the log's first event's time: virtual time 0.
	origin int64
	plan   faults.Plan
	replay Replay
	notes  []string

	// incarnation is the agent's current life (from 1); pluginEnded whether its llm-retry plugin
	// was seen disposed.
	incarnation int
	pluginEnded bool
	// policyKey is the first chain's key, policyKnown whether a chain gave the policy.
	policyKey   string
	policyKnown bool
	retryIDs    map[string]bool

	// attempt is the request in flight, nil between requests.
	attempt *attempt
	// step is the open step's record: its calls, by id (nil outside a step).
	step *stepRecord
	// turn is the open turn's number (0: none), turnStart the index of its turn/start.
	turn, turnStart int
	// inbox holds the messages queued and neither claimed nor cleared.
	inbox map[string]bool
	// message is the user/message waiting for its inbox/push.
	message *harness.Event
	// retryWaiting is the llm/retry whose wait has not ended in llm/retry-started.
	retryWaiting *harness.Event
	// cancel is the index in plan.Actions of the cancel whose consequences the log shows now
	// (-1: none): its clears, then the aborted turn's end.
	cancel int
	// crashAt is when the last crash struck.
	crashAt int64
	// repairAt marks the events crash repair wrote when the agent restarted.
	repairAt map[int]bool
	// steps are the steps read so far, the open one last: their calls tell the pool limit.
	steps []*stepRecord

	// The replay's clock, predicted (replay_clock.go): simMs is when the replay writes the
	// event read last, now when it writes the event being read, agentMs when it wrote the
	// agent's last; sends are the actions since, retryDueMs when the waiting backoff ends.
	simMs, now, agentMs, retryDueMs int64
	sends                           []int
	// wakeMs is when a send woke the idle agent whose turn has not started yet (-1: none).
	wakeMs int64
	// consequence marks, by seq, the events a cancel wrote ending a turn; lastProgressMs is when
	// the replay writes the agent's last other event.
	consequence    map[int64]bool
	lastProgressMs int64
}

func newDeriver(events []harness.Event) *deriver {
	d := &deriver{events: events, origin: events[0].Time, incarnation: 1, retryIDs: map[string]bool{}, inbox: map[string]bool{}, cancel: -1, repairAt: map[int]bool{}}
	d.replay = Replay{StartMs: d.origin, Draws: []Draws{{}}}
	d.simMs, d.agentMs, d.wakeMs = d.origin, d.origin, -1
	d.plan = faults.Plan{Policy: faults.SpecRetryPolicy(), MaxParallelToolCalls: faults.SpecMaxParallelToolCalls}
	return d
}

// rel is a log time as virtual milliseconds since the log's start.
func (d *deriver) rel(ms int64) int64 { return ms - d.origin }

// note records something the log does not determine, at the event of seq.
func (d *deriver) note(seq int64, format string, args ...any) {
	d.notes = append(d.notes, fmt.Sprintf("seq %d: ", seq)+fmt.Sprintf(format, args...))
}

// derive reads the log and fills the plan.
func (d *deriver) derive() error {
	d.findRepairs()
	d.findPolicy()
	d.findConsequences()
	for i := range d.events {
		d.now = d.agentMs
		if d.repairAt[i] {
			if i == 0 || !d.repairAt[i-1] {
				d.crashBefore(i)
			}
			d.repairEvent(i)
		} else if err := d.event(i); err != nil {
			return err
		}
		d.written(d.events[i])
	}
	d.finish()
	return nil
}

// event reads the i-th event of a living incarnation.
func (d *deriver) event(i int) error {
	e := d.events[i]
	if e.Type != harness.TypeInboxClear {
		d.cancelEnds(e)
	}
	switch data := e.Data.(type) {
	case harness.UserMessage:
		d.message = &d.events[i]
		d.now = max(d.now, e.Time)
	case harness.InboxPush:
		if d.message != nil {
			d.now = max(d.now, d.message.Time)
		}
		d.send(e, data)
	case harness.InboxClaim:
		delete(d.inbox, data.MessageID)
		if d.attempt != nil && d.attempt.empty() {
			d.attempt.startMs = d.now // the request goes once the step has claimed its messages
		}
	case harness.InboxClear:
		d.clear(e, data)
	case harness.TurnStart:
		if i > 0 && !d.woke(i) {
			d.restartWoke(i)
		} else if i > 0 && d.events[i-1].Type == harness.TypeInboxPush && len(d.plan.Actions) > 0 {
			d.now = max(d.now, d.plan.Actions[len(d.plan.Actions)-1].AtMs+d.origin) // the send woke it
		}
		d.turn, d.turnStart = data.Turn, i
	case harness.StepStart:
		d.step = &stepRecord{turn: data.Turn, step: data.Step, answer: -1}
		d.steps = append(d.steps, d.step)
		d.attempt = &attempt{startMs: d.now, seq: e.Seq}
	case harness.AssistantChunk:
		return d.chunk(e, data)
	case harness.AssistantMessage:
		return d.completed(e, data)
	case harness.LlmRetry:
		return d.retried(i, data)
	case harness.LlmRetryStarted:
		d.retryWaiting = nil
		d.now = max(d.now, d.retryDueMs) // the replay's backoff waits the delay, no more
		d.attempt = &attempt{startMs: d.now, seq: e.Seq}
	case harness.ToolCall:
		d.toolCall(i, data)
	case harness.ToolResult:
		d.toolResult(e, data)
	case harness.StepEnd:
		// A failure or an abort ends the step first: the turn's end says which.
	case harness.TurnEnd:
		return d.turnEnd(i, data)
	}
	return nil
}

// send is a message reaching its lane: the user sent it when its user/message was written.
func (d *deriver) send(e harness.Event, push harness.InboxPush) {
	text := ""
	if m := d.message; m != nil {
		if um, ok := m.Data.(harness.UserMessage); ok && um.Message.ID == push.MessageID {
			text = um.Message.Text
		}
	}
	d.message = nil
	d.inbox[push.MessageID] = true
	d.userAction(faults.Action{AtMs: d.rel(d.now), Kind: string(push.Kind), Text: text})
	if d.turn == 0 && d.wakeMs < 0 && (push.Kind == harness.KindFollowup || push.Kind == harness.KindSteer) {
		d.wakeMs = d.plan.Actions[len(d.plan.Actions)-1].AtMs + d.origin
	}
}

// finish settles what the log's end leaves open: a request or a turn the last incarnation had in
// flight when the log stopped, and the horizon and pool limit.
func (d *deriver) finish() {
	last := d.events[len(d.events)-1]
	if d.turn != 0 {
		// The log ends inside a turn: the process died and nobody reopened the log. The world
		// kills it just after its last event, and restarts it (its repair follows the log's end).
		crashAt := d.rel(last.Time) + 1
		d.cutAttempt(last.Time+1, last.Seq)
		d.plan.Actions = append(d.plan.Actions, faults.Action{AtMs: crashAt, Kind: faults.ActCrash, RestartAfterMs: 1})
		d.note(last.Seq, "the log ends inside turn %d: the process died and the log was not reopened; the replay kills it 1 ms after its last event and restarts it, so crash repair's events follow the log's", d.turn)
	}
	if d.wakeMs >= 0 {
		d.wakeLost(last.Seq)
	}
	sortActions(d.plan.Actions)
	horizon := d.rel(last.Time) + 2
	for _, a := range d.plan.Actions {
		horizon = max(horizon, a.AtMs)
	}
	d.plan.HorizonMs = horizon
	d.plan.MaxParallelToolCalls = d.poolLimit()
	if !d.policyKnown && d.needsPolicy() {
		d.note(d.events[0].Seq, "no llm/retry names the retry policy: the replay runs the spec's default (%s)", d.plan.Policy.PolicyKey())
	}
	for len(d.replay.Draws) > 0 && len(d.replay.Draws[len(d.replay.Draws)-1].Floats) == 0 && len(d.replay.Draws[len(d.replay.Draws)-1].RetryIDs) == 0 {
		d.replay.Draws = d.replay.Draws[:len(d.replay.Draws)-1]
	}
	if len(d.replay.Draws) == 0 {
		d.replay.Draws = nil
	}
}

// needsPolicy reports whether any request of the log failed: only then does the policy matter.
func (d *deriver) needsPolicy() bool {
	return slices.ContainsFunc(d.plan.Answers, func(a faults.Answer) bool { return a.Fail != nil })
}
