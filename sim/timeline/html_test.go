package timeline

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"html"
	"image"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/properties"
	"github.com/turnsim/turnsim/sim"
)

// timelineFeatures names what a seed's run must show for the chart to be tested on it, and how
// to tell from the outcome. Seeds are found by scanning, not hard-coded, so a change to how
// plans are drawn cannot quietly leave a mark untested.
var timelineFeatures = []struct {
	name string
	has  func(o sim.Outcome) bool
}{
	{"tool calls", func(o sim.Outcome) bool { return len(o.Trace.Tools) >= 2 }},
	{"retries", func(o sim.Outcome) bool { return len(o.Trace.Waits) >= 2 }},
	{"cancelled wait", func(o sim.Outcome) bool {
		return slices.ContainsFunc(o.Trace.Waits, func(w properties.Wait) bool { return w.Cancelled })
	}},
	{"cancel", func(o sim.Outcome) bool {
		return slices.ContainsFunc(o.Trace.Cancels, func(c properties.Cancel) bool { return c.Running })
	}},
	{"crash", func(o sim.Outcome) bool { return len(o.Trace.Crashes) > 0 && len(o.Trace.Restarts) > 0 }},
	{"refused append", func(o sim.Outcome) bool { return len(o.Trace.Refusals) > 0 }},
	{"open turn", func(o sim.Outcome) bool { return slices.Contains(timelineTurnKinds(o), "open") }},
}

// timelineSeeds returns, for each feature, the first seed from 1 whose run shows it.
func timelineSeeds(t *testing.T) map[string]int64 {
	t.Helper()
	found := map[string]int64{}
	for seed := int64(1); seed <= 400 && len(found) < len(timelineFeatures); seed++ {
		o := sim.RunSchedule(sim.NewSchedule(seed, nil))
		for _, f := range timelineFeatures {
			if _, ok := found[f.name]; !ok && f.has(o) {
				found[f.name] = seed
			}
		}
	}
	for _, f := range timelineFeatures {
		require.Contains(t, found, f.name, "no seed in 1..400 shows %s", f.name)
	}
	return found
}

// timelineTurnKinds lists, per turn of the log in turn order, how it ended ("open" if it did
// not).
func timelineTurnKinds(o sim.Outcome) []string {
	kinds := map[int]string{}
	for _, e := range o.Log {
		switch d := e.Data.(type) {
		case harness.TurnStart:
			if _, ok := kinds[d.Turn]; !ok {
				kinds[d.Turn] = "open"
			}
		case harness.TurnEnd:
			kinds[d.Turn] = d.Reason.Kind
		}
	}
	var out []string
	for _, n := range tlSortedKeys(kinds) {
		out = append(out, kinds[n])
	}
	return out
}

// timelineSVG returns the one <svg>…</svg> element of a document.
func timelineSVG(t *testing.T, doc string) string {
	t.Helper()
	start, end := strings.Index(doc, "<svg"), strings.Index(doc, "</svg>")
	require.True(t, start >= 0 && end > start, "the document holds an <svg> element")
	require.Equal(t, 1, strings.Count(doc, "<svg"), "exactly one <svg>")
	return doc[start : end+len("</svg>")]
}

// timelineCheckWellFormed parses the SVG as XML and checks that every group (each mark is one) has a
// <title> for its tooltip as its first child.
func timelineCheckWellFormed(t *testing.T, svg string) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(svg))
	d.Strict = true
	groups, untitled := 0, 0
	var afterGroup bool
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err, "the SVG is well-formed XML")
		if el, ok := tok.(xml.StartElement); ok {
			if afterGroup && el.Name.Local != "title" {
				untitled++
			}
			afterGroup = el.Name.Local == "g"
			if afterGroup {
				groups++
			}
		}
	}
	assert.Positive(t, groups)
	assert.Zero(t, untitled, "every mark has a <title> first")
}

// timelineCheckNoNetwork checks the document loads nothing: no address but the SVG namespace, no
// script, stylesheet link, import or remote url().
func timelineCheckNoNetwork(t *testing.T, doc string) {
	t.Helper()
	rest := strings.ReplaceAll(doc, `xmlns="http://www.w3.org/2000/svg"`, "")
	for _, banned := range []string{"http://", "https://", "<script", "<link", "@import", "url(http", "<img", "<iframe", "src="} {
		assert.NotContains(t, rest, banned)
	}
}

