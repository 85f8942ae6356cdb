package replaydiff

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/harness/filestore"
	"github.com/turnsim/turnsim/harness/provider/anthropic"
	"github.com/turnsim/turnsim/harness/provider/openai"
	"github.com/turnsim/turnsim/internal/faultserver"
	"github.com/turnsim/turnsim/sim"
)

// production plays a plan the way a production host runs an agent: the production runtime, the
// file store on a real file, a real adapter against the fault server, the plan's tools, the
// user's actions at their (wall-clock) times, and a crash as a kill: the process's requests are
// cut, its store closed under it (so nothing it does afterwards reaches the log), and a new
// process opens the log after the planned delay, crash repair included. Nothing of the simulator
// runs here but its tools (sim.PlanTools), which wait on the production runtime.
type production struct {
	plan    faults.Plan
	path    string
	quick   harness.Provider // for the answers the server stalls until the client gives up
	patient harness.Provider
	runtime harness.Runtime

	mu       sync.Mutex
	agent    *harness.Agent
	store    *filestore.Store
	kill     context.CancelFunc // cuts the current process's requests
	life     context.Context    // ends with the current process
	down     bool
	disposed bool
	up       chan struct{} // closed when a restart brings the agent back
	requests int
	failure  error // a restart that failed
}

// Adapters' request timeouts: stallTimeout ends a planned TIMEOUT without a status (the server
// stalls until the client gives up); answerTimeout is every other request's.
const (
	stallTimeout  = 150 * time.Millisecond
	answerTimeout = 30 * time.Second
)

// playProduction plays plan against the fault server at url with the named adapter, writing the
// session log at path, and returns once the agent settled (or an error saying why not).
func playProduction(plan faults.Plan, url, adapter, path string) error {
	p := &production{plan: plan, path: path, runtime: harness.NewProductionRuntime(nil)}
	var err error
	if p.quick, err = newAdapter(adapter, url, stallTimeout); err != nil {
		return err
	}
	if p.patient, err = newAdapter(adapter, url, answerTimeout); err != nil {
		return err
	}
	if err := p.start(); err != nil {
		return err
	}
	begin := time.Now()
	for _, a := range plan.Actions {
		time.Sleep(time.Until(begin.Add(time.Duration(a.AtMs) * time.Millisecond)))
		p.perform(a)
	}
	err = p.settle(time.Minute)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.failure != nil {
		return p.failure
	}
	if p.store != nil {
		if closeErr := p.store.Close(); err == nil {
			err = closeErr
		}
	}
	return err
}

// newAdapter is the named adapter on url with timeout; its name is its own ("openai",
// "anthropic"), which the replay must carry.
func newAdapter(adapter, url string, timeout time.Duration) (harness.Provider, error) {
	clk := clock.New()
	if adapter == "anthropic" {
		return anthropic.New(anthropic.Config{BaseURL: url, Model: "m", Clock: clk, Timeout: timeout})
	}
	return openai.New(openai.Config{BaseURL: url + "/v1", Model: "m", Clock: clk, Timeout: timeout})
}

// start opens the log and starts a process on it: the first, or one after a crash, which resumes
// from the log (crash repair closes a turn the crash left open) and is woken as a host wakes it.
func (p *production) start() error {
	store, opened, err := filestore.Open(p.path)
	if err != nil {
		return err
	}
	life, kill := context.WithCancel(context.Background())
	policy := p.plan.Policy
	agent, err := harness.New(harness.Config{
		Provider:             &process{p: p, life: life},
		Runtime:              p.runtime,
		Store:                store,
		RetryPolicy:          &policy,
		Tools:                sim.PlanTools(p.runtime),
		MaxParallelToolCalls: p.plan.MaxParallelToolCalls,
		ResumeFrom:           opened.History(),
	})
	if err != nil {
		kill()
		store.Close()
		return err
	}
	p.mu.Lock()
	p.agent, p.store, p.life, p.kill, p.down = agent, store, life, kill, false
	disposed := p.disposed
	p.mu.Unlock()
	if disposed {
		agent.Dispose() // disposed while it was down: it stays disposed
	}
	agent.Wake()
	return nil
}

// perform does one action of the plan, as the simulated world does; nothing while the agent is
// down, but a disposal, which the restart honours.
func (p *production) perform(a faults.Action) {
	p.mu.Lock()
	agent, down := p.agent, p.down
	if a.Kind == faults.ActDispose {
		p.disposed = true
	}
	p.mu.Unlock()
	if down {
		return
	}
	switch a.Kind {
	case faults.ActFollowup, faults.ActSteer, faults.ActInject:
		_, _ = agent.Send(harness.MessageKind(a.Kind), a.Text)
	case faults.ActCancel:
		_ = agent.Cancel(harness.CancelCause{Kind: a.Cause, Reason: a.Reason}, a.KeepInbox)
	case faults.ActDispose:
		_ = agent.Dispose()
	case faults.ActPluginEnd:
		agent.DisposeRetryPlugin()
	case faults.ActCrash:
		p.crash(time.Duration(a.RestartAfterMs) * time.Millisecond)
	}
}

