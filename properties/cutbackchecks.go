package properties

// A failed append's cut-back, seen through a power loss. When a write or a sync fails, the file
// store cuts the file back to where the append began and syncs that: a sync can fail with the
// bytes already on the platter, and only the cut, made durable, keeps the refused line out of a
// log that is read back after the power goes.

// checkRefusedStaysOut: after a crash that came right after the store cut a failed append back
// (the power-loss-after-cut-back fault), the durable log ends before that append.
func checkRefusedStaysOut(x *index, v *violations) {
	for _, c := range x.run.Trace.Crashes {
		if c.CutBackSeq != 0 && int64(c.DurableEvents) >= c.CutBackSeq {
			v.add(c.CutBackSeq, c.AtMs, "event %d's append failed and the store cut it back, yet after the power loss at +%.3fs the log held %d events: the refused line came back",
				c.CutBackSeq, float64(c.AtMs)/1000, c.DurableEvents)
		}
	}
}