// timelineCheckMarkup checks a rendered timeline against the outcome it shows.
func timelineCheckMarkup(t *testing.T, o sim.Outcome, doc string) {
	t.Helper()
	assert.True(t, strings.HasPrefix(doc, "<!DOCTYPE html>"))
	assert.True(t, strings.HasSuffix(doc, "</html>\n"))
	svg := timelineSVG(t, doc)
	timelineCheckWellFormed(t, svg)
	timelineCheckNoNetwork(t, doc)
	legend := strings.Index(svg, `<g class="legend">`)
	require.Positive(t, legend, "the chart has a legend")
	svg = svg[:legend] // the legend's swatches use the marks' classes

	kinds := timelineTurnKinds(o)
	assert.Equal(t, len(kinds), strings.Count(svg, `class="turn-bar `), "one bar per turn")
	for _, k := range kinds {
		assert.Contains(t, svg, `class="turn-bar turn-`+k+`"`)
	}
	steps := map[[2]int]bool{}
	type call struct { // an id is unique in its step only
		turn, step int
		id         string
	}
	calls := map[call]bool{}
	for _, e := range o.Log {
		switch d := e.Data.(type) {
		case harness.StepStart:
			steps[[2]int{d.Turn, d.Step}] = true
		case harness.ToolCall:
			calls[call{d.Turn, d.Step, d.CallID}] = true
		}
	}
	for _, r := range o.Trace.Tools {
		calls[call{r.Turn, r.Step, r.CallID}] = true
	}
	assert.Equal(t, len(steps), strings.Count(svg, `class="lane-label lane-step"`), "one lane per step")
	assert.Equal(t, len(calls), strings.Count(svg, `class="lane-label lane-tool"`), "one lane per tool call")
	assert.Equal(t, len(o.Trace.Requests), strings.Count(svg, `<g class="req `), "one mark per provider attempt")
	assert.Equal(t, len(o.Trace.Waits), strings.Count(svg, `<g class="wait`)-strings.Count(svg, `<g class="wait-planned"`), "one mark per backoff wait")
	assert.Equal(t, len(o.Trace.Cancels), strings.Count(svg, `<g class="vline cancel `), "one line per cancellation")
	assert.Equal(t, len(o.Trace.Crashes), strings.Count(svg, `<g class="crash">`))
	assert.Equal(t, len(o.Trace.Restarts), strings.Count(svg, `<g class="restart">`))
	assert.Equal(t, len(o.Trace.Refusals), strings.Count(svg, `<g class="refusal">`))
	for _, c := range o.Trace.Cancels {
		assert.Contains(t, svg, ">"+c.Kind+"</text>", "the cancellation is labelled with its kind")
	}

	tickLabels := strings.Count(svg, `class="tick"`) / 2 // each tick is labelled above and below
	assert.GreaterOrEqual(t, tickLabels, 5)
	assert.LessOrEqual(t, tickLabels, 12)

	assert.Contains(t, doc, fmt.Sprintf("<dt>seed</dt><dd>%d</dd>", o.Schedule.Seed))
	assert.Contains(t, doc, fmt.Sprintf("<dt>events</dt><dd>%d</dd>", len(o.Log)))
	for _, f := range o.Exercised {
		assert.Contains(t, doc, f)
	}
	assert.Contains(t, doc, `<pre class="log">`+html.EscapeString(sim.Timeline(o.Log, 0))+"</pre>", "the textual timeline, in full")
}

func TestTimelineHTMLShowsEachKindOfRun(t *testing.T) {
	seeds := timelineSeeds(t)
	for _, f := range timelineFeatures {
		seed := seeds[f.name]
		t.Run(fmt.Sprintf("%s seed %d", f.name, seed), func(t *testing.T) {
			o := sim.RunSchedule(sim.NewSchedule(seed, nil))
			doc := HTML(FromOutcome(o))
			timelineCheckMarkup(t, o, string(doc))
			assert.Equal(t, doc, HTML(FromOutcome(sim.RunSchedule(sim.NewSchedule(seed, nil)))), "the same seed gives the same bytes")
			assert.Equal(t, doc, HTML(FromOutcome(o)), "the same outcome gives the same bytes")
		})
	}
}

