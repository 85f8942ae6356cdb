package harness

import (
	"fmt"
	"slices"
	"sync"

	"github.com/turnsim/turnsim/internal/plant"
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
type Session struct {
	mu        sync.Mutex
	clock     Clock
	store     Store
	validator *Validator
	events    []Event
	observers []func(Event)
}

// NewSession returns an empty session that stamps events with clock and writes them to store
// (nil: MemoryStore).
func NewSession(clock Clock, store Store) *Session {
	if store == nil {
		store = MemoryStore{}
	}
	return &Session{clock: clock, store: store, validator: NewValidator()}
}

// restore takes in a log written earlier (by a process that may have crashed), checking every
// event with the invariant layer. The events are already in the store: nothing is written.
func (s *Session) restore(events []Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.events) > 0 {
		return fmt.Errorf("harness: history: the session already holds %d events", len(s.events))
	}
	for _, e := range events {
		if err := s.validator.Append(e); err != nil {
			return fmt.Errorf("harness: history: %w", err)
		}
	}
	s.events = slices.Clone(events)
	return nil
}

// Append writes one event. A refusal by the invariant layer (*InvariantError) or by the store
// leaves the log unchanged.
func (s *Session) Append(data EventData) (Event, error) {
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
	if e.Type == TypeAssistantChunk && plant.On(plant.ChunkNotWrittenThrough) {
		// the planted bug: acknowledged, never written
	} else if err := s.store.Append(e); err != nil {
		return Event{}, err
	}
	s.validator.apply(e)
	s.events = append(s.events, e)
	for _, observe := range s.observers {
		observe(e)
	}
	return e, nil
}

// Observe registers fn to be called with every event after it is appended. fn runs while the
// session is locked, in the appending task: it must be quick and must not append.
func (s *Session) Observe(fn func(Event)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.observers = append(s.observers, fn)
}

// Events returns a copy of the log so far.
func (s *Session) Events() []Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.events)
}

// Len returns how many events the log holds.
func (s *Session) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.events)
}

// Chain returns a retry chain's state as the log records it.
func (s *Session) Chain(key ChainKey) (ChainState, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.validator.Chain(key)
}
