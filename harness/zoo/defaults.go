package zoo

import (
	"encoding/json"
	"fmt"

	"github.com/turnsim/turnsim/harness"
)

// DefaultParams returns a family's published defaults in the JSON form New reads, so tools can
// show them, or vary them (policy fuzzing draws around them).
func DefaultParams(name string) (json.RawMessage, error) {
	var params any
	switch name {
	case "none":
		params = DefaultNoneParams()
	case "constant":
		params = DefaultConstantParams()
	case string(FormulaExponential), string(FormulaFullJitter), string(FormulaEqualJitter), string(FormulaDecorrelated):
		params = DefaultBackoffParams()
	case "sdk":
		params = DefaultSDKParams()
	case "grpc-throttle":
		params = DefaultGRPCParams()
	case "aws-quota":
		params = DefaultAWSParams()
	case "sre-adaptive":
		params = DefaultSREParams()
	case "seed-default":
		params = harness.DefaultRetryPolicy()
	case "seed-always":
		params = SeedAlwaysPolicy()
	default:
		return nil, fmt.Errorf("zoo: unknown policy %q", name)
	}
	return json.Marshal(params)
}
