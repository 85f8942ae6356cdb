package harness

import (
	"maps"
	"slices"
)

// The invariant layer's memory of the open step and of retry chains, as small slices searched
// in order rather than maps: a step holds a handful of calls and at most a few retry chains, so
// a search of them is as quick as a lookup, and the validator stays cheap to clone.

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
	r.list = append(r.list, id)
	if len(r.list) > retryIDsSmall {
		r.index = make(map[string]struct{}, 2*len(r.list))
		for _, known := range r.list {
			r.index[known] = struct{}{}
		}
		r.list = nil
	}
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
