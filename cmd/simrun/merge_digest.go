package main

import (
	"encoding/hex"
	"fmt"
	"math/big"
)

// sumDigests combines shard digests under an order-independent definition of a run's digest:
//
//	digest(seeds) = Σ over the seeds of SHA-256(seed as 8 bytes big-endian ‖ the seed's log digest), mod 2^256
//
// written as 64 hex digits. The digest of a union of disjoint seed sets is then the sum of their
// digests mod 2^256, whatever the order or the split (unlike a hash of a concatenation), and a
// seed counted twice does not cancel out (unlike XOR). combineDigests uses it once the runner
// computes its digest so.
func sumDigests(digests []string) (string, error) {
	modulus := new(big.Int).Lsh(big.NewInt(1), 256)
	sum := new(big.Int)
	for _, d := range digests {
		b, err := hex.DecodeString(d)
		if err != nil || len(b) != 32 {
			return "", fmt.Errorf("digest %q is not 64 hex digits", d)
		}
		sum.Add(sum, new(big.Int).SetBytes(b))
	}
	sum.Mod(sum, modulus)
	out := make([]byte, 32)
	return hex.EncodeToString(sum.FillBytes(out)), nil
}
