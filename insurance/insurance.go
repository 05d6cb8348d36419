package insurance

import (
	"errors"
	"fmt"
	"time"

	"outboxlab/domain"
	"outboxlab/effect"
	"outboxlab/inbox"
	"outboxlab/orders"
	"outboxlab/outbox"
	"outboxlab/store"
)

// Tables of the two services.
const (
	// TableClaims is the claims service's table of claims.
	TableClaims = "claims"
	// TablePayouts is the payment service's table of prepared payouts.
	TablePayouts = "payouts"
	payoutSeq    = "payout_seq"
)

// InstallClaims creates the claims service's tables: claims and outbox.
func InstallClaims(db *store.DB) error {
	return errors.Join(db.CreateTable(TableClaims), outbox.Install(db))
}

// InstallPayments creates the payment service's tables: payouts, and the
// consumer's inbox and ordering tables.
func InstallPayments(db *store.DB) error {
	return errors.Join(db.CreateTable(TablePayouts), db.CreateTable(payoutSeq), inbox.Install(db))
}

// Clock tells the current time.
type Clock interface{ Now() time.Time }

// IDs draws message ids.
type IDs interface{ NewID() string }

// Service is the claims service ("Schadendienst").
type Service struct {
	DB    *store.DB
	Gate  effect.Gate
	Clock Clock
	IDs   IDs
	Owner string
}

// Release releases a claim for payout: the claim's new status and the
// message for the payment service commit together, or not at all. The
// payment service is not called; the relay delivers the message later.
func (s *Service) Release(claimID string, amount domain.Money) error {
	now := s.Clock.Now()
	tx := s.DB.Begin(s.Owner)
	defer tx.Rollback()
	var cur domain.Claim
	if v, ok := tx.Get(TableClaims, claimID); ok {
		cur = v.(domain.Claim)
	}
	claim, event, err := domain.ReleaseClaim(cur, claimID, amount, now)
	if err != nil {
		return fmt.Errorf("insurance: %w", err)
	}
	tx.Put(TableClaims, claimID, claim)
	if _, err := outbox.Append(tx, s.IDs.NewID(), event, now); err != nil {
		return fmt.Errorf("insurance: release %s: %w", claimID, err)
	}
	// The claims service is a service as the order service is: its commit
	// of claim and outbox row is the same boundary (service.commit), and
	// the same crash points.
	if err := s.Gate.Cross(orders.BoundaryCommit, tx.Commit); err != nil {
		return fmt.Errorf("insurance: release %s: %w", claimID, err)
	}
	return nil
}

// Payout is one payout the payment service prepared.
type Payout struct {
	ClaimID string
	// Sequence is the release's sequence number (its claim's version).
	Sequence  int
	Amount    domain.Money
	MessageID string
	At        time.Time
}

// PreparePayout is the payment service's effect of ClaimReleased, for
// inbox.Deps.Effect: one payout row per release. Deduplication is the
// consumer's inbox's job.
func PreparePayout(tx *store.Tx, e domain.Event, messageID string, now time.Time) error {
	released, ok := e.(domain.ClaimReleased)
	if !ok {
		return fmt.Errorf("insurance: the payment service has no effect for %s", e.EventType())
	}
	n := 1
	if v, ok := tx.Get(payoutSeq, "next"); ok {
		n = v.(int)
	}
	tx.Put(payoutSeq, "next", n+1)
	p := Payout{ClaimID: released.ClaimID, Sequence: released.Sequence, Amount: released.Amount, MessageID: messageID, At: now}
	return tx.Insert(TablePayouts, fmt.Sprintf("%012d", n), p)
}

// Claims returns every claim the claims service committed, by id.
func Claims(db *store.DB) []domain.Claim { return store.Values[domain.Claim](db, TableClaims) }

// Payouts returns every prepared payout, in the order prepared.
func Payouts(db *store.DB) []Payout { return store.Values[Payout](db, TablePayouts) }
