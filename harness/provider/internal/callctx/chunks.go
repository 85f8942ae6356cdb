package callctx

import (
	"context"

	"github.com/turnsim/turnsim/harness"
)

// Chunks is the queue both adapters' streams hand chunks out of: one SDK event may decode into
// several chunks or none, and the stream ends once, with io.EOF or a failure.
type Chunks struct {
	pending []harness.Chunk
	done    bool
	err     error
}

// Push queues a decoded chunk.
func (q *Chunks) Push(c harness.Chunk) { q.pending = append(q.pending, c) }

// End marks the stream over: Next returns err once the queued chunks are out.
func (q *Chunks) End(err error) { q.done, q.err = true, err }

// Next hands out the next chunk: one already decoded, else it reads the next SDK event (the read
// cancellable through call) and lets take decode it; when the SDK has no more, end says how the
// stream ended.
func (q *Chunks) Next(ctx context.Context, call *Call, read func() bool, take, end func()) (harness.Chunk, error) {
	for {
		if len(q.pending) > 0 {
			c := q.pending[0]
			q.pending = q.pending[1:]
			return c, nil
		}
		if q.done {
			return harness.Chunk{}, q.err
		}
		var more bool
		call.During(ctx, func() { more = read() })
		if !more {
			end()
			continue
		}
		take()
	}
}
