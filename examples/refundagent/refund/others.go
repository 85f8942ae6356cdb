package refund

import (
	"context"
	"encoding/json"
	"time"

	"github.com/turnsim/turnsim/harness"
)

// LookupTool answers an order's state (parallel: lookups may run together): every order is
// delivered. It changes nothing, so a cancelled lookup can always be asked again.
func LookupTool(rt harness.Runtime) harness.Tool {
	return harness.Tool{Name: "lookup_order", Parallel: true, Run: func(ctx context.Context, arguments string) (string, error) {
		var args Args
		_ = json.Unmarshal([]byte(arguments), &args)
		if err := rt.Sleep(80*time.Millisecond, ctx); err != nil {
			return "", err
		}
		return `{"order":"` + args.Order + `","status":"delivered"}`, nil
	}}
}

// NotifyTool tells the customer (parallel; a second note is only noise, never money).
func NotifyTool(rt harness.Runtime) harness.Tool {
	return harness.Tool{Name: "notify_customer", Parallel: true, Run: func(ctx context.Context, arguments string) (string, error) {
		if err := rt.Sleep(120*time.Millisecond, ctx); err != nil {
			return "", err
		}
		return `{"sent":true}`, nil
	}}
}
