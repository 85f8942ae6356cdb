//go:build !plantedbugs

package sim

// plantedUnsafeFamily names the planted unsafe family, which only planted-bug builds register.
const plantedUnsafeFamily = "planted-uncapped"
