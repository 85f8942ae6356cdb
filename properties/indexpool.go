package properties

import (
	"sync"
	"sync/atomic"

	"github.com/turnsim/turnsim/harness"
)

// The index's memory is reused from one check to the next. The simulator checks every run it
// makes, and each index allocated its arrays anew (the turns, steps, calls, results, retries;
// about seven allocations and 2 KB a run), as did log-replays' decoding of the run's JSON Lines
// (a payload for nearly every event, about twenty allocations). A finished index goes back to
// indexPool with its arrays and its decoder, and the next index is built in them.
//
// Nothing of an index is seen after its check returns: Check and CheckOnly copy out what the
// properties found, and a user's property must not keep the Run it is given (Define says so).
// The arrays keep what the last run put in them until the next overwrites it, or the pool is
// emptied by the collector (the spare's, until the next check).

var indexPool = sync.Pool{New: func() any { return new(index) }}

// spareIndex holds the last index released, ahead of indexPool: a sync.Pool's cheapest slot is
// per processor and no other processor takes from it, so a simulator whose goroutine checks one
// run on one processor and the next on another found the pool empty and built a new index (with
// two processors, one check in fifty, regrowing every array and the decoder's slabs: about 300 B
// a schedule). One index, the one a caller checking runs one after another needs, is held here
// for any processor; more, for callers checking at once, stay in the pool. An index that checked
// a log larger than spareLogEventsMax or spareLogBytesMax goes to the pool, where the collector
// may take its arrays: the spare is never freed.
var spareIndex atomic.Pointer[index]

// spareLogEventsMax and spareLogBytesMax bound the largest log an index held as the spare has
// checked: a simulator's runs are a few dozen events and a few KB.
const (
	spareLogEventsMax = 4096
	spareLogBytesMax  = 1 << 20
)

// takeIndex returns a zero index around its buffers: the spare if there is one, else the pool's.
func takeIndex() *index {
	if x := spareIndex.Swap(nil); x != nil {
		return x
	}
	return indexPool.Get().(*index)
}

// indexBuffers are an index's arrays, kept across runs; the index's own slices are views of them.
type indexBuffers struct {
	stepRefs     []stepRef
	calls        []eventAt[harness.ToolCall]
	results      []eventAt[harness.ToolResult]
	turns        []turnIndex
	steps        []stepIndex
	turnPointers []*turnIndex
	retries      []eventAt[harness.LlmRetry]
	started      []eventAt[harness.LlmRetryStarted]
	inbox        []int
	// cancels holds every turn's cancelsOf answer, one after another.
	cancels []Cancel
	runs    map[callKey]ToolRun
	// largestEvents and largestBytes are the largest log the buffers were grown for, in events
	// and in JSON Lines bytes: whether the index may be held as the spare.
	largestEvents, largestBytes int
}

// release puts x back: as the spare if there is none and x's buffers are small, else in the
// pool. Neither x nor anything taken from its index may be used after.
// Every field but the buffers is zeroed, one by one: no reference to the run stays in the pool
// but the arrays' stale contents, and newIndex finds a zero index around them. (Zeroing the whole
// index around a copy of its buffers moved them twice, about a kilobyte and a half.)
// TestReleaseZeroesAllButTheBuffers holds the list to the index's fields.
func (x *index) release() {
	x.run = Run{}
	x.turnList, x.turnsByNumber, x.turnsElsewhere = nil, nil, nil
	x.retries, x.started, x.inbox = nil, nil, nil
	x.brokenAtMs, x.clearCount, x.repeats, x.seqsInOrder = 0, 0, false, false
	x.found = violations{}
	x.runs, x.runsKnown = nil, false
	b := &x.bufs
	if b.largestEvents > spareLogEventsMax || b.largestBytes > spareLogBytesMax || !spareIndex.CompareAndSwap(nil, x) {
		indexPool.Put(x)
	}
}

// empty is *buf, emptied, with room for n elements without growing: the array kept from the
// last run when it is large enough, a new one (kept in *buf for the next) when not.
func empty[T any](buf *[]T, n int) []T {
	if cap(*buf) < n {
		*buf = make([]T, 0, n)
	}
	return (*buf)[:0]
}
