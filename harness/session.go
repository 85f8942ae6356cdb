package harness

import (
	"fmt"
	"slices"
	"sync"
)

// Store is where a session's events go. The session hands an event to the store only after the
// invariant layer accepted it, and takes it in only after the store accepted it, so a store that
// refuses (a full disk, a broken pipe) leaves the log as it was. A store's refusal is an
// infrastructure failure, not a model failure: the turn that hit it ends in error.
type Store interface {
	Append(e Event) error
}

// MemoryStore keeps nothing beyond what the session itself holds; it never refuses.
type MemoryStore struct{}

// Append accepts every event.
func (MemoryStore) Append(Event) error { return nil }

// Session is the agent's append-only event log. Every append is stamped with the next seq and the
// injected clock's time, checked by the invariant layer, written to the store, and then shown to
// observers. It is safe for concurrent use: tool tasks and the turn loop append to it alike.
//
// Observers run with no lock held (see deliver), so an observer may call back into the session
// or the agent: append, send, cancel.
type Session struct {
	mu        sync.Mutex
	clock     Clock
	store     Store
	validator Validator // the zero Validator, its maps made as the log needs them
	events    []Event
	observers []func(Event)
	// pending are appended events not yet shown to observers, oldest first; delivering is set
	// while some task shows them (one at a time, so every observer sees the log's order).
	pending    []Event
	delivering bool
	// onObserverPanic hears an observer that panicked (the agent reports it as agent/error).
	onObserverPanic observerPanicHandler
}

// observerPanicHandler hears a session observer's contained panic: the *Agent that owns the
// session.
type observerPanicHandler interface {
	observerPanicked(e Event, recovered any)
}

// NewSession returns an empty session that stamps events with clock and writes them to store
// (nil: MemoryStore).
func NewSession(clock Clock, store Store) *Session {
	return newSession(clock, store, sessionEventsCap)
}

// newSession is NewSession with space for capacity events. An agent resuming from a history
// passes 0: the history brings the log (resumeFrom).
func newSession(clock Clock, store Store, capacity int) *Session {
	if store == nil {
		store = MemoryStore{}
	}
	s := &Session{clock: clock, store: store}
	if capacity > 0 {
		s.events = make([]Event, 0, capacity)
	}
	return s
}

// sessionEventsCap is how many events a new session's log has space for before it grows: a
// session usually logs a few dozen.
const sessionEventsCap = 32

// resumeFrom takes in a log written earlier (by a process that may have crashed), validated
// (ValidatedHistory), without judging its events again: the history's invariant state, which
// they left, becomes the session's, and its events its log. The events are already in the
// store: nothing is written.
func (s *Session) resumeFrom(h *ValidatedHistory) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.events) > 0 {
		return fmt.Errorf("harness: history: the session already holds %d events", len(s.events))
	}
	// The resumed session goes on writing, as a new one does: its log has the same space to grow.
	history := h.Events()
	s.events = append(make([]Event, 0, len(history)+sessionEventsCap), history...)
	s.validator = h.Validator()
	return nil
}

// Append writes one event. A refusal by the invariant layer (*InvariantError) or by the store
// leaves the log unchanged. Observers are shown the event before Append returns, unless another
// task is showing them earlier events: then that task shows this one too, in order.
func (s *Session) Append(data EventData) (Event, error) {
	e, err := s.appendQuiet(data)
	if err == nil {
		s.deliver()
	}
	return e, err
}

// appendQuiet writes one event and queues it for the observers without showing it to them: the
// agent appends so while it holds its own lock, and calls deliver once it has let go, so that
// an observer calling back into the agent cannot deadlock on that lock.
func (s *Session) appendQuiet(data EventData) (Event, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := Event{
		Seq:  int64(len(s.events)) + 1,
		Type: data.EventType(),
		Time: s.clock.Now().UnixMilli(),
		Data: data,
	}
	if err := s.validator.Check(e); err != nil {
		return Event{}, err
	}
	if err := s.store.Append(e); err != nil {
		return Event{}, err
	}
	s.validator.apply(e)
	s.events = append(s.events, e)
	if len(s.observers) > 0 {
		s.pending = append(s.pending, e)
	}
	return e, nil
}

// deliver shows the pending events to the observers, in log order, with no lock held. One task
// delivers at a time; a task that finds another delivering leaves its events to it, so an
// observer that appends (directly, or by calling the agent) has its events shown after the one
// it is observing, never from inside it. An observer that panics is contained: the others still
// see the event, and onObserverPanic hears of it.
func (s *Session) deliver() {
	s.mu.Lock()
	if s.delivering {
		s.mu.Unlock()
		return
	}
	s.delivering = true
	// By index: an observer's own appends join the list while it is being shown.
	for i := 0; i < len(s.pending); i++ {
		e := s.pending[i]
		observers := s.observers
		s.mu.Unlock()
		for _, observe := range observers {
			s.observe(observe, e)
		}
		s.mu.Lock()
	}
	clear(s.pending)
	s.pending = s.pending[:0]
	s.delivering = false
	s.mu.Unlock()
}

// observe calls one observer, containing a panic.
func (s *Session) observe(fn func(Event), e Event) {
	defer func() {
		if recovered := recover(); recovered != nil {
			s.mu.Lock()
			report := s.onObserverPanic
			s.mu.Unlock()
			if report != nil {
				report.observerPanicked(e, recovered)
			}
		}
	}()
	fn(e)
}

// Observe registers fn to be called with every event appended from now on. fn runs in the task
// that appended the event (or that was showing earlier events), with no lock held: it may call
// the session and the agent (WhenIdle excepted, from the turn loop's own task). A panic in fn is
// contained and reported as agent/error.
func (s *Session) Observe(fn func(Event)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	// Appended to a copy: a delivery that holds the list keeps seeing it as it was.
	s.observers = append(slices.Clip(s.observers), fn)
}

// Events returns a copy of the log so far.
func (s *Session) Events() []Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.events)
}

// AppendEvents appends the log so far to buf and returns the result: Events into a buffer the
// caller sized, for a caller that goes on appending to its copy (the simulator's record of what
// an incarnation acknowledged), which Events' exact-length copy would make regrow at once.
func (s *Session) AppendEvents(buf []Event) []Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append(buf, s.events...)
}

// Log returns the log so far without copying it: for a reader that keeps the log as it grows
// (the simulator's record of what an incarnation acknowledged, taken after every event). The
// session only ever appends, and never changes an event it holds, so what Log returned never
// changes: later events go past its end (clipped, so that an append to it copies instead). It
// must not be modified.
func (s *Session) Log() []Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clip(s.events)
}

// Len returns how many events the log holds.
func (s *Session) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.events)
}

// lastTurn is the number of the last turn the log started (0 if none).
func (s *Session) lastTurn() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, _, last := s.validator.OpenTurn()
	return last
}

// Chain returns a retry chain's state as the log records it.
func (s *Session) Chain(key ChainKey) (ChainState, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.validator.Chain(key)
}
