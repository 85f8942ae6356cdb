// Command chat is a tiny agent on a real provider: one user message, one tool (clock), a durable
// session log. Point it at any OpenAI-compatible endpoint or at Anthropic:
//
//	CHAT_PROVIDER=openai CHAT_BASE_URL=https://api.openai.com/v1 CHAT_API_KEY=sk-... \
//	CHAT_MODEL=gpt-4o-mini go run ./examples/chat "What time is it?"
//
// Environment: CHAT_PROVIDER (openai or anthropic; default openai), CHAT_BASE_URL (required),
// CHAT_API_KEY, CHAT_MODEL (required), CHAT_TIMEOUT (per request; default 60s), CHAT_LOG (the
// session log; default chat-session.jsonl; an existing log is resumed, crash repair included).
// It prints the assistant's answers and how the turn ended, and exits 1 if it ended in error.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/turnsim/turnsim/examples/chat/clocktool"
	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/harness/filestore"
	"github.com/turnsim/turnsim/harness/provider/anthropic"
	"github.com/turnsim/turnsim/harness/provider/openai"
)

func main() {
	os.Exit(run(os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}

// run is the whole program, with its inputs passed in so a test can run it.
func run(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: chat MESSAGE (configured by CHAT_PROVIDER, CHAT_BASE_URL, CHAT_API_KEY, CHAT_MODEL, CHAT_TIMEOUT, CHAT_LOG)")
		return 2
	}
	clk := clock.New()
	provider, err := newProvider(getenv, clk)
	if err != nil {
		fmt.Fprintln(stderr, "chat:", err)
		return 2
	}
	path := getenv("CHAT_LOG")
	if path == "" {
		path = "chat-session.jsonl"
	}
	store, opened, err := filestore.Open(path)
	if err != nil {
		fmt.Fprintln(stderr, "chat:", err)
		return 2
	}
	defer store.Close()
	agent, err := harness.New(harness.Config{
		Provider:   provider,
		Runtime:    harness.NewProductionRuntime(clk),
		Store:      store,
		ResumeFrom: opened.History(), // opened.Events, already validated by the store
		Tools:      []harness.Tool{clocktool.Tool(clk)},
		OnError: func(e harness.AgentError) {
			fmt.Fprintf(stderr, "chat: agent error (turn %d, %s): %v\n", e.Turn, e.Source, e.Err)
		},
	})
	if err != nil {
		fmt.Fprintln(stderr, "chat:", err)
		return 2
	}
	defer agent.Dispose()
	before := len(agent.Session().Events())
	if _, err := agent.Followup(strings.Join(args, " ")); err != nil {
		fmt.Fprintln(stderr, "chat:", err)
		return 1
	}
	if err := agent.WhenIdle(context.Background()); err != nil {
		fmt.Fprintln(stderr, "chat:", err)
		return 1
	}
	code := 0
	for _, e := range agent.Session().Events()[before:] {
		switch d := e.Data.(type) {
		case harness.AssistantMessage:
			for _, b := range d.Message.Blocks {
				if b.Type == harness.BlockText {
					fmt.Fprintf(stdout, "assistant: %s\n", b.Text)
				} else {
					fmt.Fprintf(stdout, "assistant calls %s(%s)\n", b.Name, b.Arguments)
				}
			}
		case harness.LlmRetry:
			fmt.Fprintf(stdout, "retry %d after %s (%.0f ms)\n", d.Retry, d.Failure.Code, d.DelayMs)
		case harness.TurnEnd:
			fmt.Fprintf(stdout, "turn %d ended: %s\n", d.Turn, d.Reason.Kind)
			if d.Reason.Kind == harness.EndError {
				code = 1
				if d.Reason.Error != nil {
					fmt.Fprintf(stdout, "  %s: %s\n", d.Reason.Error.Code, d.Reason.Error.Message)
				}
			}
		}
	}
	fmt.Fprintf(stdout, "session log: %s\n", path)
	return code
}

// newProvider builds the adapter the environment names.
func newProvider(getenv func(string) string, clk harness.Clock) (harness.Provider, error) {
	timeout := 60 * time.Second
	if v := getenv("CHAT_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("CHAT_TIMEOUT %q is not a positive duration", v)
		}
		timeout = d
	}
	base, key, model := getenv("CHAT_BASE_URL"), getenv("CHAT_API_KEY"), getenv("CHAT_MODEL")
	switch getenv("CHAT_PROVIDER") {
	case "", "openai":
		return openai.New(openai.Config{BaseURL: base, APIKey: key, Model: model, Timeout: timeout, Clock: clk,
			Tools: map[string]openai.ToolSpec{"clock": {Description: clocktool.Doc, Parameters: map[string]any{"type": "object", "properties": map[string]any{}}}}})
	case "anthropic":
		return anthropic.New(anthropic.Config{BaseURL: base, APIKey: key, Model: model, Timeout: timeout, Clock: clk,
			Tools: map[string]anthropic.ToolSpec{"clock": {Description: clocktool.Doc}}})
	}
	return nil, errors.New("CHAT_PROVIDER must be openai or anthropic")
}
