// Package faultserver is a loopback model provider that plays a schedule's provider plan over
// real HTTP: the answers of a faults.Plan in request order, in either wire protocol (OpenAI's
// /v1/chat/completions or Anthropic's /v1/messages, both as SSE). A rate limit becomes a 429 with
// its Retry-After, a server failure its 5xx or 529, a failure after some chunks an in-stream error
// event (or, for TRANSPORT, a connection cut mid-answer). It exists so that the real adapters can
// be run against the same faults the simulator's provider model plays, and the two compared.
//
// It listens on 127.0.0.1 only, serves at most MaxRequests requests and stops by itself after
// MaxDuration.
package faultserver
