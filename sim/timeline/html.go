package timeline

import (
	"bytes"
	"fmt"
	"html"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/properties"
)

// HTML renders one run as a self-contained HTML document: an SVG chart of the run in
// virtual time (a lane per turn, per step and per tool call; provider attempts and backoff waits
// on their step's lane; cancellations, crashes, restarts, refused appends and violations as
// markers), then the seed, the faults that struck, the violations and the session log as text.
//
// The document loads nothing: no script, font, stylesheet or image from anywhere, so it opens
// the same from a CI artifact, a mail attachment or a machine with no network. Every mark has a
// <title> (a hover tooltip) with its details. The same Run gives the same bytes.
func HTML(o Run) []byte {
	m := tlBuildModel(o)
	var b bytes.Buffer
	tlWriteHead(&b, o, m)
	tlWriteChart(&b, m)
	tlWriteSummary(&b, o, m)
	b.WriteString("</body>\n</html>\n")
	return b.Bytes()
}

// ---------------------------------------------------------------------------------------------
// The model: what the chart shows, gathered from the log and the trace, times made relative.
// ---------------------------------------------------------------------------------------------

// tlModel is the run reduced to what the chart draws. All times are milliseconds from origin.
type tlModel struct {
	origin int64 // the log's clock at time 0 of the chart
	endMs  int64 // the right edge of the chart
	turns  []*tlTurn
	// orphanWaits and orphanTools are waits and tool runs no step of the log accounts for.
	orphanWaits []properties.Wait
	orphanTools []*tlTool
	crashesMs   []int64 // sorted, for drawing what a crash cut short up to that crash
	trace       properties.Trace
	violations  []properties.Violation
	horizonMs   int64
	// describe and describeReason word events and turn ends (Run.Describe, Run.DescribeReason).
	describe       func(harness.Event) string
	describeReason func(harness.TurnEndReason) string
}

// tlTurn is one turn: from its turn/start to its turn/end (open when the log has none).
type tlTurn struct {
	n          int
	startMs    int64
	endMs      int64
	open       bool
	reason     *harness.TurnEndReason
	startEvent string
	endEvent   string
	steps      []*tlStep
}

// tlStep is one step of a turn, with the provider attempts, backoff waits and tool calls made
// for it.
type tlStep struct {
	turn, n  int
	startMs  int64
	endMs    int64
	open     bool
	requests []properties.Request
	waits    []properties.Wait
	tools    []*tlTool
}

// tlTool is one tool call: its tool/call and tool/result events from the log (if written) and
// every run of it the simulator saw (usually one; two would be a double dispatch).
type tlTool struct {
	callID, name string
	callMs       int64 // -1: no tool/call in the log
	resultMs     int64 // -1: no tool/result in the log
	result       *harness.ToolResult
	runs         []properties.ToolRun
}

// tlCallKey names a tool call: its id is unique in its step only.
type tlCallKey struct {
	turn, step int
	id         string
}

// tlWallClockMs separates the scheduler's clock (Unix time 0 at the start of the run, and no
// run lasts a day) from a real one (PlaySchedule on the production runtime), whose times must
// be measured from the first thing that happened.
const tlWallClockMs = 24 * 60 * 60 * 1000

// tlBuildModel gathers turns and steps from the log, then hangs the trace's requests, waits and
// tool runs on them.
func tlBuildModel(o Run) *tlModel {
	m := &tlModel{origin: tlOrigin(o), trace: o.Trace, violations: o.Violations, horizonMs: o.HorizonMs}
	m.describe, m.describeReason = o.describers()
	steps := map[[2]int]*tlStep{}
	turns := map[int]*tlTurn{}
	tools := map[tlCallKey]*tlTool{}
	m.buildFromLog(o.Log, turns, steps, tools)
	m.endMs = tlEnd(o, m.origin)
	for _, c := range o.Trace.Crashes {
		m.crashesMs = append(m.crashesMs, c.AtMs-m.origin)
	}
	slices.Sort(m.crashesMs)
	for _, r := range o.Trace.Requests {
		s := m.step(turns, steps, r.Turn, r.Step, r.StartMs-m.origin)
		s.requests = append(s.requests, r)
	}
	for _, w := range o.Trace.Waits {
		if s := m.waitStep(o, w, steps); s != nil {
			s.waits = append(s.waits, w)
		} else {
			m.orphanWaits = append(m.orphanWaits, w)
		}
	}
	for _, r := range o.Trace.Tools {
		key := tlCallKey{r.Turn, r.Step, r.CallID}
		if t := tools[key]; t != nil {
			t.runs = append(t.runs, r)
			continue
		}
		t := &tlTool{callID: r.CallID, name: r.Name, callMs: -1, resultMs: -1, runs: []properties.ToolRun{r}}
		tools[key] = t
		m.orphanTools = append(m.orphanTools, t)
	}
	for _, n := range tlSortedKeys(turns) {
		t := turns[n]
		slices.SortStableFunc(t.steps, func(a, b *tlStep) int { return a.n - b.n })
		m.turns = append(m.turns, t)
	}
	m.closeOpen()
	return m
}

