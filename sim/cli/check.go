package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/harness/filestore"
	"github.com/turnsim/turnsim/properties"
)

// defaultLate is check's lateness tolerance: a log from the production runtime has timers that
// fire late on a busy machine (1–89 ms measured), and that is no bug of the harness. A simulator
// log is exact; check it with -late 0 to hold it to that.
const defaultLate = 250 * time.Millisecond

// checkReport is what `simrun check -json` prints: one entry per file, in argument order, and the
// total number of violations. The keys are stable; scripts may rely on them.
type checkReport struct {
	Files      []fileCheck `json:"files"`
	Violations int         `json:"violations"`
}

// fileCheck is the verdict on one session log.
type fileCheck struct {
	File string `json:"file"`
	// Events is how many events the file holds (a torn last line not counted).
	Events     int             `json:"events"`
	Violations []lineViolation `json:"violations"`
	// Torn is whether the last line was torn (no newline: a write cut short by a crash).
	Torn bool `json:"torn"`
	// PropertiesChecked is false when the invariant layer refused an event: the properties
	// assume a well-formed log, so they are not run on one that is not.
	PropertiesChecked bool `json:"propertiesChecked"`
	// NeedsRepair is the turn left open at the end of the log (0: none): a crash's, which crash
	// repair closes as interrupted when the agent next opens the log. It is not a violation.
	NeedsRepair int `json:"needsRepair,omitempty"`
	// Error says why the file could not be checked at all (it is unreadable).
	Error string `json:"error,omitempty"`

	torn *filestore.Torn
}

