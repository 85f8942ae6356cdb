// Package refund is a small agent's refund tool, as a user would build one on turnsim's harness:
// it asks a payment service to refund an order, once. The service is remote and slow, so a
// request can be cancelled after the service applied it but before its answer came back; the
// tool must then be able to ask again without refunding twice. An idempotency key that names the
// order, not the attempt, is what makes asking again safe. Its tests simulate it with turnsim
// (package refundsim).
package refund

import (
	"fmt"
	"sort"
	"sync"
)

// Payments is the payment service's side of a refund: it applies a refund the first time it
// sees an idempotency key, and answers every later request with the same key with that first
// refund's receipt. It is the remote service itself (in production, behind HTTP; here, in
// memory), so it outlives the agent's process: a crash of the agent does not reset it.
type Payments struct {
	mu sync.Mutex
	// byKey is the receipt of each idempotency key seen; applied counts the refunds applied per
	// order, which is what the customer sees.
	byKey   map[string]Receipt
	applied map[string]int
	next    int
}

// Receipt is what the service answers for a refund.
type Receipt struct {
	ID    string `json:"id"`
	Order string `json:"order"`
	Cents int    `json:"cents"`
}

// NewPayments is a payment service with no refund yet.
func NewPayments() *Payments {
	return &Payments{byKey: map[string]Receipt{}, applied: map[string]int{}}
}

// Apply refunds cents for order, unless a refund with the same idempotency key was applied
// before: then it applies nothing and answers that refund's receipt.
func (p *Payments) Apply(order string, cents int, key string) Receipt {
	p.mu.Lock()
	defer p.mu.Unlock()
	if r, ok := p.byKey[key]; ok {
		return r
	}
	p.next++
	r := Receipt{ID: fmt.Sprintf("r-%d", p.next), Order: order, Cents: cents}
	p.byKey[key] = r
	p.applied[order]++
	return r
}

// RefundedTwice lists the orders refunded more than once, sorted, each with its count.
func (p *Payments) RefundedTwice() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var twice []string
	for order, n := range p.applied {
		if n > 1 {
			twice = append(twice, fmt.Sprintf("%s (%d refunds)", order, n))
		}
	}
	sort.Strings(twice)
	return twice
}
