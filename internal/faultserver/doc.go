// Package faultserver is a loopback model provider that plays planned answers over real HTTP, in
// either wire protocol (OpenAI's /v1/chat/completions or Anthropic's /v1/messages, both as SSE):
// the answers in request order, each as internal/wireplay renders it (the bytes the simulator's
// in-memory wire sends for the same answer). A rate limit becomes a 429 with its Retry-After, a
// server failure its 5xx or 529, a failure after some chunks an in-stream error event, a
// TRANSPORT failure a cut connection, a TIMEOUT without a status a silence until the client
// gives up. It exists so that real adapters and agents meet the simulator's faults over a real
// connection (simrun serve).
//
// It listens on 127.0.0.1 only, serves at most MaxRequests requests and stops by itself after
// MaxDuration.
package faultserver
