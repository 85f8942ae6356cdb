package refund

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/turnsim/turnsim/harness"
)

// Args are the refund tool's arguments.
type Args struct {
	Order string `json:"order"`
	Cents int    `json:"cents"`
}

// How long the payment service takes: the request's way there, and the answer's way back. A
// cancel in the second half comes after the refund was applied.
const (
	requestLatency = 150 * time.Millisecond
	answerLatency  = 400 * time.Millisecond
)

// Ledger is the agent's own memory of the refunds it completed (it saw their receipts), kept in
// the agent's process: a crash loses it, and a cancelled request never reaches it.
type Ledger struct {
	mu      sync.Mutex
	refunds map[string]Receipt
}

// NewLedger is an empty ledger.
func NewLedger() *Ledger { return &Ledger{refunds: map[string]Receipt{}} }

func (l *Ledger) done(order string) (Receipt, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r, ok := l.refunds[order]
	return r, ok
}

func (l *Ledger) record(r Receipt) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.refunds[r.Order] = r
}

// Tool is the issue_refund tool: it refunds an order through the payment service, unless its
// ledger says it did already. It waits for the service through rt, the agent's runtime, with the
// step's ctx, so a cancel ends the wait (in production rt is harness.NewProductionRuntime and the
// wait is the HTTP round trip). A refund is exclusive: never two at once.
func Tool(rt harness.Runtime, payments *Payments, ledger *Ledger) harness.Tool {
	return harness.Tool{Name: "issue_refund", Run: func(ctx context.Context, arguments string) (string, error) {
		var args Args
		if err := json.Unmarshal([]byte(arguments), &args); err != nil || args.Order == "" || args.Cents <= 0 {
			return "", &harness.ToolFailure{Name: "BadArguments", Code: "BAD_ARGUMENTS", Message: fmt.Sprintf("issue_refund needs an order and a positive amount, got %q", arguments)}
		}
		if r, ok := ledger.done(args.Order); ok {
			return answer(r, "already refunded")
		}
		key := idempotencyKey(args.Order)
		if err := rt.Sleep(requestLatency, ctx); err != nil {
			return "", err // the request never reached the service
		}
		receipt := payments.Apply(args.Order, args.Cents, key)
		if err := rt.Sleep(answerLatency, ctx); err != nil {
			return "", err // applied, but the answer is lost: asking again must not refund twice
		}
		ledger.record(receipt)
		return answer(receipt, "refunded")
	}}
}

func answer(r Receipt, status string) (string, error) {
	data, err := json.Marshal(struct {
		Status string `json:"status"`
		Receipt
	}{status, r})
	return string(data), err
}