func TestTimelineHTMLDrawsWhatTheTraceHolds(t *testing.T) {
	seeds := timelineSeeds(t)

	o := sim.RunSchedule(sim.NewSchedule(seeds["open turn"], nil))
	assert.Contains(t, string(HTML(FromOutcome(o))), `class="turn-bar turn-open"`, "an open turn is drawn hatched to the end")

	o = sim.RunSchedule(sim.NewSchedule(seeds["cancelled wait"], nil))
	assert.Contains(t, string(HTML(FromOutcome(o))), `<g class="wait wait-cancelled">`)
	assert.Contains(t, string(HTML(FromOutcome(o))), `<g class="wait-planned">`, "a cancelled wait shows the delay it did not wait")

	o = sim.RunSchedule(sim.NewSchedule(seeds["tool calls"], nil))
	r := o.Trace.Tools[0]
	want := fmt.Sprintf("tool call %s %s: %s, %s–%s", r.CallID, r.Name, r.Outcome, tlAt(r.StartMs), tlAt(r.EndMs))
	assert.Contains(t, string(HTML(FromOutcome(o))), want, "a tool call's tooltip")
}

func TestTimelineHTMLMarksViolations(t *testing.T) {
	seeds := timelineSeeds(t)
	o := sim.RunSchedule(sim.NewSchedule(seeds["tool calls"], nil))
	require.Empty(t, o.Violations)
	at := o.Log[len(o.Log)/2]
	o.Violations = append(slices.Clone(o.Violations),
		properties.Violation{Property: "fake-property", Message: `a <b>made-up</b> & "quoted" violation`, Seq: at.Seq, AtMs: at.Time},
		properties.Violation{Property: "timeless-property", Message: "no time applies", AtMs: -1},
	)
	doc := string(HTML(FromOutcome(o)))
	svg := timelineSVG(t, doc)
	timelineCheckWellFormed(t, svg)
	timelineCheckNoNetwork(t, doc)

	assert.Equal(t, 1, strings.Count(svg, `<g class="vline violation">`), "a red line at the violation's time, none for the timeless one")
	assert.Contains(t, svg, ">fake-property</text>", "labelled with the property")
	assert.Contains(t, svg, "lane-violation")
	assert.Equal(t, 2, strings.Count(doc, `<li class="violation-item">`), "both listed below the chart")
	assert.Contains(t, doc, "timeless-property")
	assert.Contains(t, doc, "a &lt;b&gt;made-up&lt;/b&gt; &amp; &#34;quoted&#34; violation")
	assert.NotContains(t, doc, "<b>made-up")
	assert.Contains(t, doc, "Violations (2)")
}

func TestTimelineHTMLSurvivesOddOutcomes(t *testing.T) {
	t.Run("empty", func(t *testing.T) {
		doc := string(HTML(FromOutcome(sim.Outcome{})))
		timelineCheckWellFormed(t, timelineSVG(t, doc))
		timelineCheckNoNetwork(t, doc)
		assert.Contains(t, doc, "<dt>events</dt><dd>0</dd>")
	})
	t.Run("hostile text and half-written records", func(t *testing.T) {
		o := sim.Outcome{
			Schedule: sim.Schedule{Seed: -3},
			Log: []harness.Event{
				{Seq: 1, Type: harness.TypeStepStart, Time: 10, Data: harness.StepStart{Turn: 2, Step: 1}},
				{Seq: 2, Type: harness.TypeToolCall, Time: 20, Data: harness.ToolCall{Turn: 2, Step: 1, CallID: "c<1>", Name: "x\x00\"&'"}},
				{Seq: 3, Type: harness.TypeToolResult, Time: 30, Data: harness.ToolResult{Turn: 2, Step: 1, CallID: "c<1>", IsError: true, Error: &harness.ToolError{Code: "TOOL_ERROR", Message: "]]> \xff"}}},
			},
			Trace: properties.Trace{
				Requests: []properties.Request{{Turn: 2, Step: 1, Attempt: 1, StartMs: 10, EndMs: -1}},
				Waits:    []properties.Wait{{StartMs: 50, EndMs: -1, DelayMs: 400}},
				Tools:    []properties.ToolRun{{CallID: "lost</g>", Name: "w", StartMs: 40, EndMs: -1}},
				Crashes:  []properties.Crash{{AtMs: 60, InAppend: true, Written: "half"}},
				Cancels:  []properties.Cancel{{AtMs: 5, Kind: "hook", Reason: "<why>"}},
			},
			Violations: []properties.Violation{{Property: "p", Message: "m", AtMs: 1_000_000}},
		}
		doc := string(HTML(FromOutcome(o)))
		svg := timelineSVG(t, doc)
		timelineCheckWellFormed(t, svg)
		timelineCheckNoNetwork(t, doc)
		assert.Equal(t, 1, strings.Count(svg, `class="turn-bar turn-open"`), "a turn seen only through its step is drawn open")
		assert.Contains(t, svg, "killed by the crash")
		assert.Contains(t, svg, "lost&lt;/g&gt;")
		assert.Contains(t, svg, "waits outside any step")
	})
}

