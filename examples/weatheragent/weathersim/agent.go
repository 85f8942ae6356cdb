// Package weathersim puts the weather agent into turnsim's simulated world: its tools, handler
// and middleware, the arguments the simulated model calls the tool with, and the agent's own
// property. The tests use it through sim.Check, cmd/weathersim through simrun's library.
package weathersim

import (
	"encoding/json"
	"math/rand"
	"strings"
	"sync/atomic"

	"example.com/weatheragent/weather"
	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/properties"
	"github.com/turnsim/turnsim/sim"
)

// cities are what the simulated model asks the forecast of.
var cities = []string{"Oslo", "Lima", "Ulaanbaatar", "Nairobi", "Wellington", "Reykjavík"}

// Requests counts, over every simulated run, the requests the meter saw.
var Requests atomic.Int64

// Agent is the weather agent as the simulation runs it. Each factory builds fresh state for
// each agent incarnation; the world supplies the runtime the tool waits through.
func Agent() sim.Agent {
	return sim.Agent{
		Tools: func(rt harness.Runtime) []harness.Tool { return []harness.Tool{weather.ForecastTool(rt)} },
		Arguments: func(tool string, r *rand.Rand) string {
			args, _ := json.Marshal(weather.Args{City: cities[r.Intn(len(cities))]})
			return string(args)
		},
		NewHandlers: func(harness.Runtime) []harness.RequestErrorHandler {
			return []harness.RequestErrorHandler{&weather.FallbackHandler{}}
		},
		WrapProvider: func(p harness.Provider) harness.Provider { return weather.Meter{Provider: p, Requests: &Requests} },
		Properties:   []properties.Property{ForecastNamesItsCity},
	}
}

// ForecastNamesItsCity is the weather agent's own promise: a forecast the tool answered (not an
// error) is a forecast of the city the model asked about.
var ForecastNamesItsCity = properties.Define("forecast-names-its-city",
	"every forecast the tool answers is for the city the model asked about",
	func(r *properties.Run, report *properties.Reporter) {
		type call struct { // a call id is unique in its step only
			turn, step int
			id         string
		}
		asked := map[call]string{} // call → city
		for _, e := range r.Log {
			switch d := e.Data.(type) {
			case harness.ToolCall:
				if d.Name == "forecast" {
					asked[call{d.Turn, d.Step, d.CallID}] = cityOf(d.Arguments)
				}
			case harness.ToolResult:
				city, ok := asked[call{d.Turn, d.Step, d.CallID}]
				if !ok || d.IsError {
					continue
				}
				var f weather.Forecast
				if err := json.Unmarshal([]byte(d.Content), &f); err != nil || f.City != city {
					report.Errorf(e.Seq, e.Time, "call %s asked for %s's forecast and was answered %s", d.CallID, city, d.Content)
				}
			}
		}
	})

// cityOf reads the city out of a simulated call's arguments: the world wraps the tool's own
// arguments in "input", next to the faults it planned for the call.
func cityOf(arguments string) string {
	var envelope struct {
		Input string `json:"input"`
	}
	var args weather.Args
	if json.Unmarshal([]byte(arguments), &envelope) != nil || json.Unmarshal([]byte(envelope.Input), &args) != nil {
		return strings.TrimSpace(arguments)
	}
	return args.City
}
