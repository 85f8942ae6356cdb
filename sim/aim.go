package sim

import (
	"time"

	"github.com/turnsim/turnsim/faults"
)

// The world's aimed faults (faults/aim.go): actions armed at a time that wait for their moment.
// An at-timer action lands in the instant a timer of its kind runs out: when such a timer starts,
// a task of the world's starts a timer of its own for the same instant, and the scheduler orders
// the two as the seed draws. A during-tool action lands a drawn time into a call of its tool, if
// the call still runs then. An at-site action lands at a preemption point of the harness
// (harness.Preempter), from the agent's own task, where no lock is held. Each lands by doing its
// Then as the user would (perform), once, and that is when it strikes: the world's own record of
// the moment it aimed at, not of what the harness made of it.

// aimer holds the world's armed aimed actions. The tracer points at it (nil when the plan has
// none), so that the tools and the provider, which see only the tracer, reach it.
type aimer struct {
	world *world
	armed []armedAim
	// canceller is set while a during-tool action waits for its moment in a task of its own.
	canceller bool
	// resend is the input of the user's call a during-tool cancel cut short, and resendTool its
	// tool: the next call the model asks of that tool asks again with it (resent). pendingInput
	// and pendingTool are the call the canceller waits in.
	resend, resendTool        string
	pendingInput, pendingTool string
}

// armedAim is an aimed action whose time has come. plan is the plan's own action, read only.
type armedAim struct {
	action int
	plan   *faults.Action
	// primed is set once the refusal an at-site action waits for (AfterRefused) has come.
	primed bool
	fired  bool
}

// newAimer is the aimer of a world whose plan has aimed actions (nil without).
func newAimer(w *world) *aimer {
	if w.planned.aimed == 0 || w.scheduler == nil {
		return nil // off the scheduler the moments could not be ordered, as with races
	}
	return &aimer{world: w, armed: make([]armedAim, 0, w.planned.aimed)}
}

// arm arms the action-th action of the plan, a, now that its time has come.
func (m *aimer) arm(action int, a *faults.Action) {
	m.armed = append(m.armed, armedAim{action: action, plan: m.world.plannedAction(action, a)})
}

// next is the first armed action of kind that has not fired and for which match holds, or nil.
func (m *aimer) next(kind string, match func(arm *armedAim) bool) *armedAim {
	if m == nil {
		return nil
	}
	for i := range m.armed {
		arm := &m.armed[i]
		if !arm.fired && arm.plan.Kind == kind && match(arm) {
			return arm
		}
	}
	return nil
}

// land does what the armed action aims: its Then, as the user would do it, in the user's script
// where the user has come to (the order the properties read: a send the user made later is later).
func (m *aimer) land(arm *armedAim) {
	then := *arm.plan
	then.Kind = arm.plan.Then
	m.world.perform(m.world.reached, &then)
}

// timerStarted is told that a timer of kind (faults.Timers) starts now for d: an armed at-timer
// action of that kind lands at the same instant, from a task of its own.
func (m *aimer) timerStarted(kind string, d time.Duration) {
	arm := m.next(faults.ActAtTimer, func(arm *armedAim) bool { return arm.plan.Timer == kind })
	if arm == nil {
		return
	}
	arm.fired = true
	w := m.world
	w.rt.Go("aimed action at a timer", func() {
		if w.rt.Sleep(d) == nil {
			m.land(arm)
		}
	})
}

// userToolStarted is toolStarted for a call of the user's tool with input: a cancel that cuts it
// short has the model ask for it again (resent), as a user re-sends a request it never heard
// back from.
func (m *aimer) userToolStarted(tool, input string, index int) {
	m.toolStarted(tool, 0, index)
	if m.canceller && m.pendingInput == "" {
		m.pendingTool, m.pendingInput = tool, input
	}
}

// resent is the input the model's next call of tool asks again with, once, if a during-tool
// cancel cut a call of it short.
func (m *aimer) resent(tool string) (string, bool) {
	if m == nil || m.resendTool != tool || m.resend == "" {
		return "", false
	}
	input := m.resend
	m.resend, m.resendTool = "", ""
	return input, true
}

// toolStarted is told that a call of tool starts now (the user's tool itself, or turnsim's
// simulated one with its planned latency latencyMs), its run recorded at index of the trace's
// tools: an armed during-tool action for it lands AfterMs into the call, if the call still runs
// then, or waits for the next call.
func (m *aimer) toolStarted(tool string, latencyMs int64, index int) {
	if m == nil || m.canceller {
		return
	}
	arm := m.next(faults.ActDuringTool, func(arm *armedAim) bool { return arm.plan.Tool == "" || arm.plan.Tool == tool })
	if arm == nil {
		return
	}
	after := arm.plan.AfterMs
	// With the user's tools a call's moment starts when the user's tool runs, after the planned
	// latency the world plays in front of it.
	if m.world.userTools == nil && latencyMs > 0 {
		after %= latencyMs // turnsim's own call lasts its latency: land inside it
	}
	m.canceller = true
	w := m.world
	w.rt.Go("aimed action during a tool call", func() {
		defer func() { m.canceller, m.pendingTool, m.pendingInput = false, "", "" }()
		w.rt.Sleep(ms(after))
		t := w.tracer
		t.mu.Lock()
		running := t.trace.Tools[index].EndMs < 0
		t.mu.Unlock()
		if running {
			arm.fired = true
			m.resendTool, m.resend = m.pendingTool, m.pendingInput
			m.land(arm)
		}
	})
}

// refused is told that the store refused an append of type kind: the armed at-site actions
// waiting for that are primed.
func (m *aimer) refused(kind string) {
	if m == nil {
		return
	}
	for i := range m.armed {
		if arm := &m.armed[i]; !arm.fired && arm.plan.AfterRefused == kind {
			arm.primed = true
		}
	}
}

// atSite is told that the agent reached the preemption point site: an armed at-site action for
// it (primed, if it waits for a refusal) lands here, in the agent's task.
func (m *aimer) atSite(site string) {
	arm := m.next(faults.ActAtSite, func(arm *armedAim) bool {
		return arm.plan.Site == site && (arm.plan.AfterRefused == "" || arm.primed)
	})
	if arm == nil || m.world.down {
		return
	}
	arm.fired = true
	m.land(arm)
}
