// Package zoo holds the published retry strategies, each a harness.RetryStrategy, so a user can
// compare a new policy with the ones clients ship today:
//
//   - Brooker's family ("Exponential Backoff And Jitter", AWS Architecture Blog, 2015): none,
//     constant, exponential, full-jitter, equal-jitter, decorrelated-jitter;
//   - sdk: the official Anthropic and OpenAI SDKs' retry loop;
//   - grpc-throttle: gRPC retries with retry throttling (gRFC A6), a token bucket shared by
//     every call on a channel;
//   - aws-quota: the AWS SDKs' "standard" retry mode and its retry quota;
//   - sre-adaptive: client-side adaptive throttling (Google SRE book, "Handling Overload");
//   - seed-default and seed-always: the seed's own policy in its two modes.
//
// Each strategy has a params struct with the published defaults and a Validate that names the
// bad field; New builds any of them by name from JSON parameters, so a file of parameters per
// family configures the built-ins. The strategies with shared state (the token buckets, the
// quota, the adaptive throttle) implement harness.RetryObserver and are safe for concurrent use:
// one instance is meant to be shared by every agent of a process, as a client library shares
// its channel's bucket.
//
// Every delay is rounded to whole milliseconds (then capped), as the seed's policy does, so that
// llm/retry-started lands exactly delayMs after its llm/retry in the log's millisecond times.
// Randomness comes only from RetryContext.Random, drawn only when the formula uses it, so a
// seeded agent makes the same decisions every run.
package zoo
