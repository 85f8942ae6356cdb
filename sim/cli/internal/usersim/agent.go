package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"time"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/properties"
	"github.com/turnsim/turnsim/sim"
)

// Agent is the support agent as the simulation runs it.
func Agent() sim.Agent {
	return sim.Agent{
		Tools: func(rt harness.Runtime) []harness.Tool { return []harness.Tool{lookupTool(rt)} },
		Arguments: func(tool string, r *rand.Rand) string {
			return fmt.Sprintf(`{"order":"A%03d"}`, r.Intn(1000))
		},
		NewStrategy: func() harness.RetryStrategy { s, _ := newSupportBackoff(100, 8000); return s }, // valid: the family's defaults
		Properties:  []properties.Property{lookupAnswersItsOrder},
	}
}

// lookupArgs and lookupAnswer are the lookup tool's arguments and answer.
type lookupArgs struct {
	Order string `json:"order"`
}

type lookupAnswer struct {
	Order  string `json:"order"`
	Status string `json:"status"`
}

// lookupTool looks an order up in the order service, which takes 200 ms (of the runtime's time).
func lookupTool(rt harness.Runtime) harness.Tool {
	slow := os.Getenv("USERSIM_SLOW_TOOL") != ""
	return harness.Tool{Name: "lookup", Parallel: true, Run: func(ctx context.Context, arguments string) (string, error) {
		var args lookupArgs
		if err := json.Unmarshal([]byte(arguments), &args); err != nil || args.Order == "" {
			return "", &harness.ToolFailure{Name: "BadArguments", Code: "BAD_ARGUMENTS", Message: "lookup needs an order"}
		}
		if slow {
			time.Sleep(2 * time.Millisecond) // the defect the slow-tool warning is for: a wall-clock wait
		} else if err := rt.Sleep(200*time.Millisecond, ctx); err != nil {
			return "", err
		}
		answer, err := json.Marshal(lookupAnswer{Order: args.Order, Status: "shipped"})
		return string(answer), err
	}}
}

// lookupAnswersItsOrder is the agent's own promise: a lookup the tool answered is the order the
// model asked about.
var lookupAnswersItsOrder = properties.Define("lookup-answers-its-order",
	"every lookup the tool answers is of the order the model asked about",
	func(r *properties.Run, report *properties.Reporter) {
		type call struct {
			turn, step int
			id         string
		}
		asked := map[call]string{}
		for _, e := range r.Log {
			switch d := e.Data.(type) {
			case harness.ToolCall:
				if d.Name == "lookup" {
					asked[call{d.Turn, d.Step, d.CallID}] = orderOf(d.Arguments)
				}
			case harness.ToolResult:
				order, ok := asked[call{d.Turn, d.Step, d.CallID}]
				if !ok || d.IsError {
					continue
				}
				var answer lookupAnswer
				if err := json.Unmarshal([]byte(d.Content), &answer); err != nil || answer.Order != order {
					report.Errorf(e.Seq, e.Time, "call %s asked for order %s and was answered %s", d.CallID, order, d.Content)
				}
			}
		}
	})

// orderOf reads the order out of a simulated call's arguments, which the world wraps in an
// envelope whose "input" holds the tool's own.
func orderOf(arguments string) string {
	var envelope struct {
		Input string `json:"input"`
	}
	var args lookupArgs
	if json.Unmarshal([]byte(arguments), &envelope) != nil || json.Unmarshal([]byte(envelope.Input), &args) != nil {
		return arguments
	}
	return args.Order
}
