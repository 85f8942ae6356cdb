package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestServeRefusesBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"serve", "-addr", "0.0.0.0:0", "-max-duration", "1s"},
		{"serve", "-addr", "192.168.1.1:8080", "-max-duration", "1s"},
		{"serve", "-script", "nope"},
		{"serve", "-script", "demo", "-seed", "3"},
		{"serve", "-script", "demo", "-seed", "-5", "-max-duration", "1s"}, // a negative seed is a seed too
		{"serve", "-max-requests", "-1"},
		{"serve", "-steps", "/nonexistent/steps.json"},
		{"serve", "extra"},
	} {
		code, _, errOut := simrun(args...)
		assert.Equal(t, ExitUsage, code, "%v", args)
		assert.NotEmpty(t, errOut, "%v", args)
	}
}

func TestServeStopsByItself(t *testing.T) {
	code, out, errOut := simrun("serve", "-seed", "1", "-max-duration", "100ms")
	assert.Equal(t, ExitOK, code, errOut)
	assert.Contains(t, out, "serving ")
	assert.Contains(t, out, "http://127.0.0.1:")
	assert.Contains(t, out, "stopped after 0 requests")

	// Any int64 is a seed, as run and repro take it: a negative one is served, not ignored.
	code, out, errOut = simrun("serve", "-seed", "-5", "-max-duration", "100ms")
	assert.Equal(t, ExitOK, code, errOut)
	assert.NotContains(t, out, "serving 0 planned answers")
}

// A steps file is checked as schedules are: each bad one is refused (exit 2) with a message
// naming the step and the field, and a huge one before it is decoded.
func TestServeRefusesBadSteps(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
		return path
	}
	huge := filepath.Join(dir, "huge.json")
	f, err := os.Create(huge)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(64<<20))
	require.NoError(t, f.Close())
	for says, args := range map[string][]string{
		"steps[0]: chunks -1":    {"-steps", write("negative.json", `[{"chunks":-1,"finish":"completed"}]`)},
		`fail.code "NOPE"`:       {"-steps", write("code.json", `[{"fail":{"code":"NOPE","message":"x"}}]`)},
		`unknown field "chunkz"`: {"-steps", write("field.json", `[{"chunkz":1}]`)},
		"over the 4.0 MiB limit": {"-steps", huge},
		"is a folder":            {"-steps", dir},
		"-scale NaN":             {"-script", "chat", "-scale", "NaN"},
		"-scale 1e+308":          {"-script", "chat", "-scale", "1e308"},
		"-scale 0":               {"-script", "chat", "-scale", "0"},
		"not a JSON object":      {"-steps", write("args.json", `[{"calls":[{"name":"a","outcome":"ok"}],"arguments":["nope"],"finish":"tool-calls"}]`)},
		"trailing data":          {"-steps", write("trailing.json", `[] {}`)},
	} {
		code, _, errOut := simrun(append([]string{"serve", "-max-duration", "1s"}, args...)...)
		assert.Equal(t, ExitUsage, code, says)
		assert.Contains(t, errOut, says)
	}
}

func TestServePlaysAStepsFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "steps.json")
	require.NoError(t, os.WriteFile(path, []byte(`[{"chunks":1,"chunkDelayMs":5,"calls":[{"name":"lookup","outcome":"ok"}],"arguments":["{\"order\":42}"],"finish":"tool-calls"}]`), 0o644))
	code, out, errOut := simrun("serve", "-steps", path, "-max-duration", "100ms")
	assert.Equal(t, ExitOK, code, errOut)
	assert.Contains(t, out, "serving 1 planned answers")
}
