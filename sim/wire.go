package sim

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/properties"
)

// The wire: answers that go as bytes to a real provider adapter. A seed's wire draw
// (faults.DrawWire) gives some of its answers a Wire form; the world then sends each of them as
// the HTTP response and server-sent events of OpenAI's or Anthropic's API (internal/wireplay,
// which simrun serve's fault server shares) over an in-memory http.RoundTripper to the real
// adapter (harness/provider/openai or anthropic), whose stream the harness reads as it reads any
// provider's. No socket: the transport hands the adapter's HTTP client a response whose body's
// reads wait through the world's runtime, so chunk delays and silences are virtual and a cancel
// ends them at once; and the adapters time their request deadline through the same runtime
// (their Config.Runtime). The other answers are the provider model's, as in every seed.
//
// sim itself does not link the adapters, so that importing it pulls no provider SDK into a
// user's build: package sim/wire registers them (RegisterWire) when imported. simrun imports it;
// so may a user's command, with a blank import. Without it no seed draws a wire (the default mix
// is then what it always was), and a schedule whose plan asks for the wire is refused by
// Validate, with the import to add.

// WireImport is the package that registers the real adapters for the wire.
const WireImport = "github.com/turnsim/turnsim/sim/wire"

// WireConfig is what the world gives an adapter it builds for the wire: where to send (an API
// root on no real host: the Client's transport answers), the client whose transport is the
// wire, the harness's clock and runtime, and the request deadline.
type WireConfig struct {
	BaseURL string
	Client  *http.Client
	Clock   harness.Clock
	Runtime harness.Runtime
	Timeout time.Duration
}

// WireBuilder builds a provider adapter that speaks one protocol over cfg.
type WireBuilder func(cfg WireConfig) (harness.Provider, error)

// wireBuilders are the registered adapters, by protocol: written only by RegisterWire from an
// init function, before any run, then only read.
var wireBuilders = map[string]WireBuilder{}

// RegisterWire makes build the adapter the wire runs for protocol (faults.ProtocolOpenAI or
// faults.ProtocolAnthropic). Call it from an init function (sim/wire does): once both protocols
// have one, seeds draw wires.
func RegisterWire(protocol string, build WireBuilder) {
	if protocol != faults.ProtocolOpenAI && protocol != faults.ProtocolAnthropic {
		panic(fmt.Sprintf("sim: RegisterWire: protocol %q is not %s or %s", protocol, faults.ProtocolOpenAI, faults.ProtocolAnthropic))
	}
	wireBuilders[protocol] = build
}

// WireRegistered reports whether the wire's adapters are registered (sim/wire is imported).
func WireRegistered() bool {
	return wireBuilders[faults.ProtocolOpenAI] != nil && wireBuilders[faults.ProtocolAnthropic] != nil
}

// streamWire is the seed's random stream for its wire draw: apart from the plan's, so that a
// binary without the wire draws the same plans, and one with it differs only on the wire.
const streamWire uint64 = 0x77697265 // "wire"

// withWire is plan with its wire drawn, when the wire is registered (the wire's swarm too, for
// the schedule's record; nil when the seed draws none).
func withWire(seed int64, allowed []string, plan faults.Plan) (faults.Plan, faults.Swarm) {
	if !WireRegistered() {
		return plan, nil
	}
	swarm := faults.DrawWire(deriveSeed(seed, streamWire), &plan, allowed)
	return plan, swarm
}

// needsWire refuses a plan that sends answers over the wire in a binary without it.
func needsWire(plan *faults.Plan) error {
	if WireRegistered() {
		return nil
	}
	for i := range plan.Answers {
		if plan.Answers[i].Wire != nil {
			return fmt.Errorf("sim: schedule: plan.answers[%d] goes over the wire to a real adapter, which this binary does not link: add import _ %q", i, WireImport)
		}
	}
	return nil
}

// CheckFaults refuses a list of allowed faults (simrun's -faults) that names a fault of the wire
// in a binary without it: no seed could strike it. The message names the import that would.
func CheckFaults(allowed []string) error {
	if WireRegistered() {
		return nil
	}
	for _, name := range allowed {
		if f, ok := faults.Lookup(name); ok && f.Group == faults.GroupWire {
			return fmt.Errorf("sim: fault %s goes over the wire to a real adapter, which this binary does not link: add import _ %q", name, WireImport)
		}
	}
	return nil
}

// The wire's constants: the request deadline the world gives every adapter, and how long the
// world itself stays silent (a stall) before it cuts the connection, should an adapter not give
// up: far past the deadline, so that only an adapter that ignores its deadline meets it.
const (
	wireTimeout   = 3 * time.Second
	wireStallMax  = 120 * time.Second
	wireOpenAIURL = "http://wire.turnsim.test/v1"
	wireAnthURL   = "http://wire.turnsim.test"
)

// wireRoute is a world's wire: its adapters (kept from run to run: wireadapters.go), and the ids
// of the calls it sent with no arguments, which later requests must carry back as objects.
type wireRoute struct {
	adapters *wireAdapters
	emptyIDs []string
}

// wireStream sends the answer to request over the wire: it records the request (as Stream does
// for the model), hands the harness's request to the real adapter with the exchange in its
// context for the transport to find, and records the request's end when the adapter's stream
// (or Stream itself) ends.
func (p *planProvider) wireStream(ctx context.Context, request harness.Request, answer *faults.Answer) (harness.Stream, error) {
	if p.wire == nil {
		p.wire = &wireRoute{adapters: takeWireAdapters(p.runtime)}
	}
	record := p.newRequestRecord(request, answer)
	w := answer.Wire
	switch {
	case answer.Fail != nil:
		record.Failed, record.FailCode = true, answer.Fail.Code
	case w.Malformed, w.Cut:
		record.Failed, record.FailCode = true, harness.CodeTransport
	case w.Stall:
		record.Failed, record.FailCode = true, harness.CodeTimeout
	case answer.Chunks == 0 && len(answer.Calls) == 0:
		record.Failed, record.FailCode = true, harness.CodeEmptyResponse
	}
	index := p.recordRequest(record)
	p.tracer.mu.Lock()
	p.tracer.trace.Wire = append(p.tracer.trace.Wire, properties.WireExchange{Request: index, Protocol: protocolName(w.Protocol), TimeoutMs: wireTimeout.Milliseconds()})
	exchange := len(p.tracer.trace.Wire) - 1
	p.tracer.mu.Unlock()
	ex := &wireExchange{route: p.wire, stream: planStream{provider: p, answer: answer, index: index}, exchange: exchange, parent: ctx, request: request}
	adapter := p.wire.adapters.adapter(protocolName(w.Protocol))
	stream, err := adapter.Stream(context.WithValue(ctx, wireKey{}, ex), request)
	if err != nil {
		ex.stream.ended()
		return nil, err
	}
	return &wireStream{inner: stream, ex: ex}, nil
}

// protocolName is a wire form's protocol, OpenAI's when it names none.
func protocolName(protocol string) string {
	if protocol == "" {
		return faults.ProtocolOpenAI
	}
	return protocol
}

// wireStream is the adapter's stream, recording the request's end when it ends.
type wireStream struct {
	inner harness.Stream
	ex    *wireExchange
}

func (s *wireStream) Next(ctx context.Context) (harness.Chunk, error) {
	chunk, err := s.inner.Next(ctx)
	if err != nil {
		s.ex.stream.ended()
	}
	return chunk, err
}
