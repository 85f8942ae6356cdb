package refund

// idempotencyKey is the key a refund of order is asked with: one per order, so that the service
// applies the first request and answers every later one (a re-sent request whose first answer a
// cancel or a crash lost) with the same receipt.
func idempotencyKey(order string) string {
	return "refund-" + order
}