// crash kills the process: its requests are cut and its store closed, so whatever its goroutines
// still do reaches neither the provider nor the log; the host restarts it after restartAfter.
func (p *production) crash(restartAfter time.Duration) {
	p.mu.Lock()
	if p.down || p.disposed {
		p.mu.Unlock()
		return
	}
	p.down, p.up = true, make(chan struct{})
	p.kill()
	_ = p.store.Close()
	up := p.up
	p.mu.Unlock()
	time.AfterFunc(restartAfter, func() {
		if err := p.start(); err != nil {
			p.mu.Lock()
			p.failure = err
			p.mu.Unlock()
		}
		close(up)
	})
}

// settle waits until the agent is idle, through restarts, for at most limit.
func (p *production) settle(limit time.Duration) error {
	deadline, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	for {
		p.mu.Lock()
		agent, down, up, life, failure := p.agent, p.down, p.up, p.life, p.failure
		p.mu.Unlock()
		switch {
		case failure != nil:
			return failure
		case down:
			select {
			case <-up:
				continue
			case <-deadline.Done():
				return errors.New("the agent was still down at the deadline")
			}
		}
		ctx, stop := context.WithCancel(deadline)
		context.AfterFunc(life, stop)
		err := agent.WhenIdle(ctx)
		stop()
		if err == nil {
			return nil
		}
		if deadline.Err() != nil {
			return errors.New("the agent did not settle in time")
		}
	}
}

// process is the provider as one process sees it: once the process is killed, its requests are
// cut and it sends no more.
type process struct {
	p    *production
	life context.Context
}

func (c *process) Name() string { return c.p.patient.Name() }

func (c *process) Stream(ctx context.Context, r harness.Request) (harness.Stream, error) {
	if c.life.Err() != nil {
		return nil, errors.New("replaydiff: the process is dead")
	}
	c.p.mu.Lock()
	index := c.p.requests
	c.p.requests++
	c.p.mu.Unlock()
	provider := c.p.patient
	if index < len(c.p.plan.Answers) && stalls(c.p.plan.Answers[index]) {
		provider = c.p.quick
	}
	ctx, cut := context.WithCancel(ctx)
	context.AfterFunc(c.life, cut)
	return provider.Stream(ctx, r)
}

// stalls reports whether the fault server answers a by stalling until the client times out.
func stalls(a faults.Answer) bool {
	return a.Fail != nil && !a.Fail.Plain && a.Fail.Code == harness.CodeTimeout && a.Fail.Status == 0
}

// scaled is plan with every time multiplied by factor (each at least 1 ms where it was positive),
// the policy's delays too, so that real timers play it quickly; the harness's own defaults are
// given as the policy they are.
func scaled(plan faults.Plan, factor float64) faults.Plan {
	s := func(ms int64) int64 {
		if ms <= 0 {
			return ms
		}
		return max(1, int64(math.Round(float64(ms)*factor)))
	}
	sf := func(ms float64) float64 {
		if ms <= 0 {
			return ms
		}
		return math.Max(1, math.Round(ms*factor))
	}
	plan.HarnessDefaults = false
	plan.Policy.InitialDelayMs = sf(plan.Policy.InitialDelayMs)
	plan.Policy.MaxDelayMs = math.Max(plan.Policy.InitialDelayMs, sf(plan.Policy.MaxDelayMs))
	plan.HorizonMs = s(plan.HorizonMs)
	answers := make([]faults.Answer, len(plan.Answers))
	for i, a := range plan.Answers {
		a.ChunkDelayMs = s(a.ChunkDelayMs)
		if a.Fail != nil {
			f := *a.Fail
			f.RetryAfterMs = sf(f.RetryAfterMs)
			a.Fail = &f
		}
		calls := make([]faults.Call, len(a.Calls))
		for j, c := range a.Calls {
			c.LatencyMs = s(c.LatencyMs)
			calls[j] = c
		}
		a.Calls = calls
		answers[i] = a
	}
	plan.Answers = answers
	actions := make([]faults.Action, len(plan.Actions))
	for i, a := range plan.Actions {
		a.AtMs, a.RestartAfterMs = s(a.AtMs), s(a.RestartAfterMs)
		actions[i] = a
	}
	plan.Actions = actions
	return plan
}

// productionLog plays the schedule of seed (the production mix, scaled) and returns its log.
func productionLog(t *testing.T, seed int64, dir string) ([]byte, error) {
	plan := scaled(productionPlan(seed), timeScale)
	adapter := "openai"
	if seed%2 == 0 {
		adapter = "anthropic"
	}
	fs, err := faultserver.New(faultserver.Config{Steps: faultserver.FromPlan(&plan), MaxRequests: 1000})
	if err != nil {
		return nil, err
	}
	ctx, stop := context.WithCancel(context.Background())
	url, stopped, err := faultserver.Listen(ctx, "127.0.0.1:0", fs)
	if err != nil {
		stop()
		return nil, err
	}
	defer func() { stop(); <-stopped }()
	path := filepath.Join(dir, "session.jsonl")
	if err := playProduction(plan, url, adapter, path); err != nil {
		return nil, err
	}
	return os.ReadFile(path)
}