func TestTimelineHTMLTicks(t *testing.T) {
	for _, end := range []int64{100, 101, 999, 1000, 1234, 5035, 9999, 10_000, 29_991, 58_251, 60_000, 99_999, 360_000, 3_600_000} {
		step := tlTickStep(end)
		ticks := end/step + 1
		assert.True(t, ticks >= 5 && ticks <= 12, "end %d: step %d gives %d ticks", end, step, ticks)
	}
	assert.Equal(t, "1.5s", tlSeconds(1500))
	assert.Equal(t, "0s", tlSeconds(0))
	assert.Equal(t, "12s", tlSeconds(12_000))
}

// timelineChromium returns the path of a Chromium binary, "" if none is installed.
func timelineChromium() string {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	return ""
}

// TestTimelineHTMLRendersInBrowser opens a report in headless Chromium and checks the screenshot
// shows a chart: several colours, and the turn bars' colours among them. Where no browser is
// installed it says so and checks the markup instead.
func TestTimelineHTMLRendersInBrowser(t *testing.T) {
	seeds := timelineSeeds(t)
	o := sim.RunSchedule(sim.NewSchedule(seeds["tool calls"], nil))
	doc := HTML(FromOutcome(o))
	chromium := timelineChromium()
	if chromium == "" {
		t.Log("chromium not installed: skipped the render, checked the markup")
		timelineCheckMarkup(t, o, string(doc))
		return
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "timeline.html")
	shot := filepath.Join(dir, "shot.png")
	require.NoError(t, os.WriteFile(page, doc, 0o644))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--screenshot="+shot, "--window-size=1400,900", "file://"+page)
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "chromium: %s", out)

	f, err := os.Open(shot)
	require.NoError(t, err, "chromium wrote no screenshot: %s", out)
	defer f.Close()
	img, err := png.Decode(f)
	require.NoError(t, err)
	bounds := img.Bounds()
	require.Equal(t, image.Rect(0, 0, 1400, 900), bounds)

	background := img.At(bounds.Max.X-30, bounds.Max.Y-5) // the page's margin
	colours := map[[3]uint32]bool{}
	differ := 0
	for y := bounds.Min.Y; y < bounds.Max.Y; y += 3 {
		for x := bounds.Min.X; x < bounds.Max.X; x += 3 {
			r, g, b, _ := img.At(x, y).RGBA()
			colours[[3]uint32{r >> 8, g >> 8, b >> 8}] = true
			if img.At(x, y) != background {
				differ++
			}
		}
	}
	assert.GreaterOrEqual(t, len(colours), 5, "the screenshot is not blank")
	assert.Greater(t, differ, 1000, "pixels differ from the background")
	turnColours := map[string][3]uint32{
		"completed": {0x2e, 0x9d, 0x57}, "max-tokens": {0xd9, 0xa4, 0x00}, "aborted": {0x7b, 0x61, 0xc4},
		"error": {0xc0, 0x39, 0x2b}, "interrupted": {0x5d, 0x6d, 0x7e},
	}
	for _, kind := range timelineTurnKinds(o) {
		if want, ok := turnColours[kind]; ok {
			assert.True(t, timelineHasColour(img, want), "a %s turn bar is drawn in its colour", kind)
		}
	}
}

// timelineHasColour reports whether some pixel of img is within a small distance of want (rendering
// may blend a colour slightly).
func timelineHasColour(img image.Image, want [3]uint32) bool {
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if timelineNear(r>>8, want[0]) && timelineNear(g>>8, want[1]) && timelineNear(bl>>8, want[2]) {
				return true
			}
		}
	}
	return false
}

func timelineNear(a, b uint32) bool { return a+4 >= b && b+4 >= a }

func TestTimelineHTMLWithoutDescribersWritesBareTypes(t *testing.T) {
	doc := string(HTML(Run{Log: []harness.Event{
		{Seq: 1, Type: harness.TypeTurnStart, Time: 0, Data: harness.TurnStart{Turn: 1}},
		{Seq: 2, Type: harness.TypeTurnEnd, Time: 1500, Data: harness.TurnEnd{Turn: 1, Reason: harness.TurnEndReason{Kind: "completed"}}},
	}}))
	timelineCheckWellFormed(t, timelineSVG(t, doc))
	assert.Contains(t, doc, "  +1.500s  "+harness.TypeTurnEnd+"\n", "the log's lines name the event type alone")
	assert.Contains(t, doc, "turn 1 completed", "the turn's bar is labelled with the reason's kind alone")
}