// buildFromLog reads turns, steps and tool calls from the log's events, in log order.
func (m *tlModel) buildFromLog(log []harness.Event, turns map[int]*tlTurn, steps map[[2]int]*tlStep, tools map[tlCallKey]*tlTool) {
	for _, e := range log {
		at := e.Time - m.origin
		switch d := e.Data.(type) {
		case harness.TurnStart:
			t := m.turn(turns, d.Turn, at)
			t.startMs, t.startEvent = at, m.describe(e)
		case harness.TurnEnd:
			t := m.turn(turns, d.Turn, at)
			reason := d.Reason
			t.endMs, t.open, t.reason, t.endEvent = at, false, &reason, m.describe(e)
		case harness.StepStart:
			m.step(turns, steps, d.Turn, d.Step, at).startMs = at
		case harness.StepEnd:
			s := m.step(turns, steps, d.Turn, d.Step, at)
			s.endMs, s.open = at, false
		case harness.ToolCall:
			s := m.step(turns, steps, d.Turn, d.Step, at)
			key := tlCallKey{d.Turn, d.Step, d.CallID}
			t := tools[key]
			if t == nil {
				t = &tlTool{callID: d.CallID, name: d.Name, callMs: at, resultMs: -1}
				tools[key] = t
				s.tools = append(s.tools, t)
			}
		case harness.ToolResult:
			key := tlCallKey{d.Turn, d.Step, d.CallID}
			t := tools[key]
			if t == nil {
				t = &tlTool{callID: d.CallID, callMs: -1}
				tools[key] = t
				s := m.step(turns, steps, d.Turn, d.Step, at)
				s.tools = append(s.tools, t)
			}
			result := d
			t.resultMs, t.result = at, &result
		}
	}
}

// turn returns turn n, creating it (open, starting at atMs) when the log has not opened it: a
// refused or torn turn/start must not hide what ran in the turn.
func (m *tlModel) turn(turns map[int]*tlTurn, n int, atMs int64) *tlTurn {
	t := turns[n]
	if t == nil {
		t = &tlTurn{n: n, startMs: atMs, endMs: -1, open: true}
		turns[n] = t
	}
	return t
}

// step returns step n of turn, creating it (open, starting at atMs) the same way.
func (m *tlModel) step(turns map[int]*tlTurn, steps map[[2]int]*tlStep, turn, n int, atMs int64) *tlStep {
	key := [2]int{turn, n}
	s := steps[key]
	if s == nil {
		t := m.turn(turns, turn, atMs)
		s = &tlStep{turn: turn, n: n, startMs: atMs, endMs: -1, open: true}
		steps[key] = s
		t.steps = append(t.steps, s)
	}
	return s
}

// waitStep finds the step a backoff wait belongs to: the step whose attempt failed at the
// instant the wait began, else the step of the llm/retry the wait followed.
func (m *tlModel) waitStep(o Run, w properties.Wait, steps map[[2]int]*tlStep) *tlStep {
	for i := len(o.Trace.Requests) - 1; i >= 0; i-- {
		if r := o.Trace.Requests[i]; r.EndMs == w.StartMs {
			if s := steps[[2]int{r.Turn, r.Step}]; s != nil {
				return s
			}
		}
	}
	for _, e := range o.Log {
		if d, ok := e.Data.(harness.LlmRetry); ok && e.Seq == w.SeqBefore {
			return steps[[2]int{d.Turn, d.Step}]
		}
	}
	return nil
}

// closeOpen gives every open turn and step an end: a step ends with its turn when the turn
// ended, else with the run; an open turn is drawn to the end of the run.
func (m *tlModel) closeOpen() {
	for _, t := range m.turns {
		if t.open {
			t.endMs = m.endMs
		}
		t.endMs = max(t.endMs, t.startMs)
		for _, s := range t.steps {
			if s.open {
				s.endMs = t.endMs
			}
			s.endMs = max(s.endMs, s.startMs)
		}
	}
}

// tlOrigin is the log's clock at the chart's time 0: 0 on the scheduler, whose clock starts at
// Unix time 0, so the chart reads like sim.Timeline(o.Log, 0); on a real clock, the earliest time
// the log or the trace holds.
func tlOrigin(o Run) int64 {
	earliest := int64(-1)
	see := func(ms int64) {
		if ms >= 0 && (earliest < 0 || ms < earliest) {
			earliest = ms
		}
	}
	for _, e := range o.Log {
		see(e.Time)
	}
	for _, ms := range tlTraceTimes(o.Trace) {
		see(ms)
	}
	if earliest >= tlWallClockMs {
		return earliest
	}
	return 0
}

// tlEnd is the chart's right edge: the end of the run (its virtual time, the trace's end) or
// the last thing that happened, whichever is later, and never less than a tenth of a second.
func tlEnd(o Run, origin int64) int64 {
	end := max(int64(100), o.Trace.EndMs)
	end = max(end, o.VirtualElapsed.Milliseconds())
	for _, e := range o.Log {
		end = max(end, e.Time-origin)
	}
	for _, ms := range tlTraceTimes(o.Trace) {
		end = max(end, ms-origin)
	}
	for _, v := range o.Violations {
		end = max(end, v.AtMs-origin)
	}
	return end
}

// tlTraceTimes lists every instant the trace records, on the log's clock (-1 for "never").
func tlTraceTimes(tr properties.Trace) []int64 {
	var all []int64
	for _, r := range tr.Requests {
		all = append(all, r.StartMs, r.EndMs)
	}
	for _, w := range tr.Waits {
		all = append(all, w.StartMs, w.EndMs)
	}
	for _, r := range tr.Tools {
		all = append(all, r.StartMs, r.EndMs)
	}
	for _, c := range tr.Cancels {
		all = append(all, c.AtMs)
	}
	for _, s := range tr.Sends {
		all = append(all, s.AtMs)
	}
	for _, c := range tr.Crashes {
		all = append(all, c.AtMs)
	}
	for _, r := range tr.Restarts {
		all = append(all, r.AtMs)
	}
	for _, r := range tr.Refusals {
		all = append(all, r.AtMs)
	}
	return all
}

