package faults

// faultCount is the number of faults in the catalogue: a constant, so that a drawer's table of
// rates is an array.
const faultCount = len(catalogueTable)

// swarmRates is a swarm as a table indexed by catalogue position: the drawer asks about the
// faults by position (the ...At variables below), for every answer and every call it draws.
type swarmRates struct {
	on   [faultCount]bool
	rate [faultCount]float64
}

// fill copies the swarm into the table. A name outside the catalogue has no place in it, and
// the drawer never asks about one: it draws the catalogue's faults only.
func (r *swarmRates) fill(swarm Swarm) {
	for name, rate := range swarm {
		r.set(name, rate)
	}
}

// swarm is the table as a Swarm, sized for the switchedOn faults the table has on.
func (r *swarmRates) swarm(switchedOn int) Swarm {
	swarm := make(Swarm, switchedOn)
	for i, on := range r.on {
		if on {
			swarm[catalogue[i].Name] = r.rate[i]
		}
	}
	return swarm
}

// set puts a fault switched on at rate in the table: nothing for a name outside the catalogue.
func (r *swarmRates) set(name string, rate float64) {
	if i := faultIndex(name); i >= 0 {
		r.on[i], r.rate[i] = true, rate
	}
}

// hasAt reports whether the swarm switches on the fault at catalogue position i.
func (d *drawer) hasAt(i int) bool { return d.rates.on[i] }

// Catalogue positions of the faults drawCall, toolCallAnswer, drawPlan and drawActions ask
// about, found once.
var (
	toolUnknownAt           = cataloguePosition(ToolUnknown)
	toolLatencyAt           = cataloguePosition(ToolLatency)
	toolLongLatencyAt       = cataloguePosition(ToolLongLatency)
	toolPanicAt             = cataloguePosition(ToolPanic)
	toolErrorAt             = cataloguePosition(ToolError)
	toolGoexitAt            = cataloguePosition(ToolGoexit)
	toolFailureAt           = cataloguePosition(ToolFailure)
	toolIgnoresCancelAt     = cataloguePosition(ToolIgnoresCancel)
	callIDReuseAt           = cataloguePosition(CallIDReuse)
	contextWindowExceededAt = cataloguePosition(ContextWindowExceeded)
	appendRefusedAt         = cataloguePosition(AppendRefused)
	storeOutageAt           = cataloguePosition(StoreOutage)
	slowCompactionAt        = cataloguePosition(SlowCompaction)
	followupAt              = cataloguePosition(Followup)
	steerAt                 = cataloguePosition(Steer)
	injectAt                = cataloguePosition(Inject)
	cancelUserAt            = cataloguePosition(CancelUser)
	cancelParentAt          = cataloguePosition(CancelParent)
	cancelHookAt            = cataloguePosition(CancelHook)
	disposeAt               = cataloguePosition(Dispose)
	pluginEndAt             = cataloguePosition(PluginEnd)
	crashAt                 = cataloguePosition(Crash)
	tornWriteAt             = cataloguePosition(TornWrite)
	powerLossAt             = cataloguePosition(PowerLoss)
	observerCallbackAt      = cataloguePosition(ObserverCallback)
	sendCancelRaceAt        = cataloguePosition(SendCancelRace)
	maintenanceAt           = cataloguePosition(Maintenance)
	// The aimed faults' (aim.go).
	preemptionAt                 = cataloguePosition(Preemption)
	cancelAtTimerAt              = cataloguePosition(CancelAtTimer)
	cancelDuringToolAt           = cataloguePosition(CancelDuringTool)
	disposeBetweenCheckAndWaitAt = cataloguePosition(DisposeBetweenCheckAndWait)
	wakeDuringFailedTurnAt       = cataloguePosition(WakeDuringFailedTurn)
	powerLossAfterCutBackAt      = cataloguePosition(PowerLossAfterCutBack)
)

// cataloguePosition is faultIndex(fault) for a fault that must have a place in the table.
func cataloguePosition(fault string) int {
	i := faultIndex(fault)
	if i < 0 {
		panic("faults: invariant: fault " + fault + " has no catalogue position in faultIndex")
	}
	return i
}

// faultIndex is a fault's position in the catalogue, or -1 for a name outside it. The compiler
// turns a switch on constant strings into comparisons of lengths and single bytes and one
// comparison of the whole name: no hashing. A fault missing here is left out of the table DrawPlan
// fills from its swarm (TestFaultIndexIsCataloguePosition says which one is missing).
func faultIndex(name string) int {
	switch name {
	case RateLimit:
		return 0
	case RateLimitAfterBelow:
		return 1
	case RateLimitAfterEqual:
		return 2
	case RateLimitAfterAbove:
		return 3
	case RetryAfterInvalid:
		return 4
	case Server:
		return 5
	case Timeout:
		return 6
	case Transport:
		return 7
	case EmptyResponse:
		return 8
	case ContextWindowExceeded:
		return 9
	case PlainError:
		return 10
	case FailMidStream:
		return 11
	case MaxTokens:
		return 12
	case ToolCalls:
		return 13
	case SlowStream:
		return 14
	case ToolLatency:
		return 15
	case ToolLongLatency:
		return 16
	case ToolError:
		return 17
	case ToolPanic:
		return 18
	case ToolUnknown:
		return 19
	case ToolIgnoresCancel:
		return 20
	case Steer:
		return 21
	case Inject:
		return 22
	case Followup:
		return 23
	case CancelUser:
		return 24
	case CancelParent:
		return 25
	case CancelHook:
		return 26
	case Dispose:
		return 27
	case PluginEnd:
		return 28
	case AppendRefused:
		return 29
	case Crash:
		return 30
	case TornWrite:
		return 31
	case StoreOutage:
		return 32
	case ObserverCallback:
		return 33
	case SendCancelRace:
		return 34
	case SlowCompaction:
		return 35
	case WrappedFailure:
		return 36
	case StreamIgnoresCancel:
		return 37
	case PowerLoss:
		return 38
	case ToolGoexit:
		return 39
	case ProviderGoexit:
		return 40
	case CallIDReuse:
		return 41
	case ProviderNilStream:
		return 42
	case ToolFailure:
		return 43
	case Maintenance:
		return 44
	case Preemption:
		return 45
	case CancelAtTimer:
		return 46
	case CancelDuringTool:
		return 47
	case DisposeBetweenCheckAndWait:
		return 48
	case WakeDuringFailedTurn:
		return 49
	case PowerLossAfterCutBack:
		return 50
	case WireRetryAfterMs:
		return 51
	case WireRetryAfterSeconds:
		return 52
	case WireRetryAfterDate:
		return 53
	case WireRetryAfterJunk:
		return 54
	case WireStatus:
		return 55
	case WireContextOverflow:
		return 56
	case WireQuota:
		return 57
	case WireStreamError:
		return 58
	case WireMalformedEvent:
		return 59
	case WireCut:
		return 60
	case WireStall:
		return 61
	case WireFinishReason:
		return 62
	case WireEmptyArguments:
		return 63
	}
	return -1
}
