// Package serverdiff plays the fault server (internal/faultserver) to the real provider adapters
// over loopback HTTP: what a client built on the official SDKs makes of each answer, in both wire
// protocols. It has only tests; they live in the wire's module so that the core's `go test ./...`
// never compiles the SDKs.
package serverdiff