// tlSortedKeys returns a map's keys in ascending order, so nothing depends on map order.
func tlSortedKeys[V any](m map[int]V) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// cutShort is where a trace record that never ended is drawn to: the first crash at or after
// its start (which killed it), else the end of the run.
func (m *tlModel) cutShort(startMs int64) (endMs int64, byCrash bool) {
	for _, c := range m.crashesMs {
		if c >= startMs {
			return c, true
		}
	}
	return m.endMs, false
}

// ---------------------------------------------------------------------------------------------
// Layout: the chart's geometry, the time axis and its ticks.
// ---------------------------------------------------------------------------------------------

// The chart's geometry in SVG user units (pixels at 100%): a label column on the left, then
// the plot, wide enough for a 1400 px window.
const (
	tlLabelW   = 210.0
	tlPlotW    = 1080.0
	tlRightPad = 30.0
	tlWidth    = tlLabelW + tlPlotW + tlRightPad
	tlAxisH    = 34.0
	tlLaneH    = 22.0
	tlTallH    = 30.0 // lanes with staggered labels (cancellations, violations)
	tlBarH     = 14.0
	tlMinW     = 2.0 // the narrowest mark, so an instant stays visible
)

// tlChart writes the SVG. Lanes are stacked from the top; y is the top of the next lane.
type tlChart struct {
	m     *tlModel
	b     *bytes.Buffer
	y     float64
	lanes int
	// cancelY and violationY are the tops of the lanes where the vertical lines' labels go.
	cancelY, violationY float64
}

// x maps a time (ms from origin) to the plot, clamped to it.
func (c *tlChart) x(ms int64) float64 {
	ms = min(max(ms, 0), c.m.endMs)
	return tlLabelW + float64(ms)*tlPlotW/float64(c.m.endMs)
}

// span maps [startMs, endMs] to an x and a width of at least tlMinW.
func (c *tlChart) span(startMs, endMs int64) (x, w float64) {
	x = c.x(startMs)
	return x, max(c.x(endMs)-x, tlMinW)
}

// tlTickStep picks the axis step: the smallest 1, 2 or 5 × 10^k ms that leaves at most 12
// ticks from 0 to endMs. Steps grow by at most 2.5×, so at least 5 ticks remain.
func tlTickStep(endMs int64) int64 {
	for base := int64(1); ; base *= 10 {
		for _, f := range []int64{1, 2, 5} {
			if step := base * f; endMs/step+1 <= 12 {
				return step
			}
		}
	}
}

// tlSeconds renders a time as seconds with no trailing zeros: "0s", "1.5s", "12s".
func tlSeconds(ms int64) string {
	return strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64) + "s"
}

// tlAt renders a time for a tooltip, to the millisecond: "1.500s".
func tlAt(ms int64) string {
	return fmt.Sprintf("%.3fs", (time.Duration(ms) * time.Millisecond).Seconds())
}

// tlRange renders an interval for a tooltip: "0.120s–0.550s".
func tlRange(startMs, endMs int64) string { return tlAt(startMs) + "–" + tlAt(endMs) }

