package faultserver_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/internal/faultserver"
)

func TestParseStepsReadsAnswers(t *testing.T) {
	steps, err := faultserver.ParseSteps(strings.NewReader(`[
		{"fail":{"code":"RATE_LIMIT","message":"slow down","status":429,"retryAfterMs":1500},"wire":{"retryAfter":"seconds"}},
		{"chunks":1,"chunkDelayMs":20,"calls":[{"name":"lookup","outcome":"ok"}],"arguments":["{\"order\":42}"],"finish":"tool-calls"},
		{"chunks":2,"chunkDelayMs":20,"finish":"completed"}
	]`))
	require.NoError(t, err)
	require.Len(t, steps, 3)
	assert.Equal(t, faults.RetryAfterSeconds, steps[0].Wire.RetryAfter)
	assert.Equal(t, []string{`{"order":42}`}, steps[1].Arguments)
}

// Every bad steps file is refused with a message that names the step and the field.
func TestParseStepsRefusesBadInput(t *testing.T) {
	for input, says := range map[string]string{
		``:                                     "empty",
		`{}`:                                   "JSON list",
		`[{"chunks":-1,"finish":"completed"}]`: "steps[0]: chunks -1",
		`[{"chunks":1,"finish":"completed"},{"chunks":1,"chunkDelayMs":1e308,"finish":"completed"}]`: "[1]",
		`[{"fail":{"code":"BANANA","message":"x"}}]`:                                                 `fail.code "BANANA"`,
		`[{"fail":{"code":"RATE_LIMIT","message":"x","retryAfterMs":1e308}}]`:                        "fail.retryAfterMs",
		`[{"fail":{"code":"SERVER","message":"x","status":700}}]`:                                    "fail.status 700",
		`[{"chunkz":1}]`:                         `unknown field "chunkz"`,
		`[{"chunks":1,"finish":"completed"}] []`: "trailing data",
		`[{"chunks":1,"finish":"completed","wire":{"cut":true,"stall":true}}]`:                    "at most one of",
		`[{"calls":[{"name":"a","outcome":"ok"}],"arguments":["[1]"],"finish":"tool-calls"}]`:     "arguments[0]",
		`[{"calls":[{"name":"a","outcome":"ok"}],"arguments":["{}","{}"],"finish":"tool-calls"}]`: "arguments: 2 for 1 calls",
		`[{"finish":"completed"`: "steps",
	} {
		_, err := faultserver.ParseSteps(strings.NewReader(input))
		if assert.Error(t, err, input) {
			assert.Contains(t, err.Error(), says, input)
		}
	}
}

// A file past the byte limit or the count limit is refused without reading the rest.
func TestParseStepsStopsAtTheLimits(t *testing.T) {
	huge := "[" + strings.Repeat(`{"chunks":1,"finish":"completed"},`, faultserver.StepsBytesMax/30) + `{"chunks":1,"finish":"completed"}]`
	_, err := faultserver.ParseSteps(strings.NewReader(huge))
	assert.ErrorContains(t, err, "more than")
	many := "[" + strings.Repeat(`{"finish":"completed"},`, faults.EntriesMax+5) + `{"finish":"completed"}]`
	_, err = faultserver.ParseSteps(strings.NewReader(many))
	assert.ErrorContains(t, err, "more than 10000 answers")
}
