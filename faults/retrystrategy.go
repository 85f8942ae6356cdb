package faults

import (
	"fmt"
	"slices"
	"strings"

	"github.com/turnsim/turnsim/harness/zoo"
)

// A share of plans retries with one of the zoo's published strategies (harness/zoo, at its
// published parameters) instead of the plan's policy, so that the default mix judges, seed after
// seed, what every strategy must keep and what each states of itself (how it treats a
// Retry-After, where its own delays fall), not only the seed's formula.

// zooShare is the share of plans drawn with their own configuration (not the harness's
// defaults) that name a zoo strategy.
const zooShare = 0.1

// zooStrategies are the strategies a drawn plan may name: the zoo's but the seed's own two,
// which the plan's policy already is.
var zooStrategies = slices.DeleteFunc(zoo.Names(), func(name string) bool { return strings.HasPrefix(name, "seed-") })

// drawRetryStrategy draws the zoo strategy a plan names, "" for the plan's policy.
func (d *drawer) drawRetryStrategy() string {
	if d.rng.Float64() >= zooShare {
		return ""
	}
	return zooStrategies[d.rng.Intn(len(zooStrategies))]
}

// validateRetryStrategy refuses a plan that names a strategy the zoo does not have, or names one
// while building the agent with the harness's defaults.
func (p Plan) validateRetryStrategy() error {
	switch {
	case p.RetryStrategy == "":
		return nil
	case !slices.Contains(zoo.Names(), p.RetryStrategy):
		return fmt.Errorf("faults: plan: retryStrategy %q is not a strategy of the zoo (%s)", p.RetryStrategy, strings.Join(zoo.Names(), ", "))
	case p.HarnessDefaults:
		return fmt.Errorf("faults: plan: retryStrategy %q and harnessDefaults: the harness's defaults retry with the seed's policy", p.RetryStrategy)
	}
	return nil
}
