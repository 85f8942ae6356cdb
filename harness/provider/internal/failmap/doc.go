// Package failmap turns what an HTTP model provider answers (a status, its headers, a transport
// error, an in-stream error event) into the harness's Failure. Both adapters use it, so that an
// OpenAI-compatible endpoint and Anthropic fail the same way for the same reason, and the
// harness's llm-retry (the only retry layer: the SDKs' own retries are off) decides on one
// vocabulary.
package failmap