// writeAxis draws the ticks, their labels above and below the lanes, and the grid between.
func (c *tlChart) writeAxis(bottom float64) {
	step := tlTickStep(c.m.endMs)
	fmt.Fprintf(c.b, "<g class=\"axis\"><title>virtual time, from the start of the run to %s</title>\n", tlAt(c.m.endMs))
	for t := int64(0); t <= c.m.endMs; t += step {
		x := c.x(t)
		fmt.Fprintf(c.b, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", x, tlAxisH-6, x, bottom)
		fmt.Fprintf(c.b, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\">+%s</text>", x, tlAxisH-10, tlSeconds(t))
		fmt.Fprintf(c.b, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\">+%s</text>\n", x, bottom+14, tlSeconds(t))
	}
	fmt.Fprintf(c.b, "<line class=\"axis-line\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", tlLabelW, tlAxisH-6, tlLabelW+tlPlotW, tlAxisH-6)
	fmt.Fprintf(c.b, "<text class=\"axis-name\" x=\"8\" y=\"%.1f\">virtual time</text>\n</g>\n", tlAxisH-10)
}

// ---------------------------------------------------------------------------------------------
// Lanes: one horizontal band each, a label on the left, marks on the plot.
// ---------------------------------------------------------------------------------------------

// lane starts a lane of height h: a faint stripe on every other lane, so a lane can be followed
// across the plot, and its label (indented by depth) in the left column. It returns the lane's
// top; the caller draws the marks, and the lane ends when the next one starts.
func (c *tlChart) lane(label, class string, depth int, h float64) float64 {
	top := c.y
	c.y += h
	c.lanes++
	if c.lanes%2 == 0 {
		fmt.Fprintf(c.b, "<rect class=\"stripe\" x=\"0\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n", top, tlWidth, h)
	}
	fmt.Fprintf(c.b, "<text class=\"lane-label %s\" x=\"%.1f\" y=\"%.1f\">%s</text>\n", class, 8+14*float64(depth), top+h/2+4, tlEsc(tlClip(label, 29-depth)))
	return top
}

// rect draws a mark from startMs to endMs, centred in the lane at top, with its tooltip and,
// when it fits, a label inside.
func (c *tlChart) rect(class string, startMs, endMs int64, top, h float64, title, label string) {
	x, w := c.span(startMs, endMs)
	y := top + (tlLaneH-h)/2
	fmt.Fprintf(c.b, "<g class=\"%s\"><title>%s</title><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>", class, tlEsc(title), x, y, w, h)
	if label != "" && float64(utf8.RuneCountInString(label))*5.6+6 <= w {
		fmt.Fprintf(c.b, "<text class=\"in-label\" x=\"%.1f\" y=\"%.1f\">%s</text>", x+3, y+h/2+3.5, tlEsc(label))
	}
	c.b.WriteString("</g>\n")
}

// marker draws an instant: a small shape (class names the shape's colour) at atMs in the lane
// at top, with its tooltip.
func (c *tlChart) marker(class, shape string, atMs int64, top float64, title string) {
	x, y := c.x(atMs), top+tlLaneH/2
	fmt.Fprintf(c.b, "<g class=\"%s\"><title>%s</title>%s</g>\n", class, tlEsc(title), tlShape(shape, x, y))
}

// tlShape is the SVG of a marker centred at (x, y).
func tlShape(shape string, x, y float64) string {
	switch shape {
	case "cross":
		return fmt.Sprintf("<path d=\"M%.1f %.1fl10 10m0 -10l-10 10\"/>", x-5, y-5)
	case "triangle":
		return fmt.Sprintf("<path d=\"M%.1f %.1fl6 10h-12z\"/>", x, y-6)
	case "square":
		return fmt.Sprintf("<rect x=\"%.1f\" y=\"%.1f\" width=\"7\" height=\"7\"/>", x-3.5, y-3.5)
	case "diamond":
		return fmt.Sprintf("<path d=\"M%.1f %.1fl5 6l-5 6l-5 -6z\"/>", x, y-6)
	}
	return fmt.Sprintf("<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\"/>", x, y)
}

// writeUserLanes draws what the user did: each send, and a lane for the cancellations' labels
// (their lines cross the whole chart, drawn last).
func (c *tlChart) writeUserLanes() {
	top := c.lane("user sends", "lane-user", 0, tlLaneH)
	for _, s := range c.m.trace.Sends {
		title := fmt.Sprintf("send %s %s at %s", s.Kind, s.MessageID, tlAt(s.AtMs-c.m.origin))
		class := "send send-" + tlClass(s.Kind)
		if s.Err != "" {
			title += ", refused: " + s.Err
			class += " send-refused"
		}
		c.marker(class, "circle", s.AtMs-c.m.origin, top, title)
	}
	if len(c.m.trace.Cancels) > 0 {
		c.cancelY = c.lane("cancellations", "lane-cancel", 0, tlTallH)
	}
}

// writeHostLane draws what the host did and suffered: crashes, restarts, refused appends.
func (c *tlChart) writeHostLane() {
	tr := c.m.trace
	if len(tr.Crashes)+len(tr.Restarts)+len(tr.Refusals) == 0 {
		return
	}
	top := c.lane("host: crash, restart, refusal", "lane-host", 0, tlLaneH)
	for _, r := range tr.Refusals {
		title := fmt.Sprintf("append refused at %s: %s (turn %d step %d)", tlAt(r.AtMs-c.m.origin), r.Type, r.Turn, r.Step)
		c.marker("refusal", "square", r.AtMs-c.m.origin, top, title)
	}
	for _, cr := range tr.Crashes {
		c.marker("crash", "cross", cr.AtMs-c.m.origin, top, tlCrashTitle(cr, c.m.origin))
	}
	for _, r := range tr.Restarts {
		c.marker("restart", "triangle", r.AtMs-c.m.origin, top, tlRestartTitle(r, c.m.origin))
	}
}

// writeViolationLane reserves the lane where the violations' labels go (their red lines cross
// the whole chart, drawn last); violations with no time are only listed below the chart.
func (c *tlChart) writeViolationLane() {
	for _, v := range c.m.violations {
		if v.AtMs >= 0 {
			c.violationY = c.lane("violations", "lane-violation", 0, tlTallH)
			return
		}
	}
}

// writeTurn draws a turn's bar, coloured by how it ended, then its steps, each followed by its
// tool calls.
func (c *tlChart) writeTurn(t *tlTurn) {
	kind := "open"
	desc := "still open at the end of the run"
	if t.reason != nil {
		kind, desc = t.reason.Kind, c.m.describeReason(*t.reason)
	}
	top := c.lane(fmt.Sprintf("turn %d %s", t.n, desc), "lane-turn", 0, tlLaneH)
	title := fmt.Sprintf("turn %d: %s, %s", t.n, desc, tlRange(t.startMs, t.endMs))
	for _, e := range []string{t.startEvent, t.endEvent} {
		if e != "" {
			title += "\n" + e
		}
	}
	c.rect("turn-bar turn-"+tlClass(kind), t.startMs, t.endMs, top, tlBarH+2, title, fmt.Sprintf("turn %d %s", t.n, desc))
	for _, s := range t.steps {
		c.writeStep(s)
		for _, tool := range s.tools {
			c.writeTool(tool, 2)
		}
	}
}

// writeStep draws a step's lane: a thin bar for the step, the provider attempts on it and the
// backoff waits between them.
func (c *tlChart) writeStep(s *tlStep) {
	top := c.lane(fmt.Sprintf("step %d.%d", s.turn, s.n), "lane-step", 1, tlLaneH)
	class, title := "step-bar", fmt.Sprintf("step %d.%d: %s", s.turn, s.n, tlRange(s.startMs, s.endMs))
	if s.open {
		class += " step-open"
		title += " (no step/end in the log)"
	}
	c.rect(class, s.startMs, s.endMs, top, tlBarH, title, "")
	for _, w := range s.waits {
		c.writeWait(w, top)
	}
	for _, r := range s.requests {
		c.writeRequest(r, top)
	}
}

// writeRequest draws one provider attempt: clean, failed (with its code), or cut short.
func (c *tlChart) writeRequest(r properties.Request, top float64) {
	start, end := r.StartMs-c.m.origin, r.EndMs-c.m.origin
	class, label := "req req-ok", fmt.Sprintf("#%d", r.Attempt)
	title := fmt.Sprintf("request %d.%d attempt %d: ", r.Turn, r.Step, r.Attempt)
	if r.Failed {
		class, label = "req req-failed", fmt.Sprintf("#%d %s", r.Attempt, r.FailCode)
		title += "failed " + r.FailCode
	} else {
		title += "clean answer"
	}
	if r.Fault != "" {
		title += " (fault " + r.Fault + ")"
	}
	if r.RetryAfterMs != 0 {
		title += fmt.Sprintf(", Retry-After %gms", r.RetryAfterMs)
	}
	if r.EndMs < 0 {
		var byCrash bool
		end, byCrash = c.m.cutShort(start)
		class += " req-cut"
		title += ", " + tlRange(start, end) + ", " + tlCutReason(byCrash)
	} else {
		title += ", " + tlRange(start, end)
	}
	c.rect(class, start, end, top, tlBarH-4, title, label)
}

// writeWait draws one backoff wait: the time it lasted and, when a cancel or a crash ended it
// early, the delay it was meant to last as a dashed outline.
func (c *tlChart) writeWait(w properties.Wait, top float64) {
	start := w.StartMs - c.m.origin
	planned := start + int64(w.DelayMs)
	title := fmt.Sprintf("backoff wait of %gms: ", w.DelayMs)
	class, end := "wait", w.EndMs-c.m.origin
	switch {
	case w.EndMs < 0:
		var byCrash bool
		end, byCrash = c.m.cutShort(start)
		end = min(end, planned)
		class += " wait-killed"
		title += tlRange(start, end) + ", " + tlCutReason(byCrash) + ", planned until " + tlAt(planned)
	case w.Cancelled:
		class += " wait-cancelled"
		title += fmt.Sprintf("%s, cancelled after %dms, planned until %s", tlRange(start, end), end-start, tlAt(planned))
	default:
		title += tlRange(start, end)
	}
	if end < planned {
		c.rect("wait-planned", start, planned, top, tlBarH-4, "planned: "+title, "")
	}
	c.rect(class, start, end, top, tlBarH-4, title, fmt.Sprintf("%gms", w.DelayMs))
}

// writeTool draws a tool call's lane: each run it made, coloured by outcome, or, for a call
// that never ran (unknown tool, kept from starting by an abort, cut off by a crash), a marker
// where its synthetic result was written.
func (c *tlChart) writeTool(t *tlTool, depth int) {
	top := c.lane(strings.TrimSpace(t.callID+" "+t.name), "lane-tool", depth, tlLaneH)
	for _, r := range t.runs {
		start, end := r.StartMs-c.m.origin, r.EndMs-c.m.origin
		outcome, class := r.Outcome, "tool tool-"+tlClass(r.Outcome)
		var cut string
		if r.EndMs < 0 {
			var byCrash bool
			end, byCrash = c.m.cutShort(start)
			outcome, class, cut = "never returned", "tool tool-killed", ", "+tlCutReason(byCrash)
		}
		title := fmt.Sprintf("tool call %s %s: %s, %s%s", t.callID, r.Name, outcome, tlRange(start, end), cut)
		if r.Content != "" {
			title += "\n" + r.Content
		}
		if !r.HonoursCancel {
			title += "\nignores its cancelled context"
		}
		c.rect(class, start, end, top, tlBarH-4, title+tlToolResult(t), outcome)
	}
	if len(t.runs) > 0 {
		return
	}
	at, what := t.resultMs, "never ran"
	if at < 0 {
		at, what = t.callMs, "never ran, and no tool/result in the log"
	}
	title := fmt.Sprintf("tool call %s %s: %s, at %s%s", t.callID, t.name, what, tlAt(at), tlToolResult(t))
	c.marker("tool-synthetic", "diamond", at, top, title)
}

// writeOrphans draws waits and tool runs the log does not place in any step, so nothing the
// simulator saw is left off the chart.
func (c *tlChart) writeOrphans() {
	if len(c.m.orphanWaits) > 0 {
		top := c.lane("waits outside any step", "lane-step", 0, tlLaneH)
		for _, w := range c.m.orphanWaits {
			c.writeWait(w, top)
		}
	}
	for _, t := range c.m.orphanTools {
		c.writeTool(t, 0)
	}
}

// ---------------------------------------------------------------------------------------------
// Markers across the chart: the horizon, cancellations, crashes, restarts, violations.
// ---------------------------------------------------------------------------------------------

// writeVerticals draws the instants that concern the whole run as lines from the axis to the
// bottom of the lanes, with their labels staggered in their own lanes so neighbours stay
// readable.
func (c *tlChart) writeVerticals(bottom float64) {
	origin := c.m.origin
	if h := c.m.horizonMs; h > 0 && h <= c.m.endMs {
		c.vline("horizon", h, bottom, fmt.Sprintf("horizon at %s: faults stop, the agent must settle", tlAt(h)), "", 0)
	}
	for _, cr := range c.m.trace.Crashes {
		c.vline("crash-line", cr.AtMs-origin, bottom, tlCrashTitle(cr, origin), "", 0)
	}
	for _, r := range c.m.trace.Restarts {
		c.vline("restart-line", r.AtMs-origin, bottom, tlRestartTitle(r, origin), "", 0)
	}
	for i, cn := range c.m.trace.Cancels {
		kind := cn.Kind
		if cn.Reason != "" {
			kind += ": " + cn.Reason
		}
		title := fmt.Sprintf("cancel (%s) at %s", kind, tlAt(cn.AtMs-origin))
		if cn.KeepInbox {
			title += ", keepInbox"
		}
		if cn.Running {
			title += fmt.Sprintf(", turn %d running", cn.Turn)
		} else {
			title += ", no turn running"
		}
		c.vline("cancel cancel-"+tlClass(cn.Kind), cn.AtMs-origin, bottom, title, cn.Kind, c.cancelY+11+float64(i%2)*12)
	}
	i := 0
	for _, v := range c.m.violations {
		if v.AtMs < 0 {
			continue
		}
		c.vline("violation", v.AtMs-origin, bottom, v.String(), v.Property, c.violationY+11+float64(i%2)*12)
		i++
	}
}

// vline draws one vertical marker line with its tooltip and, when label is set, its label at
// labelY.
func (c *tlChart) vline(class string, atMs int64, bottom float64, title, label string, labelY float64) {
	x := c.x(atMs)
	fmt.Fprintf(c.b, "<g class=\"vline %s\"><title>%s</title><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", class, tlEsc(title), x, tlAxisH-6, x, bottom)
	if label != "" {
		// A label that would run off the right edge is written to the left of its line.
		anchor, lx := "start", x+3
		if x+3+float64(utf8.RuneCountInString(label))*6 > tlWidth {
			anchor, lx = "end", x-3
		}
		fmt.Fprintf(c.b, "<text class=\"vlabel\" text-anchor=\"%s\" x=\"%.1f\" y=\"%.1f\">%s</text>", anchor, lx, labelY, tlEsc(label))
	}
	c.b.WriteString("</g>\n")
}

// tlLegend is the chart's key: a CSS class, the shape that shows it, and what it means.
var tlLegend = []struct{ class, shape, label string }{
	{"turn-completed", "bar", "turn completed"}, {"turn-max-tokens", "bar", "turn max-tokens"},
	{"turn-aborted", "bar", "turn aborted"}, {"turn-error", "bar", "turn error"},
	{"turn-interrupted", "bar", "turn interrupted"}, {"turn-open", "bar", "turn still open"},
	{"step-bar", "bar", "step"}, {"req req-ok", "bar", "attempt, clean"},
	{"req req-failed", "bar", "attempt, failed"}, {"req req-ok req-cut", "bar", "attempt cut short"},
	{"wait", "bar", "backoff wait"}, {"wait wait-cancelled", "bar", "wait cancelled"},
	{"wait-planned", "bar", "delay not waited"}, {"tool tool-ok", "bar", "tool ok"},
	{"tool tool-error", "bar", "tool error"}, {"tool tool-panic", "bar", "tool panic"},
	{"tool tool-goexit", "bar", "tool Goexit"}, {"tool tool-cancelled", "bar", "tool cancelled"},
	{"tool tool-killed", "bar", "tool killed"},
	{"tool-synthetic", "diamond", "call never ran"}, {"send", "circle", "user send"},
	{"cancel-swatch", "bar", "cancellation"}, {"crash", "cross", "crash"},
	{"restart", "triangle", "restart"}, {"refusal", "square", "append refused"},
	{"violation-swatch", "bar", "violation"}, {"horizon-swatch", "bar", "horizon"},
}

// tlLegendPerRow is how many legend entries fit on one row of the chart's width.
const tlLegendPerRow = 7

// writeLegend draws the key under the lanes, starting at top.
func (c *tlChart) writeLegend(top float64) {
	c.b.WriteString("<g class=\"legend\"><title>legend</title>\n")
	colW := (tlWidth - 20) / tlLegendPerRow
	for i, l := range tlLegend {
		x := 10 + float64(i%tlLegendPerRow)*colW
		y := top + float64(i/tlLegendPerRow)*20
		fmt.Fprintf(c.b, "<g class=\"%s legend-swatch\"><title>%s</title>", l.class, tlEsc(l.label))
		if l.shape == "bar" {
			fmt.Fprintf(c.b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"26\" height=\"10\"/>", x, y+5)
		} else {
			c.b.WriteString(tlShape(l.shape, x+13, y+10))
		}
		fmt.Fprintf(c.b, "</g><text class=\"legend-label\" x=\"%.1f\" y=\"%.1f\">%s</text>\n", x+32, y+14, tlEsc(l.label))
	}
	c.b.WriteString("</g>\n")
}

// tlLegendH is the legend's height.
func tlLegendH() float64 {
	return float64((len(tlLegend)+tlLegendPerRow-1)/tlLegendPerRow)*20 + 10
}

// tlWriteChart lays the lanes out first (their total height sizes the SVG), then writes the
// SVG: definitions, axis and grid, lanes, the vertical markers on top, and the legend.
func tlWriteChart(b *bytes.Buffer, m *tlModel) {
	var lanes bytes.Buffer
	c := &tlChart{m: m, b: &lanes, y: tlAxisH}
	c.writeViolationLane()
	c.writeUserLanes()
	c.writeHostLane()
	for _, t := range m.turns {
		c.writeTurn(t)
	}
	c.writeOrphans()
	bottom := c.y
	height := bottom + 24 + tlLegendH()

	fmt.Fprintf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"timeline\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\">\n", tlWidth, height, tlWidth, height)
	b.WriteString("<title>timeline of the run in virtual time</title>\n")
	b.WriteString(tlDefs)
	c.b = b
	c.writeAxis(bottom)
	b.Write(lanes.Bytes())
	c.writeVerticals(bottom)
	c.writeLegend(bottom + 24)
	b.WriteString("</svg>\n")
}