// lineViolation is one broken rule: the line of the event to blame (0 when no single event is),
// the invariant rule or property name, and what is wrong.
type lineViolation struct {
	Line    int    `json:"line"`
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

func (c *cli) check(args []string) int {
	fs := c.flagSet("check", "check [-json] [-late D] FILE…")
	asJSON := fs.Bool("json", false, "print the results as one JSON object on stdout")
	late := fs.Duration("late", defaultLate, "how late a real timer may fire before a timing property calls it a violation (0: exact, as in the simulator)")
	files, err := ParseFlags(fs, args)
	if err != nil {
		return FlagExit(err)
	}
	if len(files) == 0 {
		return c.usageError("check needs at least one session log: %s check FILE…", c.name)
	}
	if *late < 0 {
		return c.usageError("check: -late %v is negative", *late)
	}
	opts := properties.LogOptions{LateMs: late.Milliseconds()}
	report := checkReport{Files: make([]fileCheck, 0, len(files))}
	code := exitOK
	for _, path := range files {
		fc := checkFile(path, opts, c.opts.Agent.Seeded().Properties)
		report.Files = append(report.Files, fc)
		report.Violations += len(fc.Violations)
		switch {
		case fc.Error != "":
			fmt.Fprintf(c.stderr, "%s: unreadable: %s\n", path, fc.Error)
			code = exitUsage
		case len(fc.Violations) > 0 && code == exitOK:
			code = exitViolation
		}
		if fc.torn != nil {
			fmt.Fprintf(c.stderr, "%s: line %d: torn last line (a write cut short by a crash); checked the lines before it\n", path, fc.torn.Line)
		}
		if !*asJSON && fc.Error == "" {
			printFileCheck(c.stdout, fc)
		}
	}
	if *asJSON {
		out, err := json.MarshalIndent(report, "", "  ")
		if err != nil {
			panic(c.name + ": invariant: the check report always encodes: " + err.Error())
		}
		fmt.Fprintf(c.stdout, "%s\n", out)
	}
	return code
}

func printFileCheck(w io.Writer, c fileCheck) {
	for _, v := range c.Violations {
		if v.Line > 0 {
			fmt.Fprintf(w, "%s:%d: %s: %s\n", c.File, v.Line, v.Rule, v.Message)
		} else {
			fmt.Fprintf(w, "%s: %s: %s\n", c.File, v.Rule, v.Message)
		}
	}
	verdict := "ok"
	if n := len(c.Violations); n > 0 {
		verdict = fmt.Sprintf("%d violation%s", n, plural(n))
	}
	if c.NeedsRepair > 0 {
		verdict += fmt.Sprintf("; needs crash repair: turn %d is open at the end of the log (the agent closes it as interrupted when it next opens the log)", c.NeedsRepair)
	}
	if !c.PropertiesChecked {
		verdict += " (properties not checked: the invariant layer refused events, and the properties assume a well-formed log)"
	}
	fmt.Fprintf(w, "%s: %d event%s, %s\n", c.File, c.Events, plural(c.Events), verdict)
}

// checkFile reads one session log without changing it, decodes every complete line, replays the
// events through the invariant layer and then, if the layer took every one, checks the properties
// that need nothing but the log, the agent's own among them (judging by the log alone: Traced is
// false).
//
// A log is read twice: once line by line, stopping at the first line that does not decode (so a
// huge file with garbage early costs what its first lines do), and then whole, once it is known
// to decode.
func checkFile(path string, opts properties.LogOptions, own []properties.Property) fileCheck {
	c := fileCheck{File: path, Violations: []lineViolation{}}
	data, reason := readLog(path)
	if reason != "" {
		c.Error = reason
		return c
	}
	if data == nil { // a regular file, known to decode: read it whole
		var err error
		if data, err = readAtMost(path, sessionLogBytesMax); err != nil {
			c.Error = err.Error()
			return c
		}
	}
	events, torn, err := filestore.Scan(path, data)
	if err != nil {
		var format *filestore.FormatError
		if !errors.As(err, &format) {
			panic("cli: invariant: filestore.Scan fails only with a *FormatError: " + err.Error())
		}
		c.Error = oneLine(fmt.Sprintf("line %d: %s", format.Line, format.Reason))
		return c
	}
	c.Events, c.torn, c.Torn = len(events), torn, torn != nil
	complete := data
	if torn != nil {
		complete = data[:len(data)-torn.Bytes]
	}
	c.Violations = append(c.Violations, formatViolations(complete, events)...)
	refused := replayInvariants(events)
	c.Violations = append(c.Violations, refused...)
	if len(refused) == 0 { // the properties assume a log the invariant layer takes whole
		c.PropertiesChecked = true
		found, needsRepair := logPropertyViolations(events, complete, opts, own)
		c.Violations, c.NeedsRepair = append(c.Violations, found...), needsRepair
	}
	sortByLine(c.Violations)
	return c
}

// logPropertyViolations checks the properties that need nothing but the log, each violation
// placed on the line of the event it names.
func logPropertyViolations(events []harness.Event, complete []byte, opts properties.LogOptions, own []properties.Property) (found []lineViolation, needsRepair int) {
	lineOfSeq := make(map[int64]int, len(events))
	for i, e := range events {
		lineOfSeq[e.Seq] = i + 1
	}
	verdict := properties.CheckLogWith(events, complete, opts)
	if len(own) > 0 {
		run := &properties.Run{Log: events, JSONL: complete, Trace: properties.Trace{IdleAtMs: -1}, LateMs: opts.LateMs}
		verdict.Violations = append(verdict.Violations, properties.CheckOnly(run, own)...)
	}
	for _, v := range verdict.Violations {
		found = append(found, lineViolation{Line: lineOfSeq[v.Seq], Rule: v.Property, Message: oneLine(v.Message)})
	}
	return found, verdict.NeedsRepair
}

// sortByLine orders violations by line, file-level ones last, keeping the order within a line.
func sortByLine(violations []lineViolation) {
	sort.SliceStable(violations, func(i, j int) bool { return lineOrder(violations[i].Line) < lineOrder(violations[j].Line) })
}

// replayInvariants runs events through a fresh invariant layer and reports every refusal, not
// just the first: a refused event is not taken into the layer's state, and the replay goes on, so
// independent breakages in one file are all found.
//
// The seq rule is judged against the file's own numbering (each line's seq follows the previous
// line's, whether or not that event was refused), and the layer sees every event renumbered to
// follow what it accepted: so a refused event, or one gap in the numbering, is reported once
// instead of making every later line "out of sequence".
func replayInvariants(events []harness.Event) []lineViolation {
	var found []lineViolation
	v := harness.NewValidator()
	var previousSeq, accepted int64
	for i, e := range events {
		line := i + 1
		if e.Seq != previousSeq+1 {
			found = append(found, lineViolation{line, harness.RuleSeq, fmt.Sprintf("%s: seq %d does not follow %d", e.Type, e.Seq, previousSeq)})
		}
		previousSeq = e.Seq
		renumbered := e
		renumbered.Seq = accepted + 1
		err := v.Append(renumbered)
		var refusal *harness.InvariantError
		switch {
		case err == nil:
			accepted++
		case errors.As(err, &refusal):
			found = append(found, lineViolation{line, refusal.Rule, oneLine(e.Type + ": " + refusal.Reason)})
		default:
			panic("cli: invariant: the invariant layer refuses only with *harness.InvariantError: " + err.Error())
		}
	}
	return found
}

// lineOrder sorts file-level violations (line 0) after the line-level ones.
func lineOrder(line int) int {
	if line == 0 {
		return int(^uint(0) >> 1)
	}
	return line
}

// oneLine keeps a message on its line, whatever text from the log it quotes.
func oneLine(s string) string {
	return strings.NewReplacer("\r", `\r`, "\n", `\n`).Replace(s)
}

// pathErrorText is an os error without the operation and path, which the message already names.
func pathErrorText(err error) string {
	var pathErr *os.PathError
	if errors.As(err, &pathErr) {
		return pathErr.Err.Error()
	}
	return err.Error()
}
