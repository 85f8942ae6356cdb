package harness

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestProductionSleepElapses(t *testing.T) {
	rt := NewProductionRuntime(nil)
	start := time.Now()
	require.NoError(t, rt.Sleep(5*time.Millisecond, context.Background()))
	assert.GreaterOrEqual(t, time.Since(start), 5*time.Millisecond)
}

func TestProductionSleepNonPositiveReturnsAtOnce(t *testing.T) {
	rt := NewProductionRuntime(clock.NewMock()) // a mock never advances: any wait would hang
	assert.NoError(t, rt.Sleep(0))
	assert.NoError(t, rt.Sleep(-time.Second, context.Background()))

	ctx, cancel := context.WithCancelCause(context.Background())
	cause := errors.New("already done")
	cancel(cause)
	assert.ErrorIs(t, rt.Sleep(0, ctx), cause, "a done context wins over a zero delay")
}

func TestProductionSleepCancelled(t *testing.T) {
	for _, tc := range []struct {
		name      string
		contexts  int
		cancelled int
	}{
		{"first of two", 2, 0},
		{"second of two", 2, 1},
		{"only one", 1, 0},
		{"third of four", 4, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rt := NewProductionRuntime(clock.NewMock()) // time never moves: only cancellation ends the sleep
			contexts := make([]context.Context, tc.contexts)
			cancels := make([]context.CancelCauseFunc, tc.contexts)
			for i := range contexts {
				contexts[i], cancels[i] = context.WithCancelCause(context.Background())
				defer cancels[i](nil)
			}
			cause := errors.New("stop: " + tc.name)
			result := make(chan error, 1)
			go func() { result <- rt.Sleep(time.Hour, contexts...) }()
			time.Sleep(time.Millisecond) // usually lets the sleep start waiting; either way it must end
			cancels[tc.cancelled](cause)
			select {
			case err := <-result:
				assert.ErrorIs(t, err, cause)
			case <-time.After(5 * time.Second):
				t.Fatal("Sleep did not return after its context was cancelled")
			}
		})
	}
}

func TestProductionSleepWithAlreadyDoneContextReturnsAtOnce(t *testing.T) {
	rt := NewProductionRuntime(clock.NewMock())
	live, cancelLive := context.WithCancel(context.Background())
	defer cancelLive()
	done, cancelDone := context.WithCancelCause(context.Background())
	cause := errors.New("done before the sleep")
	cancelDone(cause)
	assert.ErrorIs(t, rt.Sleep(time.Hour, live, nil, done), cause)
}

func TestProductionSleepWithMockClock(t *testing.T) {
	mock := clock.NewMock()
	rt := NewProductionRuntime(mock)
	require.Same(t, mock, rt.Clock())
	result := make(chan error, 1)
	go func() { result <- rt.Sleep(time.Second, context.Background()) }()
	// The sleeping goroutine may not have made its timer yet; keep moving the mock until it fires.
	require.Eventually(t, func() bool {
		mock.Add(time.Second)
		select {
		case err := <-result:
			assert.NoError(t, err)
			return true
		default:
			return false
		}
	}, 5*time.Second, time.Millisecond)
}

func TestProductionQueueIsFIFO(t *testing.T) {
	q := NewProductionRuntime(nil).NewQueue("fifo")
	for i := range 5 {
		q.Put(i)
	}
	for i := range 5 {
		v, err := q.Get(context.Background())
		require.NoError(t, err)
		assert.Equal(t, i, v)
	}
}

func TestProductionQueueGetWaitsForPut(t *testing.T) {
	rt := NewProductionRuntime(nil)
	q := rt.NewQueue("handoff")
	const waiters = 4
	got := make(chan any, waiters)
	for range waiters {
		rt.Go("waiter", func() {
			v, err := q.Get(context.Background())
			assert.NoError(t, err)
			got <- v
		})
	}
	for i := range waiters {
		q.Put(i)
	}
	seen := map[any]bool{}
	for range waiters {
		select {
		case v := <-got:
			seen[v] = true
		case <-time.After(5 * time.Second):
			t.Fatal("a waiting Get was not woken by Put")
		}
	}
	assert.Len(t, seen, waiters)
}

func TestProductionQueueGetCancelled(t *testing.T) {
	q := NewProductionRuntime(nil).NewQueue("cancelled")
	ctx, cancel := context.WithCancelCause(context.Background())
	cause := errors.New("caller gave up")
	result := make(chan error, 1)
	go func() {
		_, err := q.Get(ctx)
		result <- err
	}()
	time.Sleep(time.Millisecond)
	cancel(cause)
	select {
	case err := <-result:
		assert.ErrorIs(t, err, cause)
	case <-time.After(5 * time.Second):
		t.Fatal("Get did not return after its context was cancelled")
	}

	_, err := q.Get(ctx)
	assert.ErrorIs(t, err, cause, "an already-done context returns at once when the queue is empty")
	q.Put("late")
	v, err := q.Get(ctx)
	assert.NoError(t, err, "a queued item is returned even when the context is done")
	assert.Equal(t, "late", v)
}

func TestProductionGoRunsConcurrently(t *testing.T) {
	rt := NewProductionRuntime(nil)
	// Each goroutine waits for the other's signal: this only finishes if both run at once.
	ping, pong := make(chan struct{}), make(chan struct{})
	done := make(chan struct{}, 2)
	rt.Go("ping", func() {
		ping <- struct{}{}
		<-pong
		done <- struct{}{}
	})
	rt.Go("pong", func() {
		<-ping
		pong <- struct{}{}
		done <- struct{}{}
	})
	for range 2 {
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("Go did not run its functions concurrently")
		}
	}
}
