//go:build !race

package replaydiff

// raceEnabled scales the seed sweeps down under the race detector, which makes every run ten
// times slower; the full sweeps run in the ordinary test pass.
const raceEnabled = false
