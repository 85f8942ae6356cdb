package faults

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/harness"
)

// A wire form the wire cannot send is refused, naming the field.
func TestWireValidationNamesTheField(t *testing.T) {
	fail := &Fail{Code: harness.CodeRateLimit, Message: "slow down", Status: 429, RetryAfterMs: 1500}
	ok := Answer{Fail: fail, Wire: &Wire{Protocol: ProtocolOpenAI, RetryAfter: RetryAfterSeconds}}
	require.NoError(t, ok.validate())
	for says, a := range map[string]Answer{
		"wire.protocol":    {Fail: fail, Wire: &Wire{Protocol: "gemini"}},
		"wire.retryAfter":  {Fail: fail, Wire: &Wire{Protocol: ProtocolOpenAI, RetryAfter: "fortnight"}},
		"wire.errorType":   {Fail: fail, Wire: &Wire{Protocol: ProtocolOpenAI, ErrorType: "bad\ntype"}},
		"finishReason":     {Fail: fail, Wire: &Wire{Protocol: ProtocolOpenAI, FinishReason: strings.Repeat("x", 101)}},
		"at most one of":   {Fail: fail, Wire: &Wire{Protocol: ProtocolAnthropic, Cut: true, Stall: true}},
		"client's process": {Goexit: true, Wire: &Wire{Protocol: ProtocolOpenAI}},
		"fail.plain":       {Fail: &Fail{Plain: true, Message: "x"}, Wire: &Wire{Protocol: ProtocolOpenAI}},
		"more than a day":  {Fail: &Fail{Code: harness.CodeRateLimit, Message: "x", RetryAfterMs: 1e9}, Wire: &Wire{Protocol: ProtocolOpenAI, RetryAfter: RetryAfterDate}},
	} {
		err := a.validate()
		if assert.Error(t, err, says) {
			assert.Contains(t, err.Error(), says)
		}
	}
}
