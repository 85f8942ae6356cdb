package harness

import (
	"maps"
	"slices"
)

// The invariant layer's memory of the open step and of retry chains, as small slices searched
// in order rather than maps. A step holds a handful of calls and at most a few retry chains,
// and a map costs about a kilobyte the first time it is written (a swiss-table group sized for
// eight entries of these wide keys) and a hash per lookup: three maps per validator were the
// largest allocation of a replayed log, and a schedule replays its log several times.

// smallMap is a map of a few entries as a slice searched in order.
type smallMap[K comparable, V any] []smallEntry[K, V]

type smallEntry[K comparable, V any] struct {
	key   K
	value V
}

func (m smallMap[K, V]) find(key K) (V, bool) {
	for i := range m {
		if m[i].key == key {
			return m[i].value, true
		}
	}
	var zero V
	return zero, false
}

func (m *smallMap[K, V]) set(key K, value V) {
	for i := range *m {
		if (*m)[i].key == key {
			(*m)[i].value = value
			return
		}
	}
	*m = append(*m, smallEntry[K, V]{key, value})
}

func (m *smallMap[K, V]) remove(key K) {
	for i := range *m {
		if (*m)[i].key == key {
			*m = append((*m)[:i], (*m)[i+1:]...)
			return
		}
	}
}

// stepCalls are the open step's callIds: true once the call's tool/result is in.
type stepCalls = smallMap[string, bool]

// stepCallsRoom is the room a validator's step calls start with: a step asks for a few calls, and
// growing the list one doubling at a time took two or three allocations for a step of three.
const stepCallsRoom = 4

// stepChains are the open step's retry chains: a chain never outlives its step.
type stepChains = smallMap[ChainKey, ChainState]

// startedKey names an llm/retry by its retryId and retry number.
type startedKey struct {
	retryID string
	retry   int
}

// awaitingStarts are the llm/retry events waiting for their llm/retry-started, with the turn
// and step each was written in: one per chain at most, since a chain's next retry follows its
// start.
type awaitingStarts = smallMap[startedKey, StepStart]

// retryIDs are the retryIds of every chain in the log, which must be unique across chains. A
// long log has many: past retryIDsSmall they are indexed by a map as well.
type retryIDs struct {
	list  []string
	index map[string]struct{}
}

// retryIDsSmall is how many retryIds are searched in order before a map indexes them.
const retryIDsSmall = 16

// retryIDsRoom is the room the list of retryIds starts with: a log with retries usually has a few
// chains, which grew the list one doubling at a time.
const retryIDsRoom = 4

func (r *retryIDs) has(id string) bool {
	if r.index != nil {
		_, ok := r.index[id]
		return ok
	}
	for _, known := range r.list {
		if known == id {
			return true
		}
	}
	return false
}

func (r *retryIDs) add(id string) {
	if r.index != nil {
		r.index[id] = struct{}{}
		return
	}
	if r.has(id) {
		return
	}
	if r.list == nil {
		r.list = make([]string, 0, retryIDsRoom)
	}
	r.list = append(r.list, id)
	if len(r.list) > retryIDsSmall {
		r.index = make(map[string]struct{}, 2*len(r.list))
		for _, known := range r.list {
			r.index[known] = struct{}{}
		}
		r.list = nil
	}
}

// retryRoom is where a validator's retry state starts, made at the log's first llm/retry: one
// allocation for what were four (the step's chains, the retries awaiting their start, the
// retryIds and the first chain's delays), each sized for the usual log: one chain at a time,
// a few in all. The lists grow out of it as any slice does.
type retryRoom struct {
	chains   [1]smallEntry[ChainKey, ChainState]
	awaiting [1]smallEntry[startedKey, StepStart]
	ids      [retryIDsRoom]string
	delays   [1]float64
}

// takeRetryRoom starts the validator's chains, awaited starts and retryIds in a new retryRoom,
// and returns the room for the first chain's delays: empty, clipped to one (a chain's delays are
// handed out, so they must never be written past by another chain).
func (v *Validator) takeRetryRoom() []float64 {
	room := new(retryRoom)
	v.chains, v.awaitingStart, v.retryOwners.list = room.chains[:0], room.awaiting[:0], room.ids[:0]
	return room.delays[:0:1]
}

// clone returns a copy of the validator that shares nothing either may change: the step's calls,
// chains and awaited starts are changed in place, so they are copied; the retryIds are only
// appended to, so the copy's list is clipped (an append to it copies) and its index copied.
// A chain's DelaysMs is shared: apply never changes one in place, it appends to a clipped copy.
func (v *Validator) clone() Validator {
	c := *v
	c.calls = slices.Clone(v.calls)
	c.chains = slices.Clone(v.chains)
	c.awaitingStart = slices.Clone(v.awaitingStart)
	c.retryOwners.list = slices.Clip(v.retryOwners.list)
	if v.retryOwners.index != nil {
		c.retryOwners.index = maps.Clone(v.retryOwners.index)
	}
	return c
}
