package domain

import (
	"errors"
	"fmt"
	"time"
)

// ErrClaim is wrapped by every error about an invalid claim change.
var ErrClaim = errors.New("invalid claim change")

// AggregateClaim is the aggregate type of insurance claim events.
const AggregateClaim = "Claim"

// TypeClaimReleased is the wire name of ClaimReleased.
const TypeClaimReleased = "ClaimReleased"

// Claim is an insurance claim of chapter 004's story: claim 4711 is released
// for payout, and the payment service must prepare exactly one payout.
type Claim struct {
	ID         string
	Released   bool
	Amount     Money
	Version    int
	ReleasedAt time.Time
}

// ClaimReleased says a claim was released for payout. Contract v1.
type ClaimReleased struct {
	ClaimID    string    `json:"claimId"`
	Sequence   int       `json:"sequence"`
	Amount     Money     `json:"amount"`
	ReleasedAt time.Time `json:"releasedAt"`
}

// EventType implements Event.
func (ClaimReleased) EventType() string { return TypeClaimReleased }

// AggregateID implements Event.
func (e ClaimReleased) AggregateID() string { return e.ClaimID }

// Seq implements Event.
func (e ClaimReleased) Seq() int { return e.Sequence }

// ReleaseClaim releases a claim for payout of a positive amount. Releasing
// a released claim again is an error.
func ReleaseClaim(c Claim, id string, amount Money, at time.Time) (Claim, ClaimReleased, error) {
	switch {
	case id == "":
		return c, ClaimReleased{}, fmt.Errorf("%w: release: empty claim id", ErrClaim)
	case c.Released:
		return c, ClaimReleased{}, fmt.Errorf("%w: release %s: already released", ErrClaim, id)
	case !amount.IsPositive():
		return c, ClaimReleased{}, fmt.Errorf("%w: release %s: amount %s must be positive", ErrClaim, id, amount)
	}
	next := Claim{ID: id, Released: true, Amount: amount, Version: c.Version + 1, ReleasedAt: at}
	return next, ClaimReleased{ClaimID: id, Sequence: next.Version, Amount: amount, ReleasedAt: at}, nil
}