// tlDefs are the hatch patterns: an open turn, a backoff wait, a wait cut short.
const tlDefs = `<defs>
<pattern id="hatch-open" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="8" height="8" fill="#e8e8e8"/><line x1="0" y1="0" x2="0" y2="8" stroke="#8a8a8a" stroke-width="3"/></pattern>
<pattern id="hatch-wait" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#d6e9f8"/><line x1="0" y1="0" x2="0" y2="6" stroke="#6aa6d6" stroke-width="2"/></pattern>
<pattern id="hatch-cancelled" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#fbe3d3"/><line x1="0" y1="0" x2="0" y2="6" stroke="#e0823d" stroke-width="2"/></pattern>
</defs>
`

// ---------------------------------------------------------------------------------------------
// Tooltip texts shared by lanes and lines.
// ---------------------------------------------------------------------------------------------

func tlCrashTitle(cr properties.Crash, origin int64) string {
	title := "crash at " + tlAt(cr.AtMs-origin)
	if cr.PowerLoss {
		title = "power loss at " + tlAt(cr.AtMs-origin)
	}
	if cr.InAppend {
		title += fmt.Sprintf(" inside an append (line written: %s)", cr.Written)
	}
	if cr.PowerLoss {
		title += fmt.Sprintf(", %d unsynced bytes lost", cr.DroppedBytes)
	}
	return title + fmt.Sprintf(", durable log %d bytes", cr.DurableBytes)
}

