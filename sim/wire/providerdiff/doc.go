// Package providerdiff checks the simulator's provider model (sim.PlanProvider) against the real
// adapters (harness/provider/openai and harness/provider/anthropic) over loopback HTTP, through the
// fault server: request by request, and up to the session log. It has only tests.
//
// The tests live here, in the wire's module, rather than in sim so that sim's test binary (built
// again with coverage instrumentation for each of its fuzz targets and with the race detector)
// and the core's `go test ./...` never compile the provider SDKs.
package providerdiff
