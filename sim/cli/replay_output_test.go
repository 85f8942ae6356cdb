package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// replay -o refuses, before printing or writing anything, a schedule larger than repro would read:
// it wrote a 20 MiB schedule from a log with a 20 MiB message, then printed a reproduce line that
// failed (outside-style review). Not in the bad-input table: replaying a 4 MiB message takes more
// memory than a cheap refusal may.
func TestReplayRefusesToWriteAScheduleReproWouldRefuse(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("testdata/check/good/minimal.jsonl")
	require.NoError(t, err)
	big := strings.Replace(string(data), `"text":"hi"`, `"text":"`+strings.Repeat("x", 4<<20+64<<10)+`"`, 1)
	log := filepath.Join(dir, "big.jsonl")
	require.NoError(t, os.WriteFile(log, []byte(big), 0o644))
	out := filepath.Join(dir, "s.json")
	code, stdout, stderr := simrun("replay", "-o", out, log)
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, "over the 4.0 MiB a schedule file may be")
	assert.NoFileExists(t, out)
}
