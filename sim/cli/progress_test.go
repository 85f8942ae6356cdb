package cli

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeProgress is a progress on a buffer with a clock the test moves.
func fakeProgress(mode progressMode, terminal bool) (*progress, *bytes.Buffer, *time.Time) {
	var out bytes.Buffer
	clock := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	p := newProgress(&out, "simrun", mode)
	p.terminal, p.now, p.begin = terminal, func() time.Time { return clock }, clock
	return p, &out, &clock
}

// Off a terminal, a long run writes a line at most every 10 s (seeds done, rate, time left), and
// a short one nothing.
func TestProgressOffATerminalIsALineEveryTenSeconds(t *testing.T) {
	p, out, clock := fakeProgress(progressAuto, false)
	for done := 1; done <= 200_000; done++ {
		*clock = clock.Add(4 * time.Millisecond) // 250 seeds/s: 800 s in all
		p.update(done, 200_000, 0)
		if done == 2000 {
			assert.Empty(t, out.String(), "8 s in: nothing yet")
		}
	}
	p.finish()
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	assert.Len(t, lines, 80, "one line per 10 s of 800 s (the last at the end)")
	assert.Equal(t, "simrun: 2500/200000 seeds, 0 failing, 250 seeds/s, ETA 13m10s", lines[0])
	assert.Equal(t, "simrun: 200000/200000 seeds, 0 failing, 250 seeds/s", lines[len(lines)-1])

	short, shortOut, shortClock := fakeProgress(progressAuto, false)
	for done := 1; done <= 100; done++ {
		*shortClock = shortClock.Add(50 * time.Millisecond)
		short.update(done, 100, 0)
	}
	assert.Empty(t, shortOut.String(), "a 5 s run prints nothing extra")
}

// On a terminal the bar appears after a second and carries the time left; -progress never and
// always override the pacing; failures show when the runner counts them.
func TestProgressBarAndModes(t *testing.T) {
	p, out, clock := fakeProgress(progressAuto, true)
	*clock = clock.Add(2 * time.Second)
	p.update(100, 1000, 3)
	p.finish()
	assert.Equal(t, "\r[####....................................] 100/1000 seeds, 3 failing, 50 seeds/s, ETA 18s\r\033[K", out.String())

	never, neverOut, neverClock := fakeProgress(progressNever, false)
	*neverClock = neverClock.Add(time.Hour)
	never.update(1, 2, 0)
	assert.Empty(t, neverOut.String())

	always, alwaysOut, _ := fakeProgress(progressAlways, false)
	always.update(1, 2, 0)
	assert.Equal(t, "simrun: 1/2 seeds, 0 failing\n", alwaysOut.String())

	code, _, errOut := simrun("run", "-seeds", "2", "-progress", "sometimes")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, `-progress "sometimes" is not auto, always or never`)
}

// -check-determinism says in the summary that it ran, and what it found.
func TestCheckDeterminismIsStatedInTheSummary(t *testing.T) {
	code, out, errOut := simrun("run", "-seeds", "20", "-check-determinism")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "determinism        checked: every seed ran twice; 0 seeds gave different logs")
	_, plain, _ := simrun("run", "-seeds", "20")
	assert.NotContains(t, plain, "determinism")

	_, asJSON, _ := simrun("run", "-seeds", "20", "-check-determinism", "-json")
	var summary map[string]any
	require.NoError(t, json.Unmarshal([]byte(asJSON), &summary))
	assert.Equal(t, true, summary["determinismChecked"])
	_, asJSON, _ = simrun("run", "-seeds", "20", "-json")
	require.NoError(t, json.Unmarshal([]byte(asJSON), &summary))
	assert.Equal(t, false, summary["determinismChecked"])
}

// A run over the whole int64 seed range has an ETA too long for time.Duration: it reads as such,
// never as a negative overflow.
func TestProgressETAOfAnEndlessRun(t *testing.T) {
	text := progressText(10, math.MaxInt64, 0, time.Second)
	assert.Contains(t, text, "ETA over 100 years")
	assert.NotContains(t, text, "-")
	assert.Contains(t, progressText(10, 20, 0, time.Second), "ETA 1s")
}
