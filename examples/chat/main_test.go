package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/internal/faultserver"
)

// The example against the fault server's chat script over loopback, with each protocol: a rate
// limit (retried), a call to the clock tool, an answer; the log on disk passes the invariant layer.
func TestChatAgainstTheFaultServer(t *testing.T) {
	for _, proto := range []string{"openai", "anthropic"} {
		t.Run(proto, func(t *testing.T) {
			steps, err := faultserver.Script("chat")
			require.NoError(t, err)
			s, err := faultserver.New(faultserver.Config{Steps: steps, MaxRequests: 10})
			require.NoError(t, err)
			ctx, cancel := context.WithCancel(context.Background())
			url, stopped, err := faultserver.Listen(ctx, "127.0.0.1:0", s)
			require.NoError(t, err)
			defer func() { cancel(); <-stopped }()
			if proto == "openai" {
				url += "/v1"
			}
			logPath := filepath.Join(t.TempDir(), "session.jsonl")
			env := map[string]string{"CHAT_PROVIDER": proto, "CHAT_BASE_URL": url, "CHAT_MODEL": "m", "CHAT_LOG": logPath, "CHAT_TIMEOUT": "10s"}
			var out, errOut bytes.Buffer
			code := run([]string{"what", "time", "is", "it?"}, func(k string) string { return env[k] }, &out, &errOut)
			assert.Equal(t, 0, code, out.String()+errOut.String())
			assert.Contains(t, out.String(), "retry 1 after RATE_LIMIT")
			assert.Contains(t, out.String(), "assistant calls clock(")
			assert.Contains(t, out.String(), "turn 1 ended: completed")
			assert.Equal(t, 3, s.Served())
			data, err := os.ReadFile(logPath)
			require.NoError(t, err)
			assert.Contains(t, string(data), `"type":"turn/end"`)
		})
	}
}

func TestChatRefusesABadConfig(t *testing.T) {
	for name, env := range map[string]map[string]string{
		"no base url":  {"CHAT_MODEL": "m"},
		"bad provider": {"CHAT_PROVIDER": "gemini", "CHAT_BASE_URL": "http://127.0.0.1:1", "CHAT_MODEL": "m"},
		"bad timeout":  {"CHAT_BASE_URL": "http://127.0.0.1:1", "CHAT_MODEL": "m", "CHAT_TIMEOUT": "-1s"},
	} {
		var out, errOut bytes.Buffer
		code := run([]string{"hi"}, func(k string) string { return env[k] }, &out, &errOut)
		assert.Equal(t, 2, code, name)
		assert.NotEmpty(t, errOut.String(), name)
	}
	var out, errOut bytes.Buffer
	assert.Equal(t, 2, run(nil, func(string) string { return "" }, &out, &errOut))
}
