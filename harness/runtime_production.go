package harness

// This file is the production Runtime: real goroutines, a real (or injected) clock's timers, and a
// queue built on a mutex. It is the only file in harness/ allowed to use `go`, `select` and timers,
// because it is the one place where the harness meets the operating world; everything else waits
// through the Runtime so the simulator can substitute its deterministic scheduler.

import (
	"context"
	"sync"
	"time"

	"github.com/benbjohnson/clock"
)

// NewProductionRuntime returns the Runtime the harness uses outside the simulator: Go starts a real
// goroutine, Sleep waits on a timer of clk, and queues block real goroutines. clk is injected so a
// test can drive time with clock.NewMock() instead of waiting; nil means the wall clock
// (clock.New()).
func NewProductionRuntime(clk clock.Clock) Runtime {
	if clk == nil {
		clk = clock.New()
	}
	return &productionRuntime{clock: clk}
}

// productionRuntime implements Runtime on real goroutines. It holds no state besides the clock, so
// it is safe for concurrent use.
type productionRuntime struct {
	clock clock.Clock
}

// Clock returns the injected clock; Sleep's timers are measured in it.
func (r *productionRuntime) Clock() Clock { return r.clock }

// Go starts fn on a new goroutine. name only matters to the simulator's reports.
func (r *productionRuntime) Go(name string, fn func()) {
	go fn()
}

// Sleep waits for d on a timer of the runtime's clock, or until one of cancel is done. A nil entry
// in cancel is never done. It returns nil when the delay elapsed and context.Cause of the first
// done context otherwise; a context that is already done wins over a delay of zero.
func (r *productionRuntime) Sleep(d time.Duration, cancel ...context.Context) error {
	if err := firstDoneCause(cancel); err != nil {
		return err
	}
	if d <= 0 {
		return nil
	}
	timer := r.clock.Timer(d)
	defer timer.Stop()
	switch len(cancel) {
	case 0:
		<-timer.C
		return nil
	case 1:
		select {
		case <-timer.C:
			return nil
		case <-doneChannel(cancel[0]):
			return context.Cause(cancel[0])
		}
	case 2:
		select {
		case <-timer.C:
			return nil
		case <-doneChannel(cancel[0]):
			return context.Cause(cancel[0])
		case <-doneChannel(cancel[1]):
			return context.Cause(cancel[1])
		}
	default:
		return sleepMany(timer, cancel)
	}
}

// sleepMany waits for timer or any of three or more contexts. context.AfterFunc reports each
// context that ends into one buffered channel (one slot per context, so no callback ever blocks),
// and the first report wins; every registration is removed before returning.
func sleepMany(timer *clock.Timer, cancel []context.Context) error {
	ended := make(chan context.Context, len(cancel))
	for _, ctx := range cancel {
		if ctx == nil {
			continue
		}
		stop := context.AfterFunc(ctx, func() { ended <- ctx })
		defer stop()
	}
	select {
	case <-timer.C:
		return nil
	case ctx := <-ended:
		return context.Cause(ctx)
	}
}

// firstDoneCause returns context.Cause of the first already-done context of cancel, in argument
// order, or nil when none is done. Nil entries are skipped.
func firstDoneCause(cancel []context.Context) error {
	for _, ctx := range cancel {
		if ctx != nil && ctx.Err() != nil {
			return context.Cause(ctx)
		}
	}
	return nil
}

// doneChannel is ctx.Done(), except that a nil context gives a nil channel, which a select never
// picks: a nil context is never done.
func doneChannel(ctx context.Context) <-chan struct{} {
	if ctx == nil {
		return nil
	}
	return ctx.Done()
}

// NewQueue makes an unbounded FIFO queue for real goroutines. name only matters to the simulator's
// reports.
func (r *productionRuntime) NewQueue(name string) Queue {
	return &productionQueue{notify: make(chan struct{}, 1)}
}

// productionQueue is a mutex-guarded slice plus a one-slot notification channel. Put leaves a
// token in notify; a waiting Get takes it, takes an item, and passes the token on if items remain,
// so every waiter is woken while there is something for it. No waiter can miss a Put: a Put after
// a Get found the slice empty leaves a token that Get's select will see.
type productionQueue struct {
	mu     sync.Mutex
	items  []any
	notify chan struct{}
}

// Put appends v and wakes one waiting Get. It never blocks.
func (q *productionQueue) Put(v any) {
	q.mu.Lock()
	q.items = append(q.items, v)
	q.mu.Unlock()
	q.signal()
}

// Get returns the oldest item, waiting for one while ctx is not done. An item already queued is
// returned even if ctx is done, as the simulator does; otherwise a done ctx returns
// context.Cause(ctx). A nil ctx is never done.
func (q *productionQueue) Get(ctx context.Context) (any, error) {
	for {
		if v, ok := q.take(); ok {
			return v, nil
		}
		if ctx != nil && ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		select {
		case <-q.notify:
		case <-doneChannel(ctx):
			return nil, context.Cause(ctx)
		}
	}
}

// take pops the oldest item if there is one, and re-signals when more remain so that another
// waiter wakes for them.
func (q *productionQueue) take() (any, bool) {
	q.mu.Lock()
	if len(q.items) == 0 {
		q.mu.Unlock()
		return nil, false
	}
	v := q.items[0]
	q.items[0] = nil // let the item be collected once taken
	q.items = q.items[1:]
	more := len(q.items) > 0
	q.mu.Unlock()
	if more {
		q.signal()
	}
	return v, true
}

// signal leaves a wake-up token unless one is already waiting to be taken.
func (q *productionQueue) signal() {
	select {
	case q.notify <- struct{}{}:
	default:
	}
}
