package faultserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/turnsim/turnsim/faults"
)

// StepsBytesMax bounds a steps file: answers are a few hundred bytes each, so 4 MiB holds far
// more than faults.EntriesMax of them, and decodes in well under 100 MB.
const StepsBytesMax = 4 << 20

// ParseSteps reads a steps file: a JSON list of answers, each in the format of a schedule's
// plan.answers (faults.Answer, its wire form included). It reads at most StepsBytesMax bytes and
// decodes one answer at a time, stopping at the first unknown field, trailing data, or answer
// past faults.EntriesMax; each answer is checked as a schedule's are, and an error names the
// step (from 0) and the field.
func ParseSteps(r io.Reader) ([]faults.Answer, error) {
	limited := &io.LimitedReader{R: r, N: StepsBytesMax + 1}
	dec := json.NewDecoder(limited)
	dec.DisallowUnknownFields()
	fail := func(err error) ([]faults.Answer, error) {
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
	var steps []faults.Answer
	for dec.More() {
		if len(steps) == faults.EntriesMax {
			return nil, fmt.Errorf("faultserver: steps: more than %d answers", faults.EntriesMax)
		}
		var a faults.Answer
		if err := dec.Decode(&a); err != nil {
			return fail(fmt.Errorf("[%d]: %w", len(steps), err))
		}
		if err := faults.ValidateAnswer(a); err != nil {
			return nil, fmt.Errorf("faultserver: steps[%d]: %w", len(steps), err)
		}
		steps = append(steps, a)
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
