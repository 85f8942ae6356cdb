package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// progressMode is -progress: whether a run reports its progress on stderr.
type progressMode string

const (
	// progressAuto: a bar on a terminal once a run has lasted a second; elsewhere (CI logs, a
	// batch job) a line every 10 s once it has lasted 10 s, so a short run prints nothing extra
	// and a long one is never silent for long.
	progressAuto   progressMode = "auto"
	progressAlways progressMode = "always" // from the first seed, however short the run
	progressNever  progressMode = "never"
)

func parseProgressMode(s string) (progressMode, error) {
	switch mode := progressMode(s); mode {
	case progressAuto, progressAlways, progressNever:
		return mode, nil
	}
	return "", fmt.Errorf("-progress %q is not auto, always or never", s)
}

// Pacing of the two forms of progress.
const (
	barDelay      = time.Second            // a bar appears once a run has lasted this long
	barInterval   = 100 * time.Millisecond // and is redrawn at most this often
	lineInterval  = 10 * time.Second       // a line is written at most this often, off a terminal
	barWidthChars = 40
)

// progress reports a run's progress on stderr: a bar redrawn in place on a terminal, a line at a
// time elsewhere (seeds done, failures so far, rate, time left).
type progress struct {
	mu       sync.Mutex
	w        io.Writer
	name     string // the program's, before each line
	mode     progressMode
	terminal bool
	now      func() time.Time // the clock: a test seam
	begin    time.Time
	last     time.Time
	drawn    bool
}

func newProgress(w io.Writer, name string, mode progressMode) *progress {
	p := &progress{w: w, name: name, mode: mode, now: time.Now}
	if f, ok := w.(*os.File); ok {
		if info, err := f.Stat(); err == nil && info.Mode()&os.ModeCharDevice != 0 {
			p.terminal = true
		}
	}
	p.begin = p.now()
	return p
}

// update is called from the workers as seeds finish, with the failing seeds so far.
func (p *progress) update(done, total, failures int) {
	if p.mode == progressNever {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	delay, interval := barDelay, barInterval
	if !p.terminal {
		delay, interval = lineInterval, lineInterval
	}
	if p.mode == progressAlways {
		delay = 0
	}
	finished := done == total // the last update is always shown, once progress has been
	if now.Sub(p.begin) < delay || (p.drawn && now.Sub(p.last) < interval && !finished) {
		return
	}
	p.last, p.drawn = now, true
	elapsed := now.Sub(p.begin)
	if p.terminal {
		filled := barWidthChars * done / max(total, 1)
		fmt.Fprintf(p.w, "\r[%s%s] %s", strings.Repeat("#", filled), strings.Repeat(".", barWidthChars-filled), progressText(done, total, failures, elapsed))
		return
	}
	fmt.Fprintf(p.w, "%s: %s\n", p.name, progressText(done, total, failures, elapsed))
}

// progressText is "done/total seeds, failures, rate, ETA".
func progressText(done, total, failures int, elapsed time.Duration) string {
	text := fmt.Sprintf("%d/%d seeds, %d failing", done, total, failures)
	if elapsed <= 0 || done == 0 {
		return text
	}
	rate := float64(done) / elapsed.Seconds()
	text += fmt.Sprintf(", %.0f seeds/s", rate)
	if done < total {
		text += ", ETA " + etaText(float64(total-done)/rate)
	}
	return text
}

// etaMaxSeconds is the longest ETA worth a number: a run over the int64 seed range would
// otherwise overflow time.Duration into a negative ETA.
const etaMaxSeconds = 100 * 365 * 24 * 3600

// etaText renders the seconds left, or "over 100 years".
func etaText(seconds float64) string {
	if seconds > etaMaxSeconds {
		return "over 100 years"
	}
	return time.Duration(seconds * float64(time.Second)).Round(time.Second).String()
}

// finish clears the bar, so the summary starts on a clean line.
func (p *progress) finish() {
	if p.drawn && p.terminal {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
