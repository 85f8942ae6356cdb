// Package mutate is mutation testing for the property catalogue: each mutant is a deliberate
// defect kept as a patch outside the code it breaks, planted at build time with `go build
// -overlay` (the working tree is never written), and hunted by running seeds until a property
// catches it.
//
// A mutant file (NAME.patch) is a few header lines, then a unified diff as `git diff` writes it,
// with paths relative to the module root:
//
//	Property: durable-before-wait
//	Doc: llm-retry waits first and writes llm/retry after the wait
//
//	--- a/harness/retry.go
//	+++ b/harness/retry.go
//	@@ -113,7 +113,10 @@
//	 …
//
// To write one, make the defect in your tree, `git diff > mutants/NAME.patch`, add the header,
// and undo the defect. A hunk must find its lines exactly (it may have moved up or down); a
// mutant whose lines changed no longer applies, and Run reports it as an error naming it.
//
// turnsim's own mutants live in internal/mutants and run with `simrun mutate`; a user's command
// built on sim/cli gets the same `mutate` for their own mutants and properties.
package mutate
