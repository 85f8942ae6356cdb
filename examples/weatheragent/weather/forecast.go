// Package weather is a small agent built on turnsim's harness, as a user would build one: a
// forecast tool, a fallback handler and a request meter. Its tests simulate it with turnsim.
package weather

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/turnsim/turnsim/harness"
)

// Forecast is what the forecast tool answers.
type Forecast struct {
	City  string `json:"city"`
	TempC int    `json:"tempC"`
}

// Args are the forecast tool's arguments.
type Args struct {
	City string `json:"city"`
}

// ForecastTool looks a city's weather up. It waits for the (here, pretend) weather service
// through rt, the agent's runtime, never through time.Sleep: in production rt is
// harness.NewProductionRuntime and the wait is real; under simulation it is virtual, and it
// ends the moment the step is cancelled, because ctx is passed along.
func ForecastTool(rt harness.Runtime) harness.Tool {
	return harness.Tool{Name: "forecast", Parallel: true, Run: func(ctx context.Context, arguments string) (string, error) {
		var args Args
		if err := json.Unmarshal([]byte(arguments), &args); err != nil || args.City == "" {
			return "", &harness.ToolFailure{Name: "BadArguments", Code: "BAD_ARGUMENTS", Message: fmt.Sprintf("forecast needs a city, got %q", arguments)}
		}
		latency := time.Duration(100+50*len(args.City)) * time.Millisecond // a slow service
		if err := rt.Sleep(latency, ctx); err != nil {
			return answerCancelled(args.City, err)
		}
		answer, err := json.Marshal(Forecast{City: args.City, TempC: 10 + len(args.City)%15})
		return string(answer), err
	}}
}
