package properties

// checkMaintenanceLatchesWakes: maintenance is work outside turns, and a wake that arrives during
// it is latched and replayed when it ends (spec, phases). So no turn starts while the maintenance
// works, and a waking send made meanwhile starts a turn in the instant it ends, while its work is
// still queued: a send before a cancel without keepInbox does not count (that cancel cleared the
// latch with the inbox; one with keepInbox keeps both), nor does any once the agent was disposed
// or crashed, or the store refused that turn/start or broke the session.
func checkMaintenanceLatchesWakes(x *index, v *violations) {
	if !x.run.Traced || len(x.run.Trace.Findings) > 0 {
		return
	}
	for _, m := range x.run.Trace.Maintenance {
		if m.StartMs < 0 || m.EndMs < 0 || x.crashedBetween(m.StartMs, m.EndMs) {
			continue
		}
		for _, t := range x.turnList {
			if t.startSeq > m.StartSeq && t.startSeq <= m.EndSeq {
				v.add(t.startSeq, t.startMs, "turn %d started while the maintenance that began at +%.3fs was still working: a wake during maintenance is latched, not served", t.number, float64(m.StartMs-x.run.StartMs)/1000)
			}
		}
		from := m.StartSeq
		for _, c := range x.run.Trace.Cancels {
			if c.AtMs >= m.StartMs && c.AtMs <= m.EndMs && c.Kind != pluginEnd && !c.KeepInbox {
				from = max(from, c.SeqAt)
			}
		}
		woken := x.wakingPushes(from, m.EndSeq+1)
		if len(woken) == 0 || x.pendingAt(m.EndSeq+1) == 0 || x.disposedBefore(m.EndSeq+1) ||
			x.turnStartRefusedAt(m.EndMs) || (x.brokenAtMs >= 0 && x.brokenAtMs <= m.EndMs) {
			continue
		}
		if !x.turnStartedAt(m.EndMs, m.EndSeq) {
			v.add(woken[0], m.EndMs, "a waking send (event %d) came during maintenance, and no turn started as it ended at +%.3fs: the latched wake was lost", woken[0], float64(m.EndMs-x.run.StartMs)/1000)
		}
	}
}

// crashedBetween reports whether the agent crashed at a time in [fromMs, toMs].
func (x *index) crashedBetween(fromMs, toMs int64) bool {
	for _, c := range x.run.Trace.Crashes {
		if c.AtMs >= fromMs && c.AtMs <= toMs {
			return true
		}
	}
	return false
}

// duringMaintenance reports whether the event at seq was written while a maintenance worked: a
// wake then is latched until it ends (maintenance-latches-wakes judges that).
func (x *index) duringMaintenance(seq int64) bool {
	for _, m := range x.run.Trace.Maintenance {
		if m.StartMs >= 0 && seq > m.StartSeq && (m.EndMs < 0 || seq <= m.EndSeq) {
			return true
		}
	}
	return false
}
