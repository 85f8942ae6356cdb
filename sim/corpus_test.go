package sim

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// corpusDir is the repository's corpus of schedules that once found bugs.
const corpusDir = "../corpus"

// Every corpus file replays with no property firing: a bug once found stays fixed.
func TestCorpusReplaysClean(t *testing.T) {
	files, err := CorpusFiles(corpusDir)
	require.NoError(t, err)
	require.NotEmpty(t, files, "the corpus holds at least the seed article's scenarios")
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			schedule, entry, err := LoadSchedule(data)
			require.NoError(t, err)
			require.NotNil(t, entry, "corpus files carry their provenance")
			o := RunSchedule(schedule)
			assert.Empty(t, o.Violations, "%s (found breaking %q)", path, entry.Property)
			assert.NotEmpty(t, o.Log)
		})
	}
}

// The hand-written scenario schedules tell the same stories as the scripted scenarios.
func TestCorpusScenarioSchedulesTellTheirStory(t *testing.T) {
	ends := map[string]string{
		"durable-before-wait": "turn/end 1 completed", "sticky-max-tokens": "turn/end 1 max-tokens",
		"drain": "turn/end 1 aborted(user)", "finally": "turn/end 1 error(UNKNOWN)",
		"cancel-mid-backoff": "turn/end 1 aborted(user)", "retry-then-max-tokens": "turn/end 1 max-tokens",
		"disposed-no-wake": "turn/end 1 aborted(disposed)", "always-mode": "turn/end 1 completed",
		"retry-after": "turn/end 1 error(RATE_LIMIT)",
	}
	for _, name := range ScenarioNames() {
		data, err := os.ReadFile(filepath.Join(corpusDir, "scenario-"+name+".json"))
		require.NoError(t, err, name)
		schedule, _, err := LoadSchedule(data)
		require.NoError(t, err, name)
		o := RunSchedule(schedule)
		var last string
		for _, e := range o.Log {
			if e.Type == "turn/end" {
				last = Describe(e)
			}
		}
		assert.Equal(t, ends[name], last, name)
	}
}

func TestLoadScheduleRefusesOtherFormatsClearly(t *testing.T) {
	cases := map[string]string{
		`{"format": "turnsim-corpus", "version": 0, "schedule": {}}`: "corpus file version 0 is not supported",
		`{"format": "turnsim-corpus", "schedule": {}}`:               "corpus file version none is not supported",
		`{"format": "something-else", "version": 1}`:                 `format "something-else"`,
		`{"version": 2, "seed": 1}`:                                  "schedule version 2 is not supported",
		``:                                                           "the file is empty",
	}
	for input, says := range cases {
		_, _, err := LoadSchedule([]byte(input))
		require.Error(t, err, input)
		assert.Contains(t, err.Error(), says)
	}
}

func TestSaveToCorpusNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	entry := CorpusEntry{Format: CorpusFormat, Version: CorpusVersion, Property: "pool-limit", Seed: 9, TurnsimVersion: Version, Schedule: NewSchedule(9, nil)}
	first, err := SaveToCorpus(dir, entry)
	require.NoError(t, err)
	second, err := SaveToCorpus(dir, entry)
	require.NoError(t, err)
	assert.NotEqual(t, first, second)
	assert.Equal(t, "pool-limit-seed9.json", filepath.Base(first))
	assert.Equal(t, "pool-limit-seed9-2.json", filepath.Base(second))
	data, err := os.ReadFile(second)
	require.NoError(t, err)
	back, loaded, err := LoadSchedule(data)
	require.NoError(t, err)
	assert.Equal(t, entry.Schedule, back)
	assert.Equal(t, "pool-limit", loaded.Property)
}
