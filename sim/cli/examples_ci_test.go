//go:build unix

package cli_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/internal/doccmd"
)

// ciExample is one of examples/ci's files: where its shard and merge commands are, and how a
// shard's number is spelled in them.
type ciExample struct {
	file      string
	shardVar  string // replaced by the shard's number (1 to n)
	resultDir string // replaced by the test's folder
}

var ciExamples = []ciExample{
	{"github-actions.yml", "${{ matrix.shard }}", ""},
	{"k8s-indexed-job.yaml", "$shard", "/results/"},
}

// ciCommand turns an example's shell line into simrun's arguments and the file its stdout is
// redirected to, with the shell's variables given and its globs expanded in folder base.
func ciCommand(t *testing.T, line string, vars map[string]string, base string) ([]string, string) {
	t.Helper()
	line, _, _ = strings.Cut(line, " #")
	for name, value := range vars {
		line = strings.ReplaceAll(line, name, value)
	}
	fields, redirect := doccmd.Words(line)
	for i, f := range fields {
		if strings.HasSuffix(f, "simrun") {
			fields = fields[i+1:]
			break
		}
	}
	var args []string
	for _, f := range fields {
		if strings.Contains(f, "*") {
			if !filepath.IsAbs(f) {
				f = filepath.Join(base, f)
			}
			matches, err := filepath.Glob(f)
			require.NoError(t, err)
			args = append(args, matches...)
			continue
		}
		args = append(args, f)
	}
	return args, redirect
}

// lineWith is the one line of text holding marker.
func lineWith(t *testing.T, text, marker string) string {
	t.Helper()
	var found []string
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, marker) && !strings.HasPrefix(strings.TrimSpace(line), "#") {
			found = append(found, line)
		}
	}
	require.NotEmpty(t, found, "no line with %q", marker)
	return found[0]
}

// The CI examples' own commands, run as their shards would run them (fewer seeds) by a built
// binary, merge into the summary of the unsharded run: for simrun, and for a user's command with
// nothing changed but the binary's name.
func TestCIExamplesShardAndMerge(t *testing.T) {
	const seeds, shards = 400, 4
	for _, b := range binaries(t) {
		whole := runBinary(t, b, "", nil, "run", "-seeds", fmt.Sprint(seeds), "-json", "-corpus", "")
		require.Equal(t, 0, whole.code, whole.stderr)
		want := decodeObject(t, whole.stdout)
		for _, example := range ciExamples {
			t.Run(b.name+"/"+example.file, func(t *testing.T) {
				data, err := os.ReadFile(filepath.Join("../../examples/ci", example.file))
				require.NoError(t, err)
				text := string(data)
				assert.Regexp(t, regexp.MustCompile(`SEEDS:? ?\n?\s*(value: )?"10000"`), text)
				if example.file == "k8s-indexed-job.yaml" {
					assert.Contains(t, text, "shard=$((JOB_COMPLETION_INDEX+1))", "Indexed Jobs count from 0, shards from 1")
					assert.Contains(t, text, "completions: 4")
				} else {
					assert.Contains(t, text, "shard: [1, 2, 3, 4]")
				}
				dir := t.TempDir()
				vars := map[string]string{"$SEEDS": fmt.Sprint(seeds), "$SHARDS": fmt.Sprint(shards)}
				if example.resultDir != "" {
					vars[example.resultDir] = dir + "/"
				}
				for shard := 1; shard <= shards; shard++ {
					vars[example.shardVar] = fmt.Sprint(shard)
					args, out := ciCommand(t, lineWith(t, text, "simrun run "), vars, dir)
					require.NotEmpty(t, out, "a shard's summary goes to a file")
					r := runBinary(t, b, dir, nil, args...)
					require.LessOrEqual(t, r.code, 1, r.stderr)
					require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.Base(out)), []byte(r.stdout), 0o644))
				}
				mergeText := text
				if example.resultDir != "" {
					merge, err := os.ReadFile("../../examples/ci/k8s-merge-job.yaml")
					require.NoError(t, err)
					mergeText = string(merge)
				}
				args, out := ciCommand(t, lineWith(t, mergeText, "simrun merge -json"), map[string]string{"/results/": dir + "/"}, dir)
				require.NotEmpty(t, out)
				r := runBinary(t, b, dir, nil, args...)
				require.LessOrEqual(t, r.code, 1, r.stderr)
				got := decodeObject(t, r.stdout)
				for _, key := range []string{"seeds", "failingSeeds", "violationsByProperty", "faultCoverage", "outcomeCoverage", "handoffs", "digest"} {
					assert.Equal(t, want[key], got[key], key)
				}
			})
		}
	}
}

func decodeObject(t *testing.T, text string) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(text), &m), text)
	return m
}
