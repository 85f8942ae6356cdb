package faults

import "fmt"

// toolFailureWrap draws how a tool's own *harness.ToolFailure reaches the harness (the
// tool-failure fault): bare one time in three, otherwise inside one or two other errors, so that
// a harness that looks only at the outermost error labels it TOOL_ERROR with the wrapper's text.
func (d *drawer) toolFailureWrap() []string {
	layers := d.between(0, 2)
	if layers == 0 {
		return nil
	}
	wrap := make([]string, 0, layers)
	for range layers {
		wrap = append(wrap, []string{WrapErrorf, WrapJoin}[d.rng.Intn(2)])
	}
	return wrap
}

// validateWrap refuses a call's Wrap that is too deep, names an unknown layer, or wraps what is
// not a ToolFailure.
func (c Call) validateWrap() error {
	if len(c.Wrap) == 0 {
		return nil
	}
	if c.Outcome != OutcomeFailure {
		return fmt.Errorf("wrap is for the %s outcome only, not %q", OutcomeFailure, c.Outcome)
	}
	if len(c.Wrap) > WrapLayersMax {
		return fmt.Errorf("wrap has %d layers, more than %d", len(c.Wrap), WrapLayersMax)
	}
	for i, layer := range c.Wrap {
		if layer != WrapErrorf && layer != WrapJoin {
			return fmt.Errorf("wrap[%d] %q is not %s or %s", i, layer, WrapErrorf, WrapJoin)
		}
	}
	return nil
}
