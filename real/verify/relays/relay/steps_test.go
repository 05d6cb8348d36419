package relay

import (
	"strings"
	"testing"
)

// TestEachPartIsInTheClaim: the broken relays leave one part out of the
// claim with strings.Replace; a part the claim does not hold word for
// word would leave nothing out, and the broken relay would be the
// reference.
func TestEachPartIsInTheClaim(t *testing.T) {
	for name, part := range map[string]string{"ExpiredLease": ExpiredLease, "OldestOfAggregate": OldestOfAggregate, "SkipLocked": SkipLocked} {
		if strings.Count(ClaimSQL, part) != 1 || strings.Count(DueSQL, part) != 1 {
			t.Errorf("%s is in ClaimSQL %d times and in DueSQL %d times, want once each", name, strings.Count(ClaimSQL, part), strings.Count(DueSQL, part))
		}
	}
}
