package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestServeRefusesBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"serve", "-addr", "0.0.0.0:0", "-max-duration", "1s"},
		{"serve", "-addr", "192.168.1.1:8080", "-max-duration", "1s"},
		{"serve", "-script", "nope"},
		{"serve", "-script", "demo", "-seed", "3"},
		{"serve", "-max-requests", "-1"},
		{"serve", "-steps", "/nonexistent/steps.json"},
		{"serve", "extra"},
	} {
		code, _, errOut := simrun(args...)
		assert.Equal(t, exitUsage, code, "%v", args)
		assert.NotEmpty(t, errOut, "%v", args)
	}
}

func TestServeStopsByItself(t *testing.T) {
	code, out, errOut := simrun("serve", "-seed", "1", "-max-duration", "100ms")
	assert.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "serving ")
	assert.Contains(t, out, "http://127.0.0.1:")
	assert.Contains(t, out, "stopped after 0 requests")
}