func tlRestartTitle(r properties.Restart, origin int64) string {
	title := fmt.Sprintf("restart at %s from %d durable events", tlAt(r.AtMs-origin), r.DurableEvents)
	if r.Torn {
		title += ", torn last line cut off"
	}
	if r.RepairedTurn > 0 {
		title += fmt.Sprintf(", crash repair closed turn %d", r.RepairedTurn)
	}
	if r.Err != "" {
		title += ", failed: " + r.Err
	}
	return title
}

// tlCutReason says why something that never ended is drawn where it stops.
func tlCutReason(byCrash bool) string {
	if byCrash {
		return "never ended: killed by the crash"
	}
	return "never ended before the end of the run"
}

// tlToolResult adds the call's logged result to a tooltip.
func tlToolResult(t *tlTool) string {
	if t.result == nil {
		return ""
	}
	r := t.result
	if !r.IsError {
		return fmt.Sprintf("\ntool/result at %s: ok", tlAt(t.resultMs))
	}
	code := "error"
	if r.Error != nil {
		code = r.Error.Code + ": " + r.Error.Message
	}
	return fmt.Sprintf("\ntool/result at %s: %s", tlAt(t.resultMs), code)
}

// ---------------------------------------------------------------------------------------------
// The document around the chart.
// ---------------------------------------------------------------------------------------------

