package harness

// The invariant layer's memory of the open step and of retry chains, as small slices searched
// in order rather than maps. A step holds a handful of calls and at most a few retry chains,
// and a map costs about a kilobyte the first time it is written (a swiss-table group sized for
// eight entries of these wide keys) and a hash per lookup: three maps per validator were the
// largest allocation of a replayed log, and a schedule replays its log several times.

// stepCall is one callId of the open step: resulted once its tool/result is in.
type stepCall struct {
	id       string
	resulted bool
}

// stepCalls are the open step's calls, in the order first seen.
type stepCalls []stepCall

// find reports whether id was called (or resulted) in the open step, and whether its result is in.
func (c stepCalls) find(id string) (resulted, seen bool) {
	for i := range c {
		if c[i].id == id {
			return c[i].resulted, true
		}
	}
	return false, false
}

// set records id as called (resulted false) or resulted.
func (c *stepCalls) set(id string, resulted bool) {
	for i := range *c {
		if (*c)[i].id == id {
			(*c)[i].resulted = resulted
			return
		}
	}
	*c = append(*c, stepCall{id, resulted})
}

// chainEntry is one retry chain of the open step.
type chainEntry struct {
	key   ChainKey
	state ChainState
}

// stepChains are the open step's retry chains: a chain never outlives its step.
type stepChains []chainEntry

func (c stepChains) find(key ChainKey) (ChainState, bool) {
	for i := range c {
		if c[i].key == key {
			return c[i].state, true
		}
	}
	return ChainState{}, false
}

func (c *stepChains) set(key ChainKey, state ChainState) {
	for i := range *c {
		if (*c)[i].key == key {
			(*c)[i].state = state
			return
		}
	}
	*c = append(*c, chainEntry{key, state})
}

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

// awaiting is an llm/retry not yet paired with its llm/retry-started.
type awaiting struct {
	retryID string
	retry   int
	at      StepStart // the turn and step it was written in
}

// awaitingStarts are the llm/retry events waiting for their llm/retry-started: one per chain
// at most, since a chain's next retry follows its start.
type awaitingStarts []awaiting

func (a awaitingStarts) find(retryID string, retry int) (StepStart, bool) {
	for i := range a {
		if a[i].retryID == retryID && a[i].retry == retry {
			return a[i].at, true
		}
	}
	return StepStart{}, false
}

func (a *awaitingStarts) set(retryID string, retry int, at StepStart) {
	for i := range *a {
		if (*a)[i].retryID == retryID && (*a)[i].retry == retry {
			(*a)[i].at = at
			return
		}
	}
	*a = append(*a, awaiting{retryID, retry, at})
}

func (a *awaitingStarts) remove(retryID string, retry int) {
	for i := range *a {
		if (*a)[i].retryID == retryID && (*a)[i].retry == retry {
			*a = append((*a)[:i], (*a)[i+1:]...)
			return
		}
	}
}
