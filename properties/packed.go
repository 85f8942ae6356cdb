package properties

// appendPacked is append(s, v) for slices that share one array, pool, sized beforehand for all of
// them: the index's per-turn step lists and per-step calls and results, one array each for the
// run instead of a few growing slices for every turn and step. An owner whose slice ends at the
// pool's end (the usual case: a step's calls come together) grows in place; any other takes the
// next free element when it is empty, or grows apart from the pool with plain append. Every slice
// handed out is capped at its length, so no append, here or elsewhere, writes into another's.
func appendPacked[T any](pool *[]T, s []T, v T) []T {
	p := *pool
	switch {
	case len(p) == cap(p):
		return append(s, v) // the pool was sized for fewer: never the case, but never wrong
	case len(s) == 0:
		p = append(p, v)
	case len(p) > 0 && &s[len(s)-1] == &p[len(p)-1]:
		p = append(p, v)
	default:
		return append(s, v)
	}
	*pool = p
	return p[len(p)-len(s)-1 : len(p) : len(p)]
}
