package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A line that breaks JSON's syntax early but runs on for megabytes (a brace, then zeros, then a
// newline: without one it would be a torn tail, which check accepts) is
// refused naming its line, without the reader holding it: the syntax check past
// syntaxCheckFirst bytes stops the line's buffer from growing toward the line limit. (The
// process-level bad-input table bounds check's memory too, but loosely: this is the reader's own
// bound.)
func TestReadLogRefusesALongGarbageLineWithoutHoldingIt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "garbage.jsonl")
	require.NoError(t, os.WriteFile(path, append(append([]byte("{"), bytes.Repeat([]byte{0}, 16<<20)...), '\n'), 0o644))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	data, reason := readLog(path)
	runtime.ReadMemStats(&after)
	assert.Nil(t, data)
	assert.Contains(t, reason, "line 1: ")
	assert.Contains(t, reason, "invalid character")
	allocated := after.TotalAlloc - before.TotalAlloc
	assert.Less(t, allocated, uint64(8<<20), "read a 16 MiB garbage line holding %d bytes", allocated)
}
