package faultserver_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/internal/faultserver"
)

func TestListenRefusesAnyAddressButLoopback(t *testing.T) {
	s, err := faultserver.New(faultserver.Config{})
	require.NoError(t, err)
	for _, addr := range []string{"0.0.0.0:0", "10.0.0.1:0", ":0", "example.com:80", "nonsense"} {
		_, _, err := faultserver.Listen(context.Background(), addr, s)
		assert.Error(t, err, addr)
	}
}

func TestStopsByItselfAfterMaxDuration(t *testing.T) {
	s, err := faultserver.New(faultserver.Config{MaxDuration: 50 * time.Millisecond})
	require.NoError(t, err)
	_, stopped, err := faultserver.Listen(context.Background(), "127.0.0.1:0", s)
	require.NoError(t, err)
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not stop by itself")
	}
}

func TestBadConfigIsRefused(t *testing.T) {
	_, err := faultserver.New(faultserver.Config{MaxRequests: -1})
	assert.Error(t, err)
	_, err = faultserver.New(faultserver.Config{Steps: []faultserver.Step{{Answer: faults.Answer{Fail: &faults.Fail{Code: "RATE_LIMIT", Message: "x"}, Wire: &faults.Wire{RetryAfter: "weeks"}}}}})
	assert.ErrorContains(t, err, "weeks")
}
