// Package codestyle holds the project's rules about its own code that a reader cannot see broken
// at a glance, as tests: the harness uses no unsafe, and no comment carries a measurement (current
// figures live in docs/performance.md's generated table, their history in the commit messages).
// It has only tests.
package codestyle
