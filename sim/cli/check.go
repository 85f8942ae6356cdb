package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/turnsim/turnsim/harness/eventjson"
	"github.com/turnsim/turnsim/properties"
	"github.com/turnsim/turnsim/sim"
)

// logFileBytesMax bounds a session log read into memory.
const logFileBytesMax = 256 << 20

// check checks session logs (a production agent's, say) against the invariant layer, the
// catalogue's log-only properties, and the agent's own properties: a log alone has no trace, so
// an own property sees Run.Traced false and must judge by the log.
func (c *cli) check(args []string) int {
	fs := c.flagSet("check", "check LOG.jsonl ...")
	positional, code, ok := parse(fs, args)
	if !ok {
		return code
	}
	if len(positional) == 0 {
		return c.usageError("check needs one or more session log files")
	}
	found := 0
	for _, path := range positional {
		data, err := readCapped(path, logFileBytesMax)
		if err != nil {
			return c.usageError("%v", err)
		}
		events, err := eventjson.Decode(data)
		if err != nil {
			fmt.Fprintf(c.stdout, "%s: the log does not decode: %v\n", path, err)
			found++
			continue
		}
		violations := properties.CheckLog(events, data)
		own := &properties.Run{Log: events, JSONL: data, Trace: properties.Trace{IdleAtMs: -1}}
		violations = append(violations, properties.CheckOnly(own, c.opts.Agent.Properties)...)
		for _, v := range violations {
			fmt.Fprintf(c.stdout, "%s: %s\n", path, v)
		}
		found += len(violations)
		if len(violations) == 0 {
			fmt.Fprintf(c.stdout, "%s: ok (%d events)\n", path, len(events))
		}
	}
	if found > 0 {
		return exitViolation
	}
	return exitOK
}

// properties lists the catalogue's properties, then the agent's own.
func (c *cli) properties(args []string) int {
	fs := c.flagSet("properties", "properties")
	if _, code, ok := parse(fs, args); !ok {
		return code
	}
	for _, p := range properties.Catalogue() {
		fmt.Fprintf(c.stdout, "%-28s %s\n", p.Name, p.Doc)
	}
	for _, p := range c.opts.Agent.Properties {
		fmt.Fprintf(c.stdout, "%-28s %s (the agent's own)\n", p.Name, p.Doc)
	}
	return exitOK
}

func (c *cli) propertyNames() []string {
	names := properties.Names()
	for _, p := range c.opts.Agent.Properties {
		names = append(names, p.Name)
	}
	return append(names, sim.DeterminismProperty)
}

// readCapped reads a file of at most limit bytes.
func readCapped(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, limit)
	}
	return data, nil
}
