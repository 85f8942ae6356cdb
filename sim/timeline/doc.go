// Package timeline draws one run as a self-contained HTML page: an SVG chart of turns, steps,
// tool calls, retries, crashes and violations in virtual time, for people reading a failing seed.
package timeline
