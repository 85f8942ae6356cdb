package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/turnsim/turnsim/sim"
	"github.com/turnsim/turnsim/sim/cli"
)

// Generators are docgen's tables, for the module at root: the catalogues, Brooker's table, each
// shared command's usage (usage-NAME), and the measured figures of docs/performance.md, taken
// again only when measure is set (kept as they are otherwise).
func Generators(root string, measure bool) map[string]Generator {
	g := map[string]Generator{
		"faults":     func() (string, error) { return simrun("faults", "-markdown") },
		"properties": func() (string, error) { return simrun("properties", "-markdown") },
		"mutants":    func() (string, error) { return simrun("plants", "-markdown") },
		"brooker":    func() (string, error) { return brookerTable(root) },
		"performance": func() (string, error) {
			if measure {
				return measuredTable(root)
			}
			return "", errKeep
		},
	}
	for _, name := range sharedCommands {
		g["usage-"+name] = func() (string, error) { return usage(name) }
	}
	return g
}

// sharedCommands are sim/cli's commands, which simrun and a user's own command share; simrun's
// own (scenario, scenarios) live in cmd/simrun, and docs/commands.md describes them by hand.
var sharedCommands = []string{"run", "repro", "shrink", "check", "replay", "serve", "merge", "policy", "fuzz-policy", "faults", "properties", "mutate", "plants"}

// usage is what `simrun NAME -h` prints, in a text block. The one default that depends on the
// machine, run's -workers (GOMAXPROCS), is written as its name.
func usage(name string) (string, error) {
	stdout, stderr, err := run(name, "-h")
	if err != nil {
		return "", err
	}
	text := strings.TrimRight(stdout+stderr, "\n")
	if name == "run" {
		text = strings.Replace(text, fmt.Sprintf("(1 to 256) (default %d)", runtime.GOMAXPROCS(0)), "(1 to 256) (default GOMAXPROCS)", 1)
	}
	return "```text\n" + text + "\n```\n", nil
}

// simrunOptions are cmd/simrun's shared options: turnsim's own agent and mutants.
var simrunOptions = cli.Options{Agent: sim.Agent{}, Name: "simrun", Mutants: "internal/mutants"}

// run runs one of simrun's commands in this process, on turnsim's own agent, and returns what it
// printed on each stream; a command that exits non-zero is an error naming it.
func run(args ...string) (stdout, stderr string, err error) {
	var out, errOut bytes.Buffer
	if code := cli.Main(args, &out, &errOut, simrunOptions); code != 0 {
		return "", "", fmt.Errorf("simrun %s exited %d: %s", strings.Join(args, " "), code, errOut.String())
	}
	return out.String(), errOut.String(), nil
}

// simrun is run's standard output: the docs show what the command shows.
func simrun(args ...string) (string, error) {
	stdout, _, err := run(args...)
	return stdout, err
}

// brookerPolicies are the rows of Brooker's table, in the order of his post.
var brookerPolicies = []struct{ name, label string }{
	{"none", "none (no backoff)"},
	{"exponential", "exponential (no jitter)"},
	{"full-jitter", "full jitter"},
	{"equal-jitter", "equal jitter"},
	{"decorrelated-jitter", "decorrelated jitter"},
}

// brookerCommand is the command docs/policies.md shows for N clients: the table is its output.
func brookerCommand(root string, agents int) []string {
	names := make([]string, len(brookerPolicies))
	for i, p := range brookerPolicies {
		names[i] = p.name
	}
	return []string{"policy", "-mode", "occ", "-agents", strconv.Itoa(agents), "-seeds", "5",
		"-params", filepath.Join(root, "examples", "brooker.json"), "-policies", strings.Join(names, ","), "-json"}
}

// brookerRow is one policy's averages, as `simrun policy -json` reports them.
type brookerRow struct {
	Policy   string  `json:"policy"`
	Attempts float64 `json:"attempts"`
	FinishMs float64 `json:"finishMs"`
}

// brookerTable runs the occ model at 50 and 100 clients (seeds 1–5, every policy retrying until
// success with base 5 ms and cap 2 s) and tabulates total calls and completion time.
func brookerTable(root string) (string, error) {
	byAgents := map[int]map[string]brookerRow{}
	for _, agents := range []int{50, 100} {
		out, err := simrun(brookerCommand(root, agents)...)
		if err != nil {
			return "", err
		}
		var report struct {
			Policies []brookerRow `json:"policies"`
		}
		if err := json.Unmarshal([]byte(out), &report); err != nil {
			return "", fmt.Errorf("simrun policy -json: %w", err)
		}
		byAgents[agents] = map[string]brookerRow{}
		for _, r := range report.Policies {
			byAgents[agents][r.Policy] = r
		}
	}
	var b strings.Builder
	b.WriteString("| policy | calls, N = 50 | completion, N = 50 | calls, N = 100 | completion, N = 100 |\n| --- | --- | --- | --- | --- |\n")
	for _, p := range brookerPolicies {
		r50, ok50 := byAgents[50][p.name]
		r100, ok100 := byAgents[100][p.name]
		if !ok50 || !ok100 {
			return "", fmt.Errorf("simrun policy reported no row for %s", p.name)
		}
		fmt.Fprintf(&b, "| %s | %s | %.2f s | %s | %.2f s |\n", p.label, thousands(r50.Attempts), r50.FinishMs/1000, thousands(r100.Attempts), r100.FinishMs/1000)
	}
	ratio := byAgents[100]["full-jitter"].Attempts / byAgents[100]["exponential"].Attempts
	fmt.Fprintf(&b, "\nAt N = 100, full jitter makes %.2f× the calls of plain exponential backoff.\n", ratio)
	return b.String(), nil
}

// thousands writes x with one decimal and commas between thousands: 1089.6 → "1,089.6".
func thousands(x float64) string {
	s := strconv.FormatFloat(x, 'f', 1, 64)
	whole, fraction, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, digit := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(digit)
	}
	return b.String() + "." + fraction
}