// tlStyle is the document's only stylesheet. Colours say how things ended: greens for success,
// oranges for failures that were retried or survived, reds for errors, violet for aborts, grey
// for what was cut short; a violation is pure red.
const tlStyle = `<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 16px 20px; color: #1d1d1f; background: #ffffff; }
h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 20px 0 6px; }
.sub { color: #555; margin: 0 0 10px; }
.chart { overflow-x: auto; border: 1px solid #ddd; }
svg.timeline { display: block; font: 11px system-ui, sans-serif; background: #fcfcfc; }
dl.run { display: grid; grid-template-columns: max-content auto; gap: 2px 14px; margin: 0; }
dl.run dt { font-weight: 600; } dl.run dd { margin: 0; }
ol.violations li { color: #b00000; } .none { color: #2e7d32; }
pre.log { background: #f6f8fa; border: 1px solid #ddd; padding: 8px; font: 12px/1.35 ui-monospace, monospace; overflow-x: auto; }
.stripe { fill: #f1f3f6; }
.grid { stroke: #d9dde3; stroke-width: 1; } .axis-line { stroke: #888; }
.tick { fill: #444; text-anchor: middle; } .axis-name { fill: #666; font-style: italic; }
.lane-label { fill: #222; } .lane-turn { font-weight: 600; } .lane-tool { fill: #444; font-family: ui-monospace, monospace; }
.lane-violation { fill: #d00000; font-weight: 600; }
.in-label { fill: #fff; font-size: 9.5px; pointer-events: none; }
.turn-bar rect { stroke: #333; stroke-width: 0.5; }
.turn-completed rect { fill: #2e9d57; } .turn-max-tokens rect { fill: #d9a400; }
.turn-aborted rect { fill: #7b61c4; } .turn-error rect { fill: #c0392b; }
.turn-interrupted rect { fill: #5d6d7e; } .turn-open rect { fill: url(#hatch-open); stroke-dasharray: 4 2; }
.turn-open .in-label { fill: #222; }
.step-bar rect { fill: #e3e8ef; stroke: #9aa7b8; stroke-width: 0.5; } .step-open rect { stroke-dasharray: 3 2; }
.req rect { stroke: #1b2a3a; stroke-width: 0.5; } .req-ok rect { fill: #2f6fd0; } .req-failed rect { fill: #e8731c; }
.req-cut rect { fill: #9aa3ad; stroke-dasharray: 3 2; }
.wait rect { fill: url(#hatch-wait); stroke: #4a8cc4; stroke-width: 0.8; } .wait .in-label { fill: #12324f; }
.wait-cancelled rect { fill: url(#hatch-cancelled); stroke: #d0621c; stroke-width: 1.2; }
.wait-killed rect { stroke-dasharray: 3 2; }
.wait-planned rect { fill: none; stroke: #7a8794; stroke-width: 0.8; stroke-dasharray: 3 2; }
.tool rect { stroke: #222; stroke-width: 0.5; }
.tool-ok rect { fill: #27ae60; } .tool-error rect { fill: #f39c12; } .tool-panic rect { fill: #8e1f6b; }
.tool-goexit rect { fill: #8e1f6b; stroke-dasharray: 2 2; }
.tool-cancelled rect { fill: #95a5a6; } .tool-killed rect { fill: #2c3e50; stroke-dasharray: 3 2; }
.tool-synthetic path { fill: #bdc3c7; stroke: #555; }
.send circle { fill: #3b82c4; stroke: #fff; } .send-steer circle { fill: #0f9d9a; } .send-inject circle { fill: #8fb8de; }
.send-refused circle { fill: #fff; stroke: #c0392b; stroke-width: 1.5; }
.crash path { stroke: #000; stroke-width: 3; fill: none; } .restart path { fill: #2e9d57; } .refusal rect { fill: #e8731c; stroke: #7a3a0a; }
.vline line { stroke-width: 1.5; } .vlabel { font-size: 10px; }
.cancel line { stroke: #7b61c4; stroke-dasharray: 5 3; } .cancel .vlabel { fill: #5a3fa8; }
.cancel-user line { stroke: #1f77b4; } .cancel-parent line { stroke: #17a2b8; } .cancel-hook line { stroke: #7b61c4; }
.cancel-disposed line { stroke: #8c564b; } .cancel-plugin-end line { stroke: #9a9a1c; }
.crash-line line { stroke: #000; stroke-width: 1; stroke-dasharray: 1 3; } .restart-line line { stroke: #2e9d57; stroke-width: 1; stroke-dasharray: 1 3; }
.horizon line { stroke: #555; stroke-width: 1; stroke-dasharray: 8 4; }
.violation line { stroke: #ff0000; stroke-width: 2; } .violation .vlabel { fill: #d00000; font-weight: 700; }
.legend-label { fill: #333; }
.cancel-swatch rect { fill: #7b61c4; } .violation-swatch rect { fill: #ff0000; } .horizon-swatch rect { fill: #555; }
</style>
`

