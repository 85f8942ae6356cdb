package sim

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness"
)

// The wire's adapters are built once and kept across runs: building one (its SDK client and
// options, the OpenAI SDK reading its environment) weighs as much as several of its requests.
// An adapter keeps no state between requests; what it holds of a run is its clock and runtime,
// which it reads through a binding the next run points at its own world. A run hands its
// adapters back once it is over and no task of it hung (releaseWire).

// wireBinding is the world a kept adapter serves: its runtime, and the clock the runtime reads.
type wireBinding struct {
	rt harness.Runtime
}

// Now is the bound world's clock.
func (b *wireBinding) Now() time.Time { return b.rt.Clock().Now() }

// wireRuntime is a harness.Runtime that is the bound world's.
type wireRuntime struct{ b *wireBinding }

func (r wireRuntime) Clock() harness.Clock            { return r.b }
func (r wireRuntime) Go(name string, fn func())       { r.b.rt.Go(name, fn) }
func (r wireRuntime) NewQueue(n string) harness.Queue { return r.b.rt.NewQueue(n) }
func (r wireRuntime) Sleep(d time.Duration, cancel ...context.Context) error {
	return r.b.rt.Sleep(d, cancel...)
}

// wireAdapters are a run's adapters on the wire, by protocol, bound to it.
type wireAdapters struct {
	binding  wireBinding
	client   *http.Client
	adapters map[string]harness.Provider
}

// keptWireAdapters lends adapters from run to run.
var keptWireAdapters = sync.Pool{New: func() any {
	a := &wireAdapters{adapters: map[string]harness.Provider{}}
	a.client = &http.Client{Transport: wireTransport{}}
	return a
}}

// takeWireAdapters is a set of adapters bound to rt.
func takeWireAdapters(rt harness.Runtime) *wireAdapters {
	a := keptWireAdapters.Get().(*wireAdapters)
	a.binding.rt = rt
	return a
}

// adapter is the adapter of protocol, built on first use.
func (a *wireAdapters) adapter(protocol string) harness.Provider {
	if p := a.adapters[protocol]; p != nil {
		return p
	}
	base := wireOpenAIURL
	if protocol == faults.ProtocolAnthropic {
		base = wireAnthURL
	}
	p, err := wireBuilders[protocol](WireConfig{BaseURL: base, Client: a.client, Clock: &a.binding, Runtime: wireRuntime{&a.binding}, Timeout: wireTimeout})
	if err != nil {
		panic(fmt.Sprintf("sim: invariant: the %s adapter refuses the wire's configuration: %v", protocol, err))
	}
	a.adapters[protocol] = p
	return p
}

// releaseWire hands the run's adapters back for the next run, unless a task of the run hung
// (and may still use them).
func (p *planProvider) releaseWire(hung bool) {
	if p.wire == nil || p.wire.adapters == nil {
		return
	}
	if !hung {
		p.wire.adapters.binding.rt = nil
		keptWireAdapters.Put(p.wire.adapters)
	}
	p.wire.adapters = nil
}
