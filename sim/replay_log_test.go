package sim

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goodLog is a short, well-formed session log: one turn, one request, a completed answer.
const goodLog = `{"seq":1,"type":"user/message","time":1000,"data":{"message":{"id":"m1","text":"hi"}}}
{"seq":2,"type":"inbox/push","time":1000,"data":{"lane":"next-turn","kind":"followup","messageId":"m1"}}
{"seq":3,"type":"turn/start","time":1000,"data":{"turn":1}}
{"seq":4,"type":"step/start","time":1000,"data":{"turn":1,"step":1}}
{"seq":5,"type":"inbox/claim","time":1000,"data":{"turn":1,"step":1,"lane":"next-turn","messageId":"m1"}}
{"seq":6,"type":"assistant/chunk","time":1020,"data":{"turn":1,"step":1,"chunk":{"kind":"text","text":"hello"}}}
{"seq":7,"type":"assistant/chunk","time":1020,"data":{"turn":1,"step":1,"chunk":{"kind":"finish","finish":"completed"}}}
{"seq":8,"type":"assistant/message","time":1020,"data":{"turn":1,"step":1,"message":{"blocks":[{"type":"text","text":"hello"}]},"finish":"completed"}}
{"seq":9,"type":"step/end","time":1020,"data":{"turn":1,"step":1}}
{"seq":10,"type":"turn/end","time":1020,"data":{"turn":1,"reason":{"kind":"completed"}}}
`

// Logs that cannot be replayed faithfully are refused with a message naming the line and saying
// what the trouble is.
func TestReadSessionLogRefusesBadLogsNamingTheLine(t *testing.T) {
	lines := strings.SplitAfter(goodLog, "\n")
	cases := []struct {
		name, log string
		says      []string
	}{
		{"empty", "", []string{"the file is empty"}},
		{"torn", goodLog + `{"seq":11,"type":"user/mes`, []string{"log.jsonl:11:", "torn"}},
		{"foreign", lines[0] + "hello, world\n", []string{"log.jsonl:2:", "not a JSON object"}},
		{"foreign JSON", lines[0] + `{"name":"x"}` + "\n", []string{"log.jsonl:2:", "not a turnsim session log event"}},
		{"newer type", lines[0] + `{"seq":2,"type":"agent/spawn","time":1,"data":{"x":1}}` + "\n", []string{"log.jsonl:2:", "agent/spawn", "newer turnsim"}},
		{"newer field", lines[0] + `{"seq":2,"type":"turn/start","time":1,"data":{"turn":1,"parent":3}}` + "\n", []string{"log.jsonl:2:", "parent", "newer turnsim"}},
		{"two agents", goodLog + strings.Join(lines[:3], ""), []string{"log.jsonl:11:", "seq 1 follows seq 10", "two agents"}},
		{"broken story", lines[0] + lines[1] + lines[3], []string{"log.jsonl:3:", "invariant layer"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadSessionLog("log.jsonl", []byte(c.log))
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrBadLog)
			for _, s := range c.says {
				assert.Contains(t, err.Error(), s)
			}
		})
	}
	events, err := ReadSessionLog("log.jsonl", []byte(goodLog))
	require.NoError(t, err)
	assert.Len(t, events, 10)
}

// A log that is not the harness's story in some way no plan can tell is refused by the
// derivation, naming the event.
func TestScheduleFromLogRefusesAStoryNoPlanTells(t *testing.T) {
	log := strings.Replace(goodLog, `{"seq":6,"type":"assistant/chunk","time":1020,"data":{"turn":1,"step":1,"chunk":{"kind":"text","text":"hello"}}}
{"seq":7,"type":"assistant/chunk","time":1020,"data":{"turn":1,"step":1,"chunk":{"kind":"finish","finish":"completed"}}}
{"seq":8,"type":"assistant/message","time":1020,"data":{"turn":1,"step":1,"message":{"blocks":[{"type":"text","text":"hello"}]},"finish":"completed"}}
{"seq":9,"type":"step/end","time":1020,"data":{"turn":1,"step":1}}
{"seq":10,"type":"turn/end","time":1020,"data":{"turn":1,"reason":{"kind":"completed"}}}
`, `{"seq":6,"type":"assistant/chunk","time":1020,"data":{"turn":1,"step":1,"chunk":{"kind":"text","text":"hello"}}}
{"seq":7,"type":"assistant/message","time":1020,"data":{"turn":1,"step":1,"message":{"blocks":[{"type":"text","text":"hello"}]},"finish":"completed"}}
{"seq":8,"type":"step/end","time":1020,"data":{"turn":1,"step":1}}
{"seq":9,"type":"turn/end","time":1020,"data":{"turn":1,"reason":{"kind":"completed"}}}
{"seq":10,"type":"turn/start","time":1030,"data":{"turn":2}}
{"seq":11,"type":"turn/end","time":1030,"data":{"turn":2,"reason":{"kind":"error","error":{"code":"UNKNOWN","message":"disk full"}}}}
`, 1)
	events, err := ReadSessionLog("log.jsonl", []byte(log))
	require.NoError(t, err)
	_, err = ScheduleFromLog("log.jsonl", events)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "seq 11")
	assert.Contains(t, err.Error(), "outside any request")
}

// A hand-written log replays with its own texts, at its own times: the derived schedule carries
// the log's start and what the provider said.
func TestReplayCarriesTheLogsTextsAndTimes(t *testing.T) {
	events, err := ReadSessionLog("log.jsonl", []byte(goodLog))
	require.NoError(t, err)
	r, err := ReplayLog("log.jsonl", events, []byte(goodLog), ReplayOptions{})
	require.NoError(t, err)
	require.True(t, r.Matched(), "%s", r.Mismatch)
	assert.Equal(t, []string{"hello"}, r.Schedule.Plan.Answers[0].Texts)
	assert.Equal(t, int64(1000), r.Schedule.Replay.StartMs)
	assert.Equal(t, goodLog, string(r.Outcome.JSONL))
}