// tlWriteHead writes the document's head, its stylesheet and the title line.
func tlWriteHead(b *bytes.Buffer, o Run, m *tlModel) {
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	fmt.Fprintf(b, "<title>turnsim timeline: seed %d</title>\n", o.Seed)
	b.WriteString(tlStyle)
	b.WriteString("</head>\n<body>\n")
	fmt.Fprintf(b, "<h1>turnsim timeline: seed %d</h1>\n", o.Seed)
	fmt.Fprintf(b, "<p class=\"sub\">%d events, %s of virtual time, %d violation(s). Hover over a mark for its details.</p>\n<div class=\"chart\">\n",
		len(o.Log), tlAt(m.endMs), len(o.Violations))
}

// tlWriteSummary writes what lies under the chart: the run's facts, the violations and the
// textual timeline.
func tlWriteSummary(b *bytes.Buffer, o Run, m *tlModel) {
	b.WriteString("</div>\n<h2>Run</h2>\n<dl class=\"run\">\n")
	row := func(name, value string) {
		fmt.Fprintf(b, "<dt>%s</dt><dd>%s</dd>\n", tlEsc(name), tlEsc(value))
	}
	row("seed", strconv.FormatInt(o.Seed, 10))
	if o.Strategy != "" {
		row("strategy", o.Strategy)
	}
	row("faults that struck", tlList(o.Exercised))
	row("events", strconv.Itoa(len(o.Log)))
	row("turn outcomes", tlList(o.Outcomes))
	row("virtual time", tlAt(m.endMs))
	if m.horizonMs > 0 {
		row("horizon", tlAt(m.horizonMs))
	}
	row("log digest", fmt.Sprintf("%x", o.Digest))
	for _, f := range o.Trace.Findings {
		row("finding", f)
	}
	b.WriteString("</dl>\n")
	fmt.Fprintf(b, "<h2>Violations (%d)</h2>\n", len(o.Violations))
	if len(o.Violations) == 0 {
		b.WriteString("<p class=\"none\">none: every property held</p>\n")
	} else {
		b.WriteString("<ol class=\"violations\">\n")
		for _, v := range o.Violations {
			fmt.Fprintf(b, "<li class=\"violation-item\"><strong>%s</strong>: %s</li>\n", tlEsc(v.Property), tlEsc(strings.TrimPrefix(v.String(), v.Property)))
		}
		b.WriteString("</ol>\n")
	}
	b.WriteString("<h2>Session log</h2>\n<pre class=\"log\">")
	b.WriteString(tlEsc(tlLogText(o.Log, m.origin, m.describe)))
	b.WriteString("</pre>\n")
}

// tlList joins names for the summary, "none" when there are none.
func tlList(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// ---------------------------------------------------------------------------------------------
// Text: escaping and trimming.
// ---------------------------------------------------------------------------------------------

// tlEsc escapes text for HTML and for the SVG inside it, which must also be well-formed XML:
// characters XML 1.0 forbids (controls, invalid UTF-8) become U+FFFD first.
func tlEsc(s string) string {
	return html.EscapeString(strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			return r
		case r < 0x20, r == utf8.RuneError, r == 0xFFFE, r == 0xFFFF, r >= 0xD800 && r <= 0xDFFF:
			return utf8.RuneError
		}
		return r
	}, s))
}

// tlClass turns a kind or outcome into a CSS class name part: letters, digits and dashes only.
func tlClass(s string) string {
	if s == "" {
		return "none"
	}
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return '-'
	}, s)
}

// tlClip shortens a lane label to n characters, so it stays in the label column; the full text
// is in the tooltips.
func tlClip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}
