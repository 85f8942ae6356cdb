package faultserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/turnsim/turnsim/faults"
)

// Step is one answer a server plays: a plan's answer (its wire form included) and the arguments
// its tool calls are sent with, by call ("" or none: the server's Arguments, else turnsim's
// envelope of the planned call, which turnsim's simulated tools read).
type Step struct {
	faults.Answer
	Arguments []string `json:"arguments,omitempty"`
}

// ArgumentsBytesMax bounds a call's arguments in a step.
const ArgumentsBytesMax = 64 << 10

// Validate refuses a step the server cannot play, naming the field: the answer by the plan's
// rules, and arguments that are more than the calls or not a JSON object.
func (s Step) Validate() error {
	if err := faults.ValidateAnswer(s.Answer); err != nil {
		return err
	}
	if len(s.Arguments) > len(s.Calls) {
		return fmt.Errorf("arguments: %d for %d calls", len(s.Arguments), len(s.Calls))
	}
	for j, arguments := range s.Arguments {
		if arguments == "" {
			continue
		}
		var object map[string]json.RawMessage
		if len(arguments) > ArgumentsBytesMax || json.Unmarshal([]byte(arguments), &object) != nil || object == nil {
			return fmt.Errorf("arguments[%d] %.40q is not a JSON object of at most %d bytes", j, arguments, ArgumentsBytesMax)
		}
	}
	return nil
}

// StepsBytesMax bounds a steps file: answers are a few hundred bytes each, so 4 MiB holds far
// more than faults.EntriesMax of them, and decodes in well under 100 MB.
const StepsBytesMax = 4 << 20

// ParseSteps reads a steps file: a JSON list of steps, each an answer in the format of a
// schedule's plan.answers (faults.Answer, its wire form included) with its calls' arguments. It
// reads at most StepsBytesMax bytes and decodes one step at a time, stopping at the first
// unknown field, trailing data, or step past faults.EntriesMax; each step is checked as a
// schedule's answers are, and an error names the step (from 0) and the field.
func ParseSteps(r io.Reader) ([]Step, error) {
	limited := &io.LimitedReader{R: r, N: StepsBytesMax + 1}
	dec := json.NewDecoder(limited)
	dec.DisallowUnknownFields()
	fail := func(err error) ([]Step, error) {
		if limited.N <= 0 {
			return nil, fmt.Errorf("faultserver: steps: more than %d bytes", StepsBytesMax)
		}
		return nil, fmt.Errorf("faultserver: steps: %w", err)
	}
	open, err := dec.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("faultserver: steps: the file is empty (want a JSON list of answers)")
		}
		return fail(err)
	}
	if open != json.Delim('[') {
		return nil, fmt.Errorf("faultserver: steps: want a JSON list of answers, not %v", open)
	}
	var steps []Step
	for dec.More() {
		if len(steps) == faults.EntriesMax {
			return nil, fmt.Errorf("faultserver: steps: more than %d answers", faults.EntriesMax)
		}
		var step Step
		if err := dec.Decode(&step); err != nil {
			return fail(fmt.Errorf("[%d]: %w", len(steps), err))
		}
		if err := step.Validate(); err != nil {
			return nil, fmt.Errorf("faultserver: steps[%d]: %w", len(steps), err)
		}
		steps = append(steps, step)
	}
	if _, err := dec.Token(); err != nil {
		return fail(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("faultserver: steps: trailing data after the list")
	}
	if limited.N <= 0 {
		return nil, fmt.Errorf("faultserver: steps: more than %d bytes", StepsBytesMax)
	}
	return steps, nil
}
